#include "core/worker_pool.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace bioagent {

struct WorkerPool::State {
  std::mutex mu;
  std::condition_variable wake;
  std::deque<std::function<void()>> queue;
  bool stop = false;
  std::vector<std::thread> threads;

  // Pops one queued job, or returns an empty function when none is waiting.
  std::function<void()> try_pop() {
    std::lock_guard<std::mutex> lock(mu);
    if (queue.empty()) return {};
    auto job = std::move(queue.front());
    queue.pop_front();
    return job;
  }

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [this] { return stop || !queue.empty(); });
        if (queue.empty()) return;  // stopping and drained
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }
};

WorkerPool& WorkerPool::shared() {
  static WorkerPool pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
  return pool;
}

WorkerPool::WorkerPool(unsigned workers) : state_(new State) {
  for (unsigned i = 0; i < workers; ++i) state_->threads.emplace_back([s = state_] { s->loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->wake.notify_all();
  for (auto& t : state_->threads) t.join();
  delete state_;
}

void WorkerPool::run(std::vector<std::function<void()>>& tasks) {
  if (tasks.empty()) return;
  // What the batch's jobs share: a countdown and the first failure.
  struct Batch {
    std::mutex mu;
    std::condition_variable done_cv;
    size_t left = 0;
    std::exception_ptr failure;
    void finish(std::exception_ptr e) {
      std::lock_guard<std::mutex> lock(mu);
      if (e && !failure) failure = e;
      if (--left == 0) done_cv.notify_all();
    }
  } batch;
  batch.left = tasks.size();
  auto guarded = [&batch](std::function<void()>& task) {
    std::exception_ptr e;
    try {
      task();
    } catch (...) {
      e = std::current_exception();
    }
    batch.finish(e);
  };
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    for (size_t i = 1; i < tasks.size(); ++i) state_->queue.push_back([&guarded, &tasks, i] { guarded(tasks[i]); });
  }
  state_->wake.notify_all();
  guarded(tasks[0]);
  // Help with whatever is still queued (ours or another caller's), then wait.
  while (auto job = state_->try_pop()) job();
  std::unique_lock<std::mutex> lock(batch.mu);
  batch.done_cv.wait(lock, [&batch] { return batch.left == 0; });
  if (batch.failure) std::rethrow_exception(batch.failure);
}

}  // namespace bioagent
