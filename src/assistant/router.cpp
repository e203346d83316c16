// RouterAgent: intent, confidence, species and family from rules (the intent
// table's cues, Chinese and English; the knowledge base's family names, aliases
// and member genes); the assistant asks a model only when the rules are unsure.
#include <fstream>

#include "assistant/intents.h"
#include "bioagent/assistant.h"

namespace bioagent {
namespace {

// Words that make a message a question (it never orders anything).
const char* const kQuestionCues[] = {"?", "？", "吗", "哪些", "什么", "怎么", "如何", "为什么", "是否", "多久", "能否"};
const char* const kQuestionStarts[] = {"what ", "which ", "how ", "do ",   "does ",  "can ",  "could ", "should ",
                                       "is ",   "are ",   "why ", "when ", "where ", "will ", "would "};
// A whole message that confirms the plan on the screen.
const char* const kAffirmatives[] = {"好",     "好的", "是", "是的", "确认", "确定", "可以",  "开始",    "开始吧",
                                     "执行吧", "yes",  "ok", "okay", "sure", "go",   "do it", "proceed", "y"};

// What a question about a named family asks (its regulators, domains,
// functions, members, counts, species): each makes it a knowledge question.
struct AskCue {
  const char* text;
  const char* asks;
};
const AskCue kAskCues[] = {
    {"regulat", "regulators"},  {"microrna", "regulators"},   {"mirna", "regulators"}, {"target", "regulators"},
    {"upstream", "regulators"}, {"调控", "regulators"},       {"靶向", "regulators"},  {"靶基因", "regulators"},
    {"上游", "regulators"},     {"domain", "domains"},        {"motif", "domains"},    {"pfam", "domains"},
    {"结构域", "domains"},      {"基序", "domains"},          {"保守", "domains"},     {"function", "functions"},
    {"role", "functions"},      {"involved in", "functions"}, {"do in", "functions"},  {"功能", "functions"},
    {"作用", "functions"},      {"参与", "functions"},        {"member", "members"},   {"成员", "members"},
    {"subfamil", "members"},    {"亚家族", "members"},        {"how many", "counts"},  {"number of", "counts"},
    {"count", "counts"},        {"多少", "counts"},           {"几个", "counts"},      {"数量", "counts"},
    {"数目", "counts"},         {"species", "species"},       {"物种", "species"},     {"植物中", "species"},
    {"full name", "names"},     {"stand for", "names"},       {"全称", "names"},       {"是什么", "names"},
};

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

}  // namespace

std::string to_string(Intent intent) { return intent_spec(intent).name; }

Result<Intent> intent_from_string(std::string_view name) {
  for (auto& spec : intent_table())
    if (name == spec.name) return spec.intent;
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

// The decline row's cues are the refusals.
bool is_negated(const std::string& low) {
  for (auto& c : intent_spec(Intent::kDecline).cues)
    if (contains(low, c.text)) return true;
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
  for (auto& spec : intent_table())
    for (auto& c : spec.cues)
      if (c.weight > 0 && low.find(c.text) != std::string::npos) {
        score[spec.intent] += c.weight;
        r.matched.push_back(c.text);
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
  // A question about a known family's regulators, domains, functions, members, counts
  // or species is a knowledge question.
  if (m.family)
    for (auto& c : kAskCues)
      if (low.find(c.text) != std::string::npos) {
        score[Intent::kFaq] += 0.6;
        r.matched.push_back(std::string("asks:") + c.asks);
        break;
      }
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

Result<Json> evaluate_router_cases(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return not_found("cannot read router cases " + file.string());
  Json failures = Json::array();
  int total = 0, right = 0, zh = 0, line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('\t'), b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos)
      return parse_error(file.string() + ":" + std::to_string(line_no) + ": expected intent<TAB>family<TAB>message");
    std::string intent = line.substr(0, a), family = line.substr(a + 1, b - a - 1), message = line.substr(b + 1);
    if (!intent_from_string(intent))
      return parse_error(file.string() + ":" + std::to_string(line_no) + ": unknown intent '" + intent + "'");
    Route r = route_by_rules(message);
    bool family_ok = family == "*" || (family == "-" ? r.family.empty() : r.family == family);
    bool ok = to_string(r.intent) == intent && family_ok;
    ++total;
    zh += has_cjk(message);
    right += ok;
    if (!ok)
      failures.push_back({{"message", message},
                          {"expected", intent + (family == "*" ? "" : " / " + family)},
                          {"got", to_string(r.intent) + " / " + (r.family.empty() ? "-" : r.family)}});
  }
  if (total == 0) return invalid_argument(file.string() + " holds no cases");
  return Json{{"cases", total},
              {"chinese", zh},
              {"correct", right},
              {"accuracy", double(right) / total},
              {"failures", failures}};
}

}  // namespace bioagent
