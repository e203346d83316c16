// A few long-lived threads for short parallel sections, such as parsing one
// large file in pieces. Unlike threads made per call, they keep their
// thread-local buffers and malloc arenas warm between calls (a fresh thread
// paid ~1.3 ms more for the same 12 MB notebook piece). Thread-safe.
#pragma once

#include <functional>
#include <vector>

namespace bioagent {

class WorkerPool {
 public:
  // One worker per core beyond the caller's, made on first use, joined at exit.
  static WorkerPool& shared();

  // Runs every task, tasks[0] on the calling thread and the rest on workers
  // (the caller takes queued ones too, so this never waits on a busy pool);
  // returns when all are done, rethrowing the first task's exception if any.
  void run(std::vector<std::function<void()>>& tasks);

  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

 private:
  explicit WorkerPool(unsigned workers);
  struct State;
  State* state_;
};

}  // namespace bioagent
