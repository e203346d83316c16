// RouterAgent: intent, confidence, species and family from rules (Chinese and
// English cue tables); the assistant asks a model only when the rules are unsure.
#include "assistant/assistant_internal.h"
#include "bioagent/assistant.h"

namespace bioagent {
namespace {

struct Cue {
  const char* text;
  Intent intent;
  double weight;
};

const char* const kIntentNames[] = {"faq",     "literature", "analysis", "execute", "plan_question",
                                    "decline", "data",       "paper",    "chitchat"};

// Words that make a message a question (it never orders anything).
const char* const kQuestionCues[] = {"?", "？", "吗", "哪些", "什么", "怎么", "如何", "为什么", "是否", "多久", "能否"};
const char* const kQuestionStarts[] = {"what ", "which ", "how ", "do ",   "does ",  "can ",  "could ", "should ",
                                       "is ",   "are ",   "why ", "when ", "where ", "will ", "would "};
// Words that refuse (the message never orders a run).
const char* const kNegationCues[] = {"不想",   "不要",    "不用",   "别执行",     "别运行",  "暂不",      "先不",
                                     "不执行", "不运行",  "不需要", "取消",       "算了",    "don't",     "dont ",
                                     "do not", "not now", "cancel", "never mind", "not yet", "rather not"};
// A whole message that confirms the plan on the screen.
const char* const kAffirmatives[] = {"好",     "好的", "是", "是的", "确认", "确定", "可以",  "开始",    "开始吧",
                                     "执行吧", "yes",  "ok", "okay", "sure", "go",   "do it", "proceed", "y"};

bool contains(const std::string& low, const char* cue) { return low.find(cue) != std::string::npos; }

// The message without surrounding spaces and final punctuation ("好的！" -> "好的").
std::string bare(std::string low) {
  static const std::vector<std::string> tails = {" ", "!", ".", "。", "！", "，", ",", "~", "\n"};
  for (bool cut = true; cut && !low.empty();) {
    cut = false;
    for (auto& t : tails)
      if (low.size() >= t.size() && low.compare(low.size() - t.size(), t.size(), t) == 0) {
        low.resize(low.size() - t.size());
        cut = true;
      }
    while (!low.empty() && low.front() == ' ') low.erase(0, 1), cut = true;
  }
  return low;
}

// Cue table: the first word list of each intent in both languages. Weights add
// up per intent; the largest sum wins.
const Cue kCues[] = {
    {"执行分析", Intent::kExecute, 1.0},
    {"开始分析", Intent::kExecute, 1.0},
    {"执行", Intent::kExecute, 0.8},
    {"开始运行", Intent::kExecute, 0.9},
    {"立即执行", Intent::kExecute, 1.0},
    {"run the analysis", Intent::kExecute, 1.0},
    {"execute", Intent::kExecute, 0.9},
    {"start the analysis", Intent::kExecute, 1.0},
    {"go ahead", Intent::kExecute, 0.7},
    {"run the pipeline", Intent::kExecute, 1.0},
    {"如果我想", Intent::kAnalysis, 0.6},
    {"开展", Intent::kAnalysis, 0.5},
    {"可以吗", Intent::kAnalysis, 0.4},
    {"方案", Intent::kAnalysis, 0.6},
    {"可行", Intent::kAnalysis, 0.6},
    {"规划", Intent::kAnalysis, 0.5},
    {"怎么分析", Intent::kAnalysis, 0.7},
    {"如何分析", Intent::kAnalysis, 0.7},
    {"plan", Intent::kAnalysis, 0.7},
    {"feasib", Intent::kAnalysis, 0.7},
    {"i want to study", Intent::kAnalysis, 0.7},
    {"i want to", Intent::kAnalysis, 0.4},
    {"can i ", Intent::kAnalysis, 0.3},
    {"how should i analy", Intent::kAnalysis, 0.7},
    {"carry out", Intent::kAnalysis, 0.4},
    {"research on", Intent::kAnalysis, 0.3},
    {"文章", Intent::kLiterature, 0.7},
    {"文献", Intent::kLiterature, 0.7},
    {"发表", Intent::kLiterature, 0.6},
    {"论文", Intent::kLiterature, 0.5},
    {"研究现状", Intent::kLiterature, 0.6},
    {"published", Intent::kLiterature, 0.7},
    {"publication", Intent::kLiterature, 0.7},
    {"literature", Intent::kLiterature, 0.7},
    {"articles", Intent::kLiterature, 0.6},
    {"papers on", Intent::kLiterature, 0.6},
    {"any paper", Intent::kLiterature, 0.6},
    {"总结", Intent::kFaq, 0.8},
    {"介绍", Intent::kFaq, 0.7},
    {"什么是", Intent::kFaq, 0.8},
    {"是什么", Intent::kFaq, 0.7},
    {"功能", Intent::kFaq, 0.4},
    {"summar", Intent::kFaq, 0.8},
    {"what is", Intent::kFaq, 0.7},
    {"what are", Intent::kFaq, 0.6},
    {"tell me about", Intent::kFaq, 0.7},
    {"overview", Intent::kFaq, 0.7},
    {"explain", Intent::kFaq, 0.6},
    {"how many", Intent::kFaq, 0.5},
    {"多少个", Intent::kFaq, 0.5},
    {"my library", Intent::kPaper, 0.9},
    {"this paper", Intent::kPaper, 0.8},
    {"the paper", Intent::kPaper, 0.5},
    {"文库", Intent::kPaper, 0.6},
    {"这篇", Intent::kPaper, 0.7},
    {"pdf", Intent::kPaper, 0.6},
    {"table", Intent::kData, 0.5},
    {"dataset", Intent::kData, 0.6},
    {"excel", Intent::kData, 0.8},
    {"csv", Intent::kData, 0.7},
    {"column", Intent::kData, 0.6},
    {"表格", Intent::kData, 0.7},
    {"数据集", Intent::kData, 0.6},
    {"calculate", Intent::kData, 0.5},
    {"需要准备", Intent::kPlanQuestion, 0.9},
    {"准备哪些", Intent::kPlanQuestion, 0.9},
    {"哪些文件", Intent::kPlanQuestion, 0.9},
    {"什么文件", Intent::kPlanQuestion, 0.9},
    {"需要哪些", Intent::kPlanQuestion, 0.7},
    {"多长时间", Intent::kPlanQuestion, 0.7},
    {"多久", Intent::kPlanQuestion, 0.7},
    {"what files", Intent::kPlanQuestion, 0.9},
    {"which files", Intent::kPlanQuestion, 0.9},
    {"what do i need", Intent::kPlanQuestion, 0.8},
    {"need to prepare", Intent::kPlanQuestion, 0.9},
    {"how long", Intent::kPlanQuestion, 0.7},
    {"计算", Intent::kData, 0.5},
};

}  // namespace

std::string to_string(Intent intent) { return kIntentNames[static_cast<int>(intent)]; }

Result<Intent> intent_from_string(std::string_view name) {
  for (size_t i = 0; i < std::size(kIntentNames); ++i)
    if (name == kIntentNames[i]) return static_cast<Intent>(i);
  return not_found("no intent '" + std::string(name.substr(0, 40)) + "'");
}

Json Route::to_json() const {
  bool knowledge = intent == Intent::kFaq || intent == Intent::kLiterature;
  return {{"intent", to_string(intent)},
          {"mode", knowledge ? "FAQ" : to_string(intent)},
          {"confidence", confidence},
          {"species", species},
          {"species_name", species_name},
          {"family", family},
          {"language", language},
          {"decided_by", decided_by},
          {"matched", matched},
          {"question", question},
          {"negated", negated}};
}

namespace {

bool is_question(const std::string& low) {
  for (auto* c : kQuestionCues)
    if (contains(low, c)) return true;
  std::string b = bare(low);
  for (auto* c : kQuestionStarts)
    if (b.rfind(c, 0) == 0) return true;
  return false;
}

bool is_negated(const std::string& low) {
  for (auto* c : kNegationCues)
    if (contains(low, c)) return true;
  std::string b = bare(low);
  return b == "no" || b == "不" || b.rfind("no ", 0) == 0 || b.rfind("no,", 0) == 0 || b == "n";
}

bool is_affirmative(const std::string& low) {
  std::string b = bare(low);
  for (auto* a : kAffirmatives)
    if (b == a) return true;
  return false;
}

// Orders become questions or refusals when asked or negated; an order stands only alone.
void settle_orders(Route& r, std::map<Intent, double>& score, const std::string& low) {
  bool wants_run = score.count(Intent::kExecute) || contains(low, "执行") || contains(low, "运行") ||
                   contains(low, "run") || contains(low, "分析") || contains(low, "analys");
  // A refusal: of a run, or a short "no" on its own ("取消", "算了", "cancel").
  if (r.negated && (wants_run || bare(low).size() <= 12)) {
    score.erase(Intent::kExecute);
    score[Intent::kDecline] += 1.2;
    r.matched.push_back("negation");
  } else if (r.question && score.count(Intent::kExecute)) {
    double w = score[Intent::kExecute];
    score.erase(Intent::kExecute);
    score[Intent::kPlanQuestion] += std::min(w, 0.8);
    r.matched.push_back("question");
  } else if (!r.question && !r.negated && score.empty() && is_affirmative(low)) {
    score[Intent::kExecute] = 0.9;
    r.matched.push_back("affirmative");
  }
}

}  // namespace

Route route_by_rules(std::string_view message) {
  Route r;
  r.language = has_cjk(message) ? "zh" : "en";
  std::string low = lower_ascii(std::string(message));
  std::map<Intent, double> score;
  for (auto& c : kCues) {
    if (low.find(c.text) != std::string::npos) {
      score[c.intent] += c.weight;
      r.matched.push_back(c.text);
    }
  }
  r.question = is_question(low);
  r.negated = is_negated(low);
  settle_orders(r, score, low);
  Mentions m = find_mentions(message);
  if (m.species) r.species = m.species->value("prefix", "");
  if (!m.species && !m.latin_species.empty()) {
    r.species = prefix_of_latin(m.latin_species);
    r.species_name = m.latin_species;
  }
  if (m.family)
    r.family = m.family->value("name", "");
  else
    r.family = m.unknown_family;
  // "可以吗" with a family and species asks for a plan.
  bool named_family = m.family || !m.unknown_family.empty();
  if (score.count(Intent::kAnalysis) && named_family && !r.species.empty()) score[Intent::kAnalysis] += 0.3;
  // "summarise the literature" is literature
  if (score.count(Intent::kLiterature) && score.count(Intent::kFaq)) score[Intent::kFaq] -= 0.3;
  Intent best = Intent::kChitchat;
  double best_score = 0;
  for (auto& [intent, s] : score)
    if (s > best_score) best = intent, best_score = s;
  if (best_score <= 0) {
    // No cue: a bare family name is a knowledge question; anything else is unsure.
    r.intent = m.family ? Intent::kFaq : Intent::kChitchat;
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
