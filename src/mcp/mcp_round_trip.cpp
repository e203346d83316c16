// Multi round-trip requests (MCP 2026-07-28, SEP-2322): a call that needs the
// client's answer ends with an InputRequiredResult; the client calls again
// with inputResponses and the requestState of the last round. The state is
// the answers so far, sealed (HMAC-SHA-256 under a per-process key, bound to
// the method, the tool or prompt name and an expiry), because the client
// holds it between rounds and could change it.
#include <chrono>

#include "bioagent/digest.h"
#include "bioagent/json_text.h"
#include "mcp/mcp_stateless.h"
#include "mcp/mcp_wire.h"

namespace bioagent::mcp {

bool declares(const Json& client_capabilities, ClientAsk ask) {
  const std::string cap(client_ask_capability(ask));
  return client_capabilities.is_object() && client_capabilities.contains(cap) && client_capabilities[cap].is_object();
}

Json declared(const Json& client_capabilities, ClientAsk ask) {
  return declares(client_capabilities, ask) ? client_capabilities[std::string(client_ask_capability(ask))] : Json();
}

bool declares_tasks_extension(const Json& client_capabilities) {
  if (!client_capabilities.is_object() || !client_capabilities.contains("extensions")) return false;
  const Json& ext = client_capabilities["extensions"];
  return ext.is_object() && ext.contains(kTasksExtension) && ext[kTasksExtension].is_object();
}

Status check_client_answer(ClientAsk ask, const Json& answer) {
  if (!answer.is_object()) return invalid_argument("the answer must be an object (the client's result)");
  switch (ask) {
    case ClientAsk::kElicitation: {
      const std::string action = answer.value("action", Json()).is_string() ? answer["action"].get<std::string>() : "";
      if (action != "accept" && action != "decline" && action != "cancel")
        return invalid_argument("an elicitation answer needs action accept, decline or cancel");
      if (action == "accept" && answer.contains("content") && !answer["content"].is_object())
        return invalid_argument("an accepted elicitation's content must be an object");
      return Status::ok();
    }
    case ClientAsk::kSampling:
      if (!answer.contains("content") || !(answer["content"].is_object() || answer["content"].is_array()))
        return invalid_argument("a sampling answer needs content");
      return Status::ok();
    case ClientAsk::kRoots:
      if (!answer.contains("roots") || !answer["roots"].is_array())
        return invalid_argument("a roots answer needs a roots array");
      return Status::ok();
  }
  return Status::ok();
}

Json input_request(const ClientQuestion& q) {
  Json params = q.params.is_object() ? q.params : Json::object();
  return {{"method", std::string(client_ask_method(q.ask))}, {"params", params}};
}

RoundTripChannel::RoundTripChannel(Json client_capabilities, std::map<std::string, Json> answers)
    : caps_(std::move(client_capabilities)), answers_(std::move(answers)) {}

bool RoundTripChannel::supports(ClientAsk ask) const { return declares(caps_, ask); }

std::vector<Result<Json>> RoundTripChannel::ask_all(const std::vector<ClientQuestion>& questions) {
  std::lock_guard lock(mu_);
  std::vector<Result<Json>> out;
  for (const auto& q : questions) {
    // Numbered in asking order, so the same call asks the same keys in every round.
    const std::string key = q.key.empty() ? "input-" + std::to_string(++asked_) : q.key;
    if (!supports(q.ask)) {
      out.emplace_back(client_unsupported(q.ask));
      continue;
    }
    auto it = answers_.find(key);
    if (it != answers_.end() && check_client_answer(q.ask, it->second).is_ok()) {
      used_[key] = it->second;
      out.emplace_back(it->second);
      continue;
    }
    pending_[key] = input_request(q);
    out.emplace_back(input_required_status());
  }
  return out;
}

Json RoundTripChannel::pending() const {
  std::lock_guard lock(mu_);
  return pending_;
}

Json RoundTripChannel::used_answers() const {
  std::lock_guard lock(mu_);
  return used_;
}

namespace {

constexpr std::chrono::minutes kStateLifetime{10};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string mac(const std::string& key, const std::string& method, const std::string& name,
                const std::string& payload) {
  return hmac_sha256_hex(key, method + "\n" + name + "\n" + payload);
}

Status tampered() { return invalid_argument("requestState integrity check failed"); }

}  // namespace

std::string seal_request_state(const std::string& key, const std::string& method, const std::string& name,
                               const Json& answers) {
  Json state = {
      {"v", 1}, {"exp", now_ms() + int64_t(kStateLifetime / std::chrono::milliseconds(1))}, {"answers", answers}};
  const std::string payload = base64_encode(json_text(state));
  return payload + "." + mac(key, method, name, payload);
}

Result<Json> open_request_state(const std::string& key, const std::string& method, const std::string& name,
                                const std::string& sealed) {
  const size_t dot = sealed.rfind('.');
  if (dot == std::string::npos) return tampered();
  const std::string payload = sealed.substr(0, dot), given = sealed.substr(dot + 1);
  const std::string want = mac(key, method, name, payload);
  // Constant time in the MAC's length.
  if (given.size() != want.size()) return tampered();
  unsigned char diff = 0;
  for (size_t i = 0; i < want.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ want[i]);
  if (diff != 0) return tampered();
  auto text = base64_decode(payload);
  if (!text) return tampered();
  Json state = parse_json_bounded(*text);
  if (!state.is_object() || !state.value("exp", Json()).is_number_integer() || !state.contains("answers") ||
      !state["answers"].is_object())
    return tampered();
  if (state["exp"].get<int64_t>() < now_ms()) return invalid_argument("requestState expired: start the call again");
  return state["answers"];
}

}  // namespace bioagent::mcp

namespace bioagent {

McpShared::McpShared() : state_key_(random_hex(32)) {}

std::shared_ptr<McpShared> make_mcp_shared() { return std::make_shared<McpShared>(); }

}  // namespace bioagent
