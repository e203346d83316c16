// The Slurm runner: each command becomes a batch job (cpus, memory and time
// from the stage's resource label) whose script execs the argv we built, quoted
// by us; the job is polled with squeue, its end state read with scontrol (or
// sacct when accounting keeps it), and cancelled with scancel.
#include <cctype>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "bioagent/pipeline.h"
#include "pipeline/slurm_fields.h"
#include "pipeline/subprocess.h"

namespace bioagent {

std::string slurm_field(const std::string& text, const std::string& key) {
  const std::string needle = key + "=";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const unsigned char before = at == 0 ? ' ' : static_cast<unsigned char>(text[at - 1]);
    if (std::isalnum(before) || before == '_') continue;  // inside a longer word (OldJobState=)
    const size_t from = at + needle.size();
    const size_t to = text.find_first_of(" \n", from);
    std::string value = text.substr(from, to == std::string::npos ? std::string::npos : to - from);
    if (!value.empty()) return value;
  }
  return "";
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class SlurmRunner : public Runner {
 public:
  SlurmRunner(std::string partition, int poll_ms, int64_t max_mem_mb)
      : partition_(std::move(partition)), poll_ms_(poll_ms), max_mem_mb_(max_mem_mb) {}
  std::string name() const override { return "slurm"; }
  Json describe() const override {
    return {{"kind", "slurm"}, {"partition", partition_}, {"poll_ms", poll_ms_}, {"max_mem_mb", max_mem_mb_}};
  }
  // The largest node's CPUs (in the partition when one is named), asked once.
  int max_cpus() const override {
    std::call_once(cpus_once_, [this] {
      std::vector<std::string> argv = {"sinfo", "-h", "-o", "%c"};
      if (!partition_.empty()) argv.insert(argv.begin() + 1, {"-p", partition_});
      auto c = capture(argv, 10000);
      if (!c || c->exit_code != 0) return;
      std::istringstream in(c->out);
      for (std::string line; std::getline(in, line);) max_cpus_ = std::max(max_cpus_, std::atoi(line.c_str()));
    });
    return max_cpus_;
  }

  ProcessResult run(const Command& cmd, const fs::path& work, const fs::path& log, const Resources& res,
                    const std::atomic<bool>& cancel) override {
    ProcessResult out;
    auto start = std::chrono::steady_clock::now();
    const fs::path work_abs = fs::absolute(work), log_abs = fs::absolute(log);
    fs::path script = work_abs / (".job-" + std::to_string(counter_++) + ".sh");
    {
      std::ofstream s(script);
      s << "#!/bin/sh\n"
        << "#SBATCH --job-name=bioagent\n"
        << "#SBATCH --cpus-per-task=" << res.cpus << "\n"
        << "#SBATCH --mem=" << (max_mem_mb_ > 0 ? std::min(res.mem_mb, max_mem_mb_) : res.mem_mb) << "M\n"
        << "#SBATCH --time=" << res.time_minutes << "\n"
        << "#SBATCH --output=" << log_abs.string() << "\n"
        << "#SBATCH --open-mode=append\n"
        << "#SBATCH --chdir=" << work_abs.string() << "\n";
      if (!partition_.empty()) s << "#SBATCH --partition=" << partition_ << "\n";
      s << "exec";
      for (auto& a : cmd.argv) s << ' ' << quote(a);
      if (!cmd.stdin_file.empty()) s << " < " << quote(cmd.stdin_file);
      if (!cmd.stdout_file.empty()) s << " > " << quote(cmd.stdout_file);
      s << "\n";
    }
    auto sub = capture({"sbatch", "--parsable", script.string()}, 30000);
    if (!sub || sub->exit_code != 0) {
      out.log_tail = "sbatch refused the job: " + (sub ? sub->out : sub.status().message());
      return out;
    }
    out.job_id = sub->out.substr(0, sub->out.find_first_of(";\n"));
    while (true) {
      if (cancel.load()) {
        (void)capture({"scancel", out.job_id});
        out.cancelled = true;
      }
      auto q = capture({"squeue", "-h", "-j", out.job_id, "-o", "%T"});
      std::string state = q ? q->out : "";
      state.erase(state.find_last_not_of(" \n") + 1);
      if (!q || q->exit_code != 0 || state.empty() || state == "COMPLETED" || state == "FAILED" ||
          state == "CANCELLED" || state == "TIMEOUT" || state == "OUT_OF_MEMORY")
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms_));
    }
    // The end state: scontrol while the controller remembers the job, else sacct.
    std::string state, exit_code;
    for (int tries = 0; tries < 20 && state.empty(); ++tries) {
      if (auto sc = capture({"scontrol", "show", "job", out.job_id}); sc && sc->exit_code == 0) {
        state = slurm_field(sc->out, "JobState");
        exit_code = slurm_field(sc->out, "ExitCode");
      }
      if (state.empty())
        if (auto sa = capture({"sacct", "-j", out.job_id, "-n", "-P", "-X", "-o", "State,ExitCode"});
            sa && sa->exit_code == 0 && sa->out.find('|') != std::string::npos) {
          state = sa->out.substr(0, sa->out.find('|'));
          exit_code = sa->out.substr(sa->out.find('|') + 1);
        }
      if (state.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.timed_out = state == "TIMEOUT";
    if (exit_code.empty()) {
      out.exit_code = state == "COMPLETED" ? 0 : 1;
    } else {
      int code = std::atoi(exit_code.c_str()), sig = std::atoi(exit_code.substr(exit_code.find(':') + 1).c_str());
      out.exit_code = sig ? 128 + sig : code;
    }
    if (state != "COMPLETED" && out.exit_code == 0) out.exit_code = 1;
    std::ifstream in(log);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    out.log_tail =
        "slurm job " + out.job_id + " " + state + "\n" + (all.size() > 2000 ? all.substr(all.size() - 2000) : all);
    return out;
  }

 private:
  std::string partition_;
  int poll_ms_;
  int64_t max_mem_mb_;
  std::atomic<int> counter_{0};
  mutable std::once_flag cpus_once_;
  mutable int max_cpus_ = 0;
};

}  // namespace

std::unique_ptr<Runner> make_slurm_runner(std::string partition, int poll_ms, int64_t max_mem_mb) {
  return std::make_unique<SlurmRunner>(std::move(partition), poll_ms, max_mem_mb);
}

}  // namespace bioagent
