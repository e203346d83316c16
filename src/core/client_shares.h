// Fair shares of a limited resource (MCP sessions, open event streams, runs under
// way, MCP tasks): at most `total` held in all and at most `per_client` held by
// any one client, so one client at its share leaves the rest to the others. A
// client is who a request says it is: its bearer token when it presents one,
// else its address (see client_key). Thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include "bioagent/status.h"

namespace bioagent {

// The share key of a client: "token:<digest prefix>" of a presented bearer token
// (never the token itself), else "address:<peer>"; "local" when neither is known
// (an in-process caller: the CLI, stdio MCP).
std::string client_key(const std::string& bearer_token, const std::string& peer_address);

class ClientShares {
 public:
  // `what`: the resource in plural ("MCP sessions"); per_client is at least 1 and at most total.
  ClientShares(std::string what, size_t total, size_t per_client);
  // Takes one unit for `client`. Refused (kResourceExhausted, details: limit, scope "client" or
  // "server") when the client holds its share or the server holds its total; the message names
  // the limit reached and says what to do.
  Status take(const std::string& client);
  // Gives back a unit taken by `client` (extra calls are ignored).
  void give_back(const std::string& client);
  size_t held(const std::string& client) const;
  size_t held_in_all() const;
  size_t total() const { return total_; }
  size_t per_client() const { return per_client_; }

 private:
  std::string what_;
  size_t total_, per_client_;
  mutable std::mutex mu_;
  std::map<std::string, size_t> held_;
  size_t in_all_ = 0;
};

// The share of one client for a total: a quarter (at least 1), so that three
// clients at their share still leave room for a fourth's first.
inline size_t quarter_share(size_t total) { return total / 4 > 0 ? total / 4 : 1; }

}  // namespace bioagent
