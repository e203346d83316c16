// What a tool implementation sees: its spec (from a JSON config file) and a
// ToolContext (workspace roots, deadline, cancellation, log and progress sinks).
// A ToolContext is owned by the caller and lives for one call; the cancellation
// flag may be set from another thread. client() is the channel to the MCP
// client of the call, when there is one (bioagent/client_channel.h).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bioagent/status.h"

namespace bioagent {

class Workspace;
class ClientChannel;

struct ToolSpec {
  std::string name;  // unique, e.g. "calculate_expr"
  std::string type;  // C++ implementation, e.g. "CalculatorTool"
  std::string description;
  std::string family;  // config file it came from, e.g. "calculator_tools"
  Json parameters;     // strict JSON Schema (type object)
  Json return_schema;  // JSON Schema of the `data` field on success
  Json test_examples;  // array of argument objects, each must validate
  Json settings;       // free per-tool configuration for the implementation
};

enum class LogLevel { kDebug, kInfo, kWarn, kError };

class ToolContext {
 public:
  using ProgressFn = std::function<void(double done, double total, const std::string& message)>;
  using LogFn = std::function<void(LogLevel, const std::string& message)>;

  ToolContext();
  explicit ToolContext(const Workspace* workspace);

  const Workspace& workspace() const;
  void set_workspace(const Workspace* w) { workspace_ = w; }

  void set_deadline(std::chrono::steady_clock::time_point d) { deadline_ = d; }
  void set_timeout(std::chrono::milliseconds t) { deadline_ = std::chrono::steady_clock::now() + t; }
  void set_cancel_flag(std::shared_ptr<std::atomic<bool>> flag) { cancel_ = std::move(flag); }
  void set_progress(ProgressFn fn) { progress_ = std::move(fn); }
  void set_log(LogFn fn) { log_ = std::move(fn); }
  void set_client(std::shared_ptr<ClientChannel> channel) { client_ = std::move(channel); }
  // The channel to the client of this call (sampling, elicitation, roots); null without one.
  ClientChannel* client() const { return client_.get(); }

  // Named settings from the interface (e.g. "bundle_dir": the data bundle).
  void set_option(const std::string& key, std::string value) { options_[key] = std::move(value); }
  void set_options(std::map<std::string, std::string> options) { options_ = std::move(options); }
  std::string option(const std::string& key) const {
    auto it = options_.find(key);
    return it == options_.end() ? std::string() : it->second;
  }

  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }
  bool past_deadline() const { return std::chrono::steady_clock::now() > deadline_; }
  // OK, or kCancelled / kTimeout: long-running tools call this in their loops.
  Status check() const;

  void progress(double done, double total, const std::string& message) const {
    if (progress_) progress_(done, total, message);
  }
  void log(LogLevel level, const std::string& message) const {
    if (log_) log_(level, message);
  }

 private:
  const Workspace* workspace_ = nullptr;
  std::chrono::steady_clock::time_point deadline_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  ProgressFn progress_;
  LogFn log_;
  std::shared_ptr<ClientChannel> client_;
  std::map<std::string, std::string> options_;
};

// The signature every tool implementation has. `args` is already validated
// against spec.parameters with defaults applied.
using ToolFn = Result<Json> (*)(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent
