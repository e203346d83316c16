// Running a short helper program and capturing its output (no shell): for
// tool versions and the Slurm client commands.
#pragma once

#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct Captured {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};
// Fails only when the program cannot be started or outlives `timeout_ms`.
// `cwd`: the folder it runs in (empty: ours).
Result<Captured> capture(const std::vector<std::string>& argv, int timeout_ms = 10000, const std::string& cwd = "");
// The full path of `program` on PATH, or "".
std::string which(const std::string& program);

}  // namespace bioagent
