// RouterAgent: intent, confidence, species and family from rules (Chinese and
// English cue tables); the assistant asks a model only when the rules are unsure.
#include "assistant/assistant_internal.h"
#include "bioagent/assistant.h"

namespace bioagent {
namespace {

struct Cue {
  const char* text;
  const char* intent;
  double weight;
};

// Cue table: the first word list of each intent in both languages. Weights add
// up per intent; the largest sum wins.
const Cue kCues[] = {
    {"执行分析", "execute", 1.0},
    {"开始分析", "execute", 1.0},
    {"执行", "execute", 0.8},
    {"开始运行", "execute", 0.9},
    {"立即执行", "execute", 1.0},
    {"run the analysis", "execute", 1.0},
    {"execute", "execute", 0.9},
    {"start the analysis", "execute", 1.0},
    {"go ahead", "execute", 0.7},
    {"run the pipeline", "execute", 1.0},
    {"如果我想", "analysis", 0.6},
    {"开展", "analysis", 0.5},
    {"可以吗", "analysis", 0.4},
    {"方案", "analysis", 0.6},
    {"可行", "analysis", 0.6},
    {"规划", "analysis", 0.5},
    {"怎么分析", "analysis", 0.7},
    {"如何分析", "analysis", 0.7},
    {"plan", "analysis", 0.7},
    {"feasib", "analysis", 0.7},
    {"i want to study", "analysis", 0.7},
    {"i want to", "analysis", 0.4},
    {"can i ", "analysis", 0.3},
    {"how should i analy", "analysis", 0.7},
    {"carry out", "analysis", 0.4},
    {"research on", "analysis", 0.3},
    {"文章", "literature", 0.7},
    {"文献", "literature", 0.7},
    {"发表", "literature", 0.6},
    {"论文", "literature", 0.5},
    {"研究现状", "literature", 0.6},
    {"published", "literature", 0.7},
    {"publication", "literature", 0.7},
    {"literature", "literature", 0.7},
    {"articles", "literature", 0.6},
    {"papers on", "literature", 0.6},
    {"any paper", "literature", 0.6},
    {"总结", "faq", 0.8},
    {"介绍", "faq", 0.7},
    {"什么是", "faq", 0.8},
    {"是什么", "faq", 0.7},
    {"功能", "faq", 0.4},
    {"summar", "faq", 0.8},
    {"what is", "faq", 0.7},
    {"what are", "faq", 0.6},
    {"tell me about", "faq", 0.7},
    {"overview", "faq", 0.7},
    {"explain", "faq", 0.6},
    {"how many", "faq", 0.5},
    {"多少个", "faq", 0.5},
    {"my library", "paper", 0.9},
    {"this paper", "paper", 0.8},
    {"the paper", "paper", 0.5},
    {"文库", "paper", 0.6},
    {"这篇", "paper", 0.7},
    {"pdf", "paper", 0.6},
    {"table", "data", 0.5},
    {"dataset", "data", 0.6},
    {"excel", "data", 0.8},
    {"csv", "data", 0.7},
    {"column", "data", 0.6},
    {"表格", "data", 0.7},
    {"数据集", "data", 0.6},
    {"calculate", "data", 0.5},
    {"计算", "data", 0.5},
};

}  // namespace

Json Route::to_json() const {
  return {{"intent", intent},         {"mode", intent == "faq" || intent == "literature" ? "FAQ" : lower_ascii(intent)},
          {"confidence", confidence}, {"species", species},
          {"family", family},         {"language", language},
          {"decided_by", decided_by}, {"matched", matched}};
}

Route route_by_rules(std::string_view message) {
  Route r;
  r.language = has_cjk(message) ? "zh" : "en";
  std::string low = lower_ascii(std::string(message));
  std::map<std::string, double> score;
  for (auto& c : kCues) {
    if (low.find(c.text) != std::string::npos) {
      score[c.intent] += c.weight;
      r.matched.push_back(c.text);
    }
  }
  Mentions m = find_mentions(message);
  if (m.species) r.species = m.species->value("prefix", "");
  if (m.family)
    r.family = m.family->value("name", "");
  else
    r.family = m.unknown_family;
  // "执行分析" alone is an order; "可以吗" with a family and species asks for a plan.
  if (score.count("analysis") && (m.family || !m.unknown_family.empty()) && m.species) score["analysis"] += 0.3;
  if (score.count("literature") && score.count("faq")) score["faq"] -= 0.3;  // "summarise the literature" is literature
  std::string best;
  double best_score = 0;
  for (auto& [intent, s] : score)
    if (s > best_score) best = intent, best_score = s;
  if (best.empty()) {
    // No cue: a bare family name is a knowledge question; anything else is unsure.
    r.intent = m.family ? "faq" : "chitchat";
    r.confidence = m.family ? 0.6 : 0.3;
    return r;
  }
  r.intent = best;
  double second = 0;
  for (auto& [intent, s] : score)
    if (intent != best) second = std::max(second, s);
  // Confidence grows with the winning margin and with a named family.
  r.confidence = std::min(0.98, 0.55 + 0.3 * (best_score - second) + (m.family ? 0.15 : 0.0));
  return r;
}

}  // namespace bioagent
