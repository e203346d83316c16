// Starts tests/helpers/replay_server.py on loopback for one test and stops it
// afterwards: the only stand-in for external web APIs the tests use.
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
  // `routes` is the JSON routes document (see replay_server.py).
  explicit ReplayServer(const std::string& routes) {
    routes_path_ = dir_.write("routes.json", routes).string();
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::string script = source_dir() + "/tests/helpers/replay_server.py";
      execl("/usr/bin/python3", "python3", script.c_str(), routes_path_.c_str(), static_cast<char*>(nullptr));
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
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  TempDir dir_;
  std::string routes_path_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace bioagent::testing
