// Budget: token, cost, tool-call and time accounting with caps.
#include "bioagent/budget.h"

#include "bioagent/json_get.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace bioagent {

BudgetLimits BudgetLimits::from_json(const Json& j) {
  BudgetLimits b;
  b.max_tokens = json_get(j, "max_tokens", int64_t(0));
  b.max_cost_usd = json_get(j, "max_cost_usd", 0.0);
  b.max_tool_calls = json_get(j, "max_tool_calls", int64_t(0));
  b.max_seconds = json_get(j, "max_seconds", 0.0);
  return b;
}

Budget::Budget(BudgetLimits limits, Budget* parent, std::string scope)
    : limits_(limits), parent_(parent), scope_(std::move(scope)) {}

void Budget::add_usage(const ModelConfig& model, const Usage& usage) {
  {
    std::lock_guard lock(mu_);
    auto& m = models_[model.name];
    m.prompt += usage.prompt_tokens;
    m.completion += usage.completion_tokens;
    m.cost += (double(usage.prompt_tokens) * model.prompt_price_per_1k +
               double(usage.completion_tokens) * model.completion_price_per_1k) /
              1000.0;
  }
  if (parent_) parent_->add_usage(model, usage);
}

void Budget::add_tool_call() {
  {
    std::lock_guard lock(mu_);
    ++tool_calls_;
  }
  if (parent_) parent_->add_tool_call();
}

Status Budget::check() const {
  int64_t tokens = 0;
  double cost = 0;
  int64_t calls;
  {
    std::lock_guard lock(mu_);
    for (auto& [_, m] : models_) {
      tokens += m.prompt + m.completion;
      cost += m.cost;
    }
    calls = tool_calls_;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  auto hit = [&](const std::string& what, const std::string& used, const std::string& cap) {
    return Status(ErrorCode::kResourceExhausted,
                  "the " + scope_ + "'s " + what + " cap was reached (" + used + " used, cap " + cap + "); stopped")
        .with("cap", what)
        .with("scope", scope_);
  };
  char a[64], b[64];
  if (limits_.max_tokens && tokens >= limits_.max_tokens)
    return hit("token", std::to_string(tokens), std::to_string(limits_.max_tokens));
  if (limits_.max_cost_usd > 0 && cost >= limits_.max_cost_usd) {
    std::snprintf(a, sizeof a, "$%.4f", cost);
    std::snprintf(b, sizeof b, "$%.4f", limits_.max_cost_usd);
    return hit("cost", a, b);
  }
  if (limits_.max_tool_calls && calls >= limits_.max_tool_calls)
    return hit("tool-call", std::to_string(calls), std::to_string(limits_.max_tool_calls));
  if (limits_.max_seconds > 0 && secs >= limits_.max_seconds) {
    std::snprintf(a, sizeof a, "%.1f s", secs);
    std::snprintf(b, sizeof b, "%.1f s", limits_.max_seconds);
    return hit("wall-time", a, b);
  }
  return parent_ ? parent_->check() : Status::ok();
}

Json Budget::summary() const {
  std::lock_guard lock(mu_);
  Json models = Json::object();
  int64_t prompt = 0, completion = 0;
  double cost = 0;
  for (auto& [name, m] : models_) {
    models[name] = {{"prompt_tokens", m.prompt}, {"completion_tokens", m.completion}, {"cost_usd", m.cost}};
    prompt += m.prompt;
    completion += m.completion;
    cost += m.cost;
  }
  return Json{{"prompt_tokens", prompt},
              {"completion_tokens", completion},
              {"cost_usd", cost},
              {"tool_calls", tool_calls_},
              {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()},
              {"models", models}};
}

std::string Budget::line() const {
  Json s = summary();
  char buf[256];
  std::snprintf(buf, sizeof buf, "tokens %lld (prompt %lld + completion %lld) · ~$%.4f · %lld tool calls · %.1f s",
                static_cast<long long>(s["prompt_tokens"].get<int64_t>() + s["completion_tokens"].get<int64_t>()),
                static_cast<long long>(s["prompt_tokens"].get<int64_t>()),
                static_cast<long long>(s["completion_tokens"].get<int64_t>()), s["cost_usd"].get<double>(),
                static_cast<long long>(s["tool_calls"].get<int64_t>()), s["seconds"].get<double>());
  return buf;
}

}  // namespace bioagent
