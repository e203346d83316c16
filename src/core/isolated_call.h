// Runs work whose resource use cannot be bounded from inside (user-written
// SQL) in a forked child process: an address-space limit, a wall-clock
// deadline after which the child is killed, the result back through a pipe.
// The parent's memory is never at risk. Thread-safe; each call forks once.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

struct IsolationLimits {
  size_t memory_bytes = size_t(1) << 30;      // address space the child may add to what it inherits
  std::chrono::milliseconds deadline{31000};  // the child is killed after this
  size_t max_output_bytes = size_t(64) << 20;
  std::string what = "the work";  // named in errors ("the query")
};

// `work`'s value or Status, or kTimeout when the deadline killed the child,
// kResourceExhausted when it died of its memory limit, kInternal naming the
// signal when it crashed. Under AddressSanitizer
// the memory limit is not applied (ASan reserves terabytes of address space).
Result<Json> run_isolated(const std::function<Result<Json>()>& work, const IsolationLimits& limits);
// False in AddressSanitizer builds, where memory_bytes is not applied.
bool isolation_limits_memory();

}  // namespace bioagent
