// The local runner: fork + execvp (no shell) in the work folder, its own
// process group, stdin/stdout redirected to files, stderr to the stage log,
// rlimits (no core files, a file-size cap), a wall-clock limit and
// cancellation (SIGTERM, then SIGKILL), CPU time from wait4 and the program's
// peak RSS from /proc (wait4's ru_maxrss also counts the parent's pages the
// child held before exec, so every program would look as large as bioagent).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "bioagent/pipeline.h"

namespace bioagent {
namespace {

std::string tail_of(const fs::path& log, size_t max_bytes = 2000) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  auto size = static_cast<size_t>(in.tellg());
  size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(std::streamoff(from));
  std::string s(size - from, '\0');
  in.read(s.data(), std::streamsize(s.size()));
  return s;
}

// The high-water resident set of a running process in KB (VmHWM), 0 once it has
// exited or where /proc has no such line.
long peak_rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

class LocalRunner : public Runner {
 public:
  std::string name() const override { return "local"; }
  Json describe() const override { return {{"kind", "local"}}; }
  int max_cpus() const override { return int(std::max(1u, std::thread::hardware_concurrency())); }

  ProcessResult run(const Command& cmd, const fs::path& work, const fs::path& log, const Resources& res,
                    const std::atomic<bool>& cancel) override {
    ProcessResult out;
    if (cmd.argv.empty()) return out;
    std::vector<char*> argv;
    for (auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const fs::path wdir = fs::absolute(work), logp = fs::absolute(log);  // the child changes directory
    std::string out_path = cmd.stdout_file.empty() ? logp.string() : (wdir / cmd.stdout_file).string();
    std::string in_path = cmd.stdin_file.empty() ? "/dev/null" : (wdir / cmd.stdin_file).string();
    std::string log_path = logp.string(), dir = wdir.string();
    auto start = std::chrono::steady_clock::now();
    // vfork: the child only makes system calls until exec, and no atfork handler
    // runs in it (a library's handler that allocates can deadlock a child forked
    // while another thread holds the allocator's lock, as libomp's does under ASan).
    pid_t pid = vfork();
    if (pid < 0) {
      out.log_tail = "fork failed";
      return out;
    }
    if (pid == 0) {  // child: only async-signal-safe calls until exec
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed bioagent leaves no orphan tool running
      if (chdir(dir.c_str()) != 0) _exit(126);
      int in = open(in_path.c_str(), O_RDONLY);
      int o = open(out_path.c_str(), O_WRONLY | O_CREAT | (cmd.stdout_file.empty() ? O_APPEND : O_TRUNC), 0644);
      int e = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (in < 0 || o < 0 || e < 0) _exit(126);
      dup2(in, 0);
      dup2(o, 1);
      dup2(e, 2);
      struct rlimit core {
        0, 0
      };
      setrlimit(RLIMIT_CORE, &core);
      // No runaway output: 64 GiB, the command's own budget, or what this process may still write
      // (a stage's helper carries the run's disk budget as its soft limit), whichever is least.
      struct rlimit fsize {};
      getrlimit(RLIMIT_FSIZE, &fsize);
      rlim_t file_cap = cmd.file_bytes > 0 ? rlim_t(cmd.file_bytes) : rlim_t(64) << 30;
      if (fsize.rlim_cur != RLIM_INFINITY && fsize.rlim_cur < file_cap) file_cap = fsize.rlim_cur;
      fsize.rlim_cur = file_cap;
      if (fsize.rlim_max != RLIM_INFINITY && fsize.rlim_max < file_cap) fsize.rlim_cur = fsize.rlim_max;
      setrlimit(RLIMIT_FSIZE, &fsize);
      // Memory: the command's own limit as the soft limit (a stage's helper sets its budget this way and
      // gives the programs it starts back the hard limit; they are bound by the run's own budgets).
      struct rlimit as {};
      getrlimit(RLIMIT_AS, &as);
      as.rlim_cur = cmd.memory_mb > 0 ? std::min<rlim_t>(as.rlim_max, rlim_t(cmd.memory_mb) << 20) : as.rlim_max;
      setrlimit(RLIMIT_AS, &as);
      if (res.nice > 0) setpriority(PRIO_PROCESS, 0, res.nice);  // a background stage yields to the others
      execvp(argv[0], argv.data());
      const char msg[] = "exec failed: program not found or not executable\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(127);
    }
    setpgid(pid, pid);
    auto limit = std::chrono::minutes(res.time_minutes > 0 ? res.time_minutes : 24 * 60);
    int status = 0;
    struct rusage ru {};
    bool sent_term = false;
    auto term_at = std::chrono::steady_clock::time_point::max();
    long peak_kb = 0;  // sampled while it runs: vfork returns only after the child's exec
    for (int polls = 0;; ++polls) {
      peak_kb = std::max(peak_kb, peak_rss_kb(pid));
      pid_t r = wait4(pid, &status, WNOHANG, &ru);
      if (r == pid) break;
      auto now = std::chrono::steady_clock::now();
      if (!sent_term && (cancel.load() || now - start > limit)) {
        out.cancelled = cancel.load();
        out.timed_out = !out.cancelled;
        kill(-pid, SIGTERM);
        sent_term = true;
        term_at = now;
      } else if (sent_term && now - term_at > std::chrono::seconds(5)) {
        kill(-pid, SIGKILL);
      }
      // Short tools are noticed at once; long ones are polled every 20 ms.
      std::this_thread::sleep_for(std::chrono::milliseconds(polls < 200 ? 1 : 20));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.user_seconds = double(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    out.system_seconds = double(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
    out.max_rss_kb = peak_kb;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    out.log_tail = tail_of(log);
    return out;
  }
};

}  // namespace

std::unique_ptr<Runner> make_local_runner() { return std::make_unique<LocalRunner>(); }

Result<std::unique_ptr<Runner>> make_runner(const Json& d) {
  const std::string kind =
      d.is_object() && d.contains("kind") && d["kind"].is_string() ? d["kind"].get<std::string>() : "";
  if (kind == "local") return make_local_runner();
  if (kind == "slurm")
    return make_slurm_runner(d.value("partition", std::string()), d.value("poll_ms", 1000),
                             d.value("max_mem_mb", int64_t(0)));
  return invalid_argument("no runner of kind '" + kind.substr(0, 40) + "' (local or slurm)");
}

Resources resources_for(const std::string& label, int cpu_budget) {
  cpu_budget = std::max(1, cpu_budget);
  if (label == "large") return {cpu_budget, 32768, 24 * 60, 10};
  if (label == "medium") return {cpu_budget, 8192, 4 * 60};
  return {1, 2048, 30};
}

}  // namespace bioagent
