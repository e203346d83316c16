// Joins threads as they finish. A thread whose work has ended hands its own
// std::thread over (join_when_finished) as its last act; the process's one reaper
// thread joins it at once, so a finished task frees its stack when it ends, not
// when whoever holds its record lets go. Thread-safe.
#pragma once

#include <thread>

namespace bioagent {

// Takes `finishing` (the calling thread's own handle, or any thread about to return)
// and joins it on the reaper thread. The thread must touch nothing it does not own after
// the call.
void join_when_finished(std::thread finishing);

}  // namespace bioagent
