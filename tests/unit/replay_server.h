// Starts tests/helpers/replay_server.py (external web APIs) or
// tests/helpers/scripted_llm.py (an OpenAI-compatible model) on loopback for
// one test and stops it afterwards: the only stand-ins the tests use.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "test_util.h"

namespace bioagent::testing {

class ReplayServer {
 public:
  // `routes` is the JSON document the helper reads (see replay_server.py,
  // scripted_llm.py); the scripted model also logs each request to log_path().
  explicit ReplayServer(const std::string& routes, const std::string& helper = "replay_server.py") {
    routes_path_ = dir_.write("routes.json", routes).string();
    log_path_ = (dir_.path() / "requests.jsonl").string();
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::string script = source_dir() + "/tests/helpers/" + helper;
      execl("/usr/bin/python3", "python3", script.c_str(), routes_path_.c_str(), log_path_.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[64] = {0};
    if (f && std::fgets(line, sizeof line, f)) std::sscanf(line, "PORT %d", &port_);
    if (f) std::fclose(f);
  }
  ~ReplayServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool ok() const { return port_ > 0; }
  const std::string& log_path() const { return log_path_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  TempDir dir_;
  std::string routes_path_, log_path_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace bioagent::testing
