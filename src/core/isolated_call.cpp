// run_isolated: fork, limit, run, serialise the result onto a pipe; the parent
// polls the pipe until the deadline and reaps the child.
#include "core/isolated_call.h"
#include "bioagent/json_text.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

size_t current_address_space() {
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return size_t(pages) * size_t(sysconf(_SC_PAGESIZE));
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += size_t(n);
  }
}

[[noreturn]] void child_main(int fd, const std::function<Result<Json>()>& work, const IsolationLimits& limits) {
  if (!kAsan) {
    rlimit r{};
    r.rlim_cur = r.rlim_max = current_address_space() + limits.memory_bytes;
    setrlimit(RLIMIT_AS, &r);
  }
  Json out;
  try {
    auto r = work();
    out = r ? Json{{"value", std::move(*r)}} : Json{{"error", r.status().to_json()}};
  } catch (const std::bad_alloc&) {
    out = {{"error", {{"code", "resource_exhausted"}, {"message", "out of memory"}, {"details", Json::object()}}}};
  } catch (const std::exception& e) {
    out = {{"error", {{"code", "internal"}, {"message", e.what()}, {"details", Json::object()}}}};
  }
  write_all(fd, json_text(out));
  ::close(fd);
  _exit(0);
}

// Why a child ended by `sig`: its memory limit (or the system's) or a crash.
Status ended_by_signal(int sig, const IsolationLimits& limits) {
  const std::string limit = std::to_string(limits.memory_bytes >> 20) + " MiB";
  if (sig == SIGKILL)  // the kernel's OOM killer
    return resource_exhausted(limits.what + " was killed (its memory limit of " + limit +
                              ", or the system ran out of memory)");
  if (sig == SIGSEGV && isolation_limits_memory())  // a stack that cannot grow under the address-space limit
    return resource_exhausted(limits.what + " stopped with a segmentation fault: its memory limit of " + limit +
                              " was reached, or it has a fault");
  const char* name = strsignal(sig);
  return Status(ErrorCode::kInternal, limits.what + " crashed (signal " + std::to_string(sig) + ", " +
                                          (name ? name : "unknown") + "); nothing it wrote is used")
      .with("signal", sig);
}

}  // namespace

bool isolation_limits_memory() { return !kAsan; }

Result<Json> run_isolated(const std::function<Result<Json>()>& work, const IsolationLimits& limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status(ErrorCode::kUnavailable, std::string("cannot start a child process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], work, limits);
  }
  ::close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + limits.deadline;
  std::string data;
  bool timed_out = false, too_big = false;
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int rc = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, size_t(n));
    if (data.size() > limits.max_output_bytes) {
      too_big = true;
      break;
    }
  }
  ::close(fds[0]);
  if (timed_out || too_big) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return Status(ErrorCode::kTimeout,
                  limits.what + " ran longer than " + std::to_string(limits.deadline.count()) + " ms and was stopped");
  if (too_big) return resource_exhausted(limits.what + " produced more than its output limit");
  Json out = Json::parse(data, nullptr, false);
  if (WIFSIGNALED(wstatus)) return ended_by_signal(WTERMSIG(wstatus), limits);
  if (out.is_discarded() || !out.is_object())
    return Status(ErrorCode::kInternal, limits.what + " ended without a result (exit status " +
                                            std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) + ")");
  if (out.contains("value")) return std::move(out["value"]);
  return Status::from_json(out["error"]);
}

}  // namespace bioagent
