// Fair shares per client (see client_shares.h).
#include "core/client_shares.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bioagent/digest.h"

namespace bioagent {

std::string client_key(const std::string& bearer_token, const std::string& peer_address) {
  if (!bearer_token.empty()) return "token:" + sha256_hex(bearer_token).substr(0, 16);
  if (!peer_address.empty()) return "address:" + peer_address;
  return "local";
}

ClientShares::ClientShares(std::string what, size_t total, size_t per_client)
    : what_(std::move(what)),
      total_(std::max<size_t>(1, total)),
      per_client_(std::clamp<size_t>(per_client, 1, total_)) {}

Status ClientShares::take(const std::string& client) {
  std::lock_guard lock(mu_);
  size_t& mine = held_[client];
  if (mine >= per_client_) {  // per_client_ >= 1, so `mine` is an entry that stays
    return Status(ErrorCode::kResourceExhausted, "refused: this client already holds " + std::to_string(mine) + " " +
                                                     what_ + ", its share (at most " + std::to_string(per_client_) +
                                                     " per client); end one first")
        .with("limit", per_client_)
        .with("scope", "client")
        .with("resource", what_);
  }
  if (in_all_ >= total_) {
    const size_t holds = mine;  // read before the erase, which frees `mine`
    if (holds == 0) held_.erase(client);
    return Status(ErrorCode::kResourceExhausted,
                  "refused: the server holds its " + std::to_string(total_) + " " + what_ + " (this client holds " +
                      std::to_string(holds) + " of its " + std::to_string(per_client_) + "); retry when one ends")
        .with("limit", total_)
        .with("scope", "server")
        .with("resource", what_);
  }
  ++mine;
  ++in_all_;
  return Status::ok();
}

void ClientShares::give_back(const std::string& client) {
  std::lock_guard lock(mu_);
  auto it = held_.find(client);
  if (it == held_.end() || it->second == 0) return;
  --in_all_;
  if (--it->second == 0) held_.erase(it);
}

size_t ClientShares::held(const std::string& client) const {
  std::lock_guard lock(mu_);
  auto it = held_.find(client);
  return it == held_.end() ? 0 : it->second;
}

size_t ClientShares::held_in_all() const {
  std::lock_guard lock(mu_);
  return in_all_;
}

}  // namespace bioagent
