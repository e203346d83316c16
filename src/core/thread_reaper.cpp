// The process's thread reaper (see thread_reaper.h).
#include "core/thread_reaper.h"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace bioagent {
namespace {

class Reaper {
 public:
  ~Reaper() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  void hand_over(std::thread t) {
    std::lock_guard lock(mu_);
    if (stopping_) {  // the process is exiting: this thread is about to return anyway
      t.detach();
      return;
    }
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    queue_.push_back(std::move(t));
    cv_.notify_all();
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      while (!queue_.empty()) {
        std::thread t = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        if (t.joinable()) t.join();  // returns as soon as that thread has left its function
        lock.lock();
      }
      if (stopping_) return;
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::thread> queue_;
  std::thread worker_;
  bool stopping_ = false;
};

Reaper& reaper() {
  static Reaper r;
  return r;
}

}  // namespace

void join_when_finished(std::thread finishing) {
  if (!finishing.joinable()) return;
  reaper().hand_over(std::move(finishing));
}

}  // namespace bioagent
