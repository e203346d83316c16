// One budget for everything a run spends: prompt and completion tokens per
// model, estimated cost from each model's price, tool calls and wall time.
// A run's budget may have a session budget as parent; a cap hit at either
// level stops the run with a message naming the cap.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "bioagent/llm.h"
#include "bioagent/status.h"

namespace bioagent {

struct BudgetLimits {  // 0 means no cap
  int64_t max_tokens = 0;
  double max_cost_usd = 0;
  int64_t max_tool_calls = 0;
  double max_seconds = 0;
  static BudgetLimits from_json(const Json& j);
};

class Budget {
 public:
  explicit Budget(BudgetLimits limits = {}, Budget* parent = nullptr, std::string scope = "run");

  void add_usage(const ModelConfig& model, const Usage& usage);
  void add_tool_call();
  // kResourceExhausted naming the cap (and the scope: run or session) once one is reached.
  Status check() const;
  Json summary() const;
  // "tokens 1,234 (prompt 1,000 + completion 234) · ~$0.0012 · 3 tool calls · 4.2 s"
  std::string line() const;

 private:
  struct PerModel {
    int64_t prompt = 0, completion = 0;
    double cost = 0;
  };
  BudgetLimits limits_;
  Budget* parent_;
  std::string scope_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  std::map<std::string, PerModel> models_;
  int64_t tool_calls_ = 0;
};

}  // namespace bioagent
