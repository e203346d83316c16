// capture() and which() (see subprocess.h).
#include "pipeline/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace bioagent {

Result<Captured> capture(const std::vector<std::string>& argv, int timeout_ms, const std::string& cwd) {
  if (argv.empty()) return invalid_argument("no program to run");
  std::string path = argv[0].find('/') == std::string::npos ? which(argv[0]) : argv[0];
  if (path.empty()) return not_found("the program '" + argv[0] + "' is not installed (not on PATH)");
  int fds[2];
  if (pipe(fds) != 0) return internal_error("pipe failed");
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = vfork();  // system calls only until exec; no atfork handlers (see local_runner.cpp)
  if (pid < 0) return internal_error("fork failed");
  if (pid == 0) {
    int null_in = open("/dev/null", O_RDONLY);  // a tool waiting on stdin gets end-of-file
    if (null_in >= 0) dup2(null_in, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execv(path.c_str(), args.data());
    _exit(127);
  }
  close(fds[1]);
  Captured c;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  bool timed_out = false;
  while (true) {
    int left =
        int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, left) <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    if (c.out.size() < (1u << 20)) c.out.append(buf, size_t(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out)
    return Status(ErrorCode::kTimeout, argv[0] + " did not finish within " + std::to_string(timeout_ms) + " ms");
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

std::string which(const std::string& program) {
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  for (size_t a = 0; a <= path.size();) {
    size_t b = path.find(':', a);
    std::string dir = path.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (!dir.empty()) {
      std::filesystem::path p = std::filesystem::path(dir) / program;
      if (access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p)) return p.string();
    }
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return "";
}

}  // namespace bioagent
