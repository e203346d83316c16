// What the run service's tasks share: the CPU queue, the doorbell between
// processes, and the names of a run's result files.
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "runs/runs_internal.h"

namespace bioagent {

bool CpuBudget::acquire(const std::string& task_id, int cpus, const std::function<bool()>& give_up,
                        const std::function<void(size_t)>& on_position) {
  cpus = std::clamp(cpus, 1, total_);
  std::unique_lock lock(mu_);
  line_.push_back(task_id);
  size_t told = 0;
  for (;;) {
    size_t pos = static_cast<size_t>(std::find(line_.begin(), line_.end(), task_id) - line_.begin());
    if (pos == 0 && free_ >= cpus) {
      line_.pop_front();
      free_ -= cpus;
      cv_.notify_all();
      return true;
    }
    if (give_up()) {
      line_.erase(line_.begin() + static_cast<ptrdiff_t>(pos));
      cv_.notify_all();
      return false;
    }
    if (pos + 1 != told) {
      told = pos + 1;
      lock.unlock();
      on_position(told);
      lock.lock();
      continue;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(500));
  }
}

void CpuBudget::release(int cpus) {
  std::lock_guard lock(mu_);
  free_ = std::min(total_, free_ + std::clamp(cpus, 1, total_));
  cv_.notify_all();
}

size_t CpuBudget::queued() const {
  std::lock_guard lock(mu_);
  return line_.size();
}

RequestBell::RequestBell(fs::path file) : file_(std::move(file)) {
  std::error_code ec;
  fs::create_directories(file_.parent_path(), ec);
  std::ofstream(file_, std::ios::app).flush();  // the file inotify watches must exist
  inotify_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_ >= 0) watch_ = inotify_add_watch(inotify_, file_.c_str(), IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB);
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

RequestBell::~RequestBell() {
  if (inotify_ >= 0) ::close(inotify_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void RequestBell::ring() const {
  std::ofstream(file_, std::ios::trunc).flush();  // closing a written file wakes the watchers
}

bool RequestBell::wait(std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{inotify_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  if (inotify_ < 0 || watch_ < 0) {  // no inotify here: the timeout is the only wake-up
    ::poll(&fds[1], 1, int(timeout.count()));
    return false;
  }
  int rc = ::poll(fds, 2, int(timeout.count()));
  if (rc <= 0 || !(fds[0].revents & POLLIN)) return false;
  char buf[4096];
  while (::read(inotify_, buf, sizeof buf) > 0) {
  }
  return true;
}

void RequestBell::stop() {
  uint64_t one = 1;
  if (stop_fd_ >= 0 && ::write(stop_fd_, &one, sizeof one) < 0) {
  }
}

std::string result_file_url(const std::string& task_id, const std::string& name) {
  return "/api/agent/results/" + task_id + "/files/" + name;
}

std::map<std::string, Json> figure_captions(const fs::path& final_dir) {
  std::map<std::string, Json> out;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(final_dir, ec)) {
    if (!e.path().filename().string().ends_with(".figure_captions.json")) continue;
    Json c = Json::parse(std::ifstream(e.path()), nullptr, false);
    if (!c.is_object()) continue;
    for (auto& fig : c.value("figures", Json::array()))
      if (fig.is_object() && fig.contains("file")) out[fig.value("file", std::string())] = fig;
  }
  return out;
}

}  // namespace bioagent
