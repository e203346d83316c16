// Which client (a key from client_key: a token digest or an address) acts for
// which owner (an assistant session) of the runs: the runs under way or waiting
// of every owner a client acts for count against that client's share of the run
// service's runs (a quarter of them), so one client never holds every run. The
// HTTP routes and MCP note the client of each request that may start a run;
// owners with no client noted (the CLI's, runs resumed at start-up) count against
// the service's total only. Process-wide; thread-safe.
#pragma once

#include <string>

namespace bioagent {

// Records that `client` acts for `owner` now (empty values are ignored).
void note_run_client(const std::string& owner, const std::string& client);
// The client last noted for `owner`, or "".
std::string run_client_of(const std::string& owner);

}  // namespace bioagent
