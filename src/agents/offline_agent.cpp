// The offline agent: no language model. Rules choose the tools (calculator for
// arithmetic; the paper library's hybrid retrieval; the evidence store; a
// literature search only when the network is allowed and the question asks for
// literature), and the answer is the sentences of the evidence that best match
// the question, each with its numbered source.
#include <re2/re2.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "agents/agent_internal.h"
#include "agents/answer_units.h"
#include "bioagent/agent.h"
#include "bioagent/collections.h"
#include "bioagent/json_text.h"
#include "papers/question_cues.h"
#include "text/chinese_script.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

// The words of a text, lower-cased, stop words and one-letter words left out. A run of Chinese
// characters is a word of its own, apart from the Latin words it touches ("在SMN", "body条目"):
// Chinese is not spaced, and a question mixing the scripts names its English terms glued to it.
std::vector<std::string> raw_words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  bool chinese = false;  // w is a run of Chinese characters
  auto flush = [&] {
    if (w.size() > 1 && !is_stop_word(w)) {
      out.push_back(w);
    }
    w.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (const unsigned cp = cjk_at(text, i)) {
      if (!chinese || cjk_punctuation(cp)) flush();
      chinese = !cjk_punctuation(cp);
      if (chinese) w.append(text, i, 3);
      i += 2;
      continue;
    }
    if (std::isalnum(c) || c >= 0x80 || c == '-') {
      if (chinese) flush(), chinese = false;
      w += static_cast<char>(std::tolower(c));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

// raw_words as the search index reads them: English stems ("coated" meets "coat"), a hyphenated
// word's parts ("sputter-coat" meets "sputter coated"); Chinese runs as they are.
std::vector<std::string> content_words(const std::string& text) {
  std::vector<std::string> out;
  for (auto& w : raw_words(text)) {
    if (cjk_at(w, 0)) {
      out.push_back(w);
      continue;
    }
    for (auto& t : index_terms(w))
      if (t.size() > 1 && !is_stop_word(t)) out.push_back(t);
  }
  return out;
}

// Every pattern below sees user text: RE2 (linear time, no recursion), never std::regex.
bool looks_arithmetic(const std::string& q, std::string& expr) {
  static const RE2 kExpr(R"(((?:[-+*/%().\d\s^]|\*\*|sqrt|log|exp|pi){3,}))");
  re2::StringPiece in(q);
  re2::StringPiece found;
  std::string best;
  // An expression stands alone: digits joined to a name ("dana1-2", "Hsc70-4", "chr5A:35277942-35282999",
  // "AT4G14540") are an identifier, not arithmetic.
  auto joined = [&](size_t at) {
    if (at >= q.size()) return false;
    const unsigned char c = static_cast<unsigned char>(q[at]);
    return std::isalnum(c) || c == '_' || c == ':' || c == '.' || c >= 0x80;
  };
  while (RE2::FindAndConsume(&in, kExpr, &found)) {
    size_t from = static_cast<size_t>(found.data() - q.data()), to = from + found.size();
    while (from < to && std::isspace(static_cast<unsigned char>(q[from]))) ++from;
    while (to > from && std::isspace(static_cast<unsigned char>(q[to - 1]))) --to;
    if ((from > 0 && joined(from - 1) && q[from] != '(') || joined(to)) continue;
    if (to - from > best.size()) best = q.substr(from, to - from);
  }
  size_t digits = std::count_if(best.begin(), best.end(), ::isdigit);
  bool op = best.find_first_of("+-*/%^") != std::string::npos;
  if (digits < 2 || !op) return false;
  expr.clear();
  for (char c : best) expr += c == '^' ? std::string("**") : std::string(1, c);  // 2^3 from a person means a power
  return true;
}

bool asks_for_literature(const std::string& q) {
  static const RE2 kLit(
      R"((?i)\b(literature|publications?|papers?|studies|articles?|published|pubmed|arxiv|trials?|review)\b|文献|论文)");
  return RE2::PartialMatch(q, kLit);
}

// Questions asking for a quantity are answered by sentences with numbers.
bool asks_for_number(const std::string& q) {
  static const RE2 kNumber(
      R"((?i)\b(how (many|much|long|often|large|high)|what (percentage|proportion|share|number|rate|fraction)|rate|ratio|score|value|coefficient|LC50|p50|recall|precision|F1)\b|多少|几|比例|百分|数量|分数|比率)");
  return RE2::PartialMatch(q, kNumber);
}

// A quantity: digits standing alone ("19 genes", "3.9%", "n = 450", "1,200"), not the digits
// inside a name (miR156, SPL9, OsSPL14, AT1G01010).
bool has_number(const std::string& s) {
  static const RE2 kNumber(R"((?:^|[^\w.-])[0-9]+(?:[.,][0-9]+)*(?:[^\w]|%|$))");
  return RE2::PartialMatch(s, kNumber);
}

// What kind of fact a question asks for, and whether a sentence holds one.
enum class AnswerType { kAny, kNumber, kName, kDefinition };

AnswerType answer_type(const std::string& q) {
  static const RE2 kName(
      R"((?i)\b(who|which (database|databases|software|program|programs|tool|tools|package|method|algorithm|journal|organism|species|gene|genes|model|dataset|datasets)|what (database|databases|software|program|tool|tools|package|algorithm))\b|哪个数据库|哪些数据库|什么软件|哪个软件|谁)");
  static const RE2 kDefinition(
      R"((?i)^\s*(what (is|are) (a |an |the )?[\w-]+( [\w-]+)?\??\s*$|define\b)|是什么|什么是|定义)");
  if (asks_for_number(q)) return AnswerType::kNumber;
  if (RE2::PartialMatch(q, kName)) return AnswerType::kName;
  if (RE2::PartialMatch(q, kDefinition)) return AnswerType::kDefinition;
  return AnswerType::kAny;
}

// The sentence spells the acronym out: "... affinity purification–mass spectrometry (AP-MS)", or
// "SUL (shortest unique k-mer length)" (acronym_long_form).
bool expands(const std::string& s, const std::string& acronym) {
  for (const char* after : {")", ",", ";", " "})
    if (s.find("(" + acronym + after) != std::string::npos) return true;
  return !acronym_long_form(s, acronym).empty();
}

// A name inside a sentence: a capitalised word or an acronym after its first word (EMBASE, PubMed, Trinity).
bool has_name(const std::string& s) {
  static const RE2 kName(R"([a-z,;:(] +([A-Z][A-Za-z0-9]+|[A-Z]{2,}))");
  return RE2::PartialMatch(s, kName);
}

bool has_definition(const std::string& s) {
  static const RE2 kDef(R"((?i)\b(is|are) (a|an|the|defined|called|known)\b|\bdefined as\b|\brefers? to\b|\bmeans\b)");
  return RE2::PartialMatch(s, kDef);
}

bool holds_answer_type(AnswerType t, const std::string& s) {
  switch (t) {
    case AnswerType::kNumber:
      return has_number(s);
    case AnswerType::kName:
      return has_name(s);
    case AnswerType::kDefinition:
      return has_definition(s);
    case AnswerType::kAny:
      return true;
  }
  return true;
}

const char* answer_type_words(AnswerType t) {
  return t == AnswerType::kNumber ? "the number asked for"
         : t == AnswerType::kName ? "the name asked for"
                                  : "a definition";
}

// Who wrote a paper and where its authors work is printed on its first page,
// in lines before the abstract, not in sentences.
bool asks_for_authors(const std::string& q) {
  static const RE2 kFront(
      R"((?i)\b(who (wrote|are the authors|is the (first|corresponding) author)|authors?|affiliat\w*|universit(y|ies)|institutions?|organi[sz]ations?)\b|作者|单位|机构)");
  return RE2::PartialMatch(q, kFront);
}

struct Passage {
  std::string text;
  int source = 0;
  int rank = 0;  // order in which retrieval returned it (0: best)
  int page = -1;
};

// An id as the paper library writes them (a UUID): safe inside an SQL literal.
bool plain_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
}

// The best pages' whole text in place of their best chunk: the answer is often
// in another chunk of the page retrieval ranked first.
template <typename Sql>
void read_whole_pages(const Json& retrieved, std::vector<Passage>& passages, Sql&& sql) {
  const Json& results = retrieved.contains("results") ? retrieved["results"] : Json::array();
  for (size_t i = 0; i < results.size() && i < 3; ++i) {
    const Json& hit = results[i];
    std::string id = hit.value("pdf_id", "");
    int page = hit.value("page_number", -1);
    if (!plain_id(id) || page < 1) continue;
    Json out;
    if (!sql({{"sql", "SELECT page_content FROM pages WHERE ref_paper_id = '" + id +
                          "' AND page_number = " + std::to_string(page)}},
             out))
      continue;
    if (!out.contains("rows") || out["rows"].empty() || !out["rows"][0][0].is_string()) continue;
    for (auto& p : passages)
      if (p.rank == int(i) && p.page == page) p.text = out["rows"][0][0].get<std::string>();
  }
}

}  // namespace

// A unit holding less than this share of the question's word weight does not answer it.
constexpr double kHeldShare = 0.34;

Result<AgentResult> run_offline_agent(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                      const AgentOptions& options) {
  auto traj = Trajectory::open(options.trajectory_dir, "offline");
  if (!traj) return traj.status();
  AgentRun run(*traj, options, "offline", "none");
  Budget budget;
  SourceBook book;
  book.paper_title = paper_title_resolver(ctx);
  AgentResult result = run.result();
  result.note = "No language model was used: this answer was assembled by rules from the evidence found.";
  run.event({{"type", "start"}, {"question", question}, {"model", "none"}});
  std::vector<const ToolSpec*> all;
  for (auto* t : registry.list()) all.push_back(t);
  auto call = [&](const std::string& tool, const Json& args, Json& out) {
    if (!registry.find(tool)) return false;
    budget.add_tool_call();
    std::string content = run.call_tool(registry, all, ctx, tool, json_text(args), book, false, &out);
    return content.rfind("error:", 0) != 0;
  };

  std::string expr;
  Json r;
  if (looks_arithmetic(question, expr) && call("calculate_expr", {{"expr", expr}}, r)) {
    result.answer = expr + " = " + (r.contains("result") ? json_text(r["result"]) : json_text(r));
    result.answer_value = r.value("result", Json());
    result.stop_reason = StopReason::kAnswer;
    run.finish(result, budget);
    return result;
  }

  std::vector<Passage> passages;
  std::vector<std::string> looked;
  auto collect = [&](const Json& res) {
    std::function<void(const Json&)> walk = [&](const Json& j) {
      if (j.is_array()) {
        for (auto& x : j) walk(x);
        return;
      }
      if (!j.is_object()) return;
      std::string text = j.contains("text") && j["text"].is_string()           ? j["text"].get<std::string>()
                         : j.contains("content") && j["content"].is_string()   ? j["content"].get<std::string>()
                         : j.contains("abstract") && j["abstract"].is_string() ? j["abstract"].get<std::string>()
                                                                               : "";
      if (!text.empty()) {
        auto numbers = book.number(j);
        if (numbers.size() == 1) {  // one passage of one source
          passages.push_back({text, numbers[0], int(passages.size()), j.value("page_number", -1)});
          return;
        }
      }
      for (auto& [k, v] : j.items())
        if (v.is_array() || v.is_object()) walk(v);
    };
    walk(res);
  };
  if (call("ClassicRetrieve", {{"query", question}, {"limit", 6}}, r)) {
    looked.push_back("the paper library");
    collect(r);
    read_whole_pages(r, passages, [&](const Json& args, Json& out) { return call("RetrieveFromDatabase", args, out); });
  }
  if (call("search_evidence_store", {{"query", question}, {"limit", 6}}, r)) {
    looked.push_back("the literature evidence store");
    collect(r);
  }
  bool literature_searched = false;  // a literature search ran (whatever it found)
  if (passages.empty() && ctx.option("offline") != "1" && asks_for_literature(question) &&
      call("search_literature", {{"query", question}, {"max_results_per_source", 3}}, r)) {
    looked.push_back("the literature search services");
    literature_searched = true;
    collect(r);
  }

  // Score sentences by the question's content words (and the English words
  // of the names it uses, so a Chinese question finds English sentences),
  // rarer words counting more; passages retrieval ranked higher count more;
  // a question asking for a quantity prefers sentences with numbers.
  std::string terms_text = question;
  for (auto& e : query_expansions(question)) terms_text += " " + e;
  auto q = content_words(terms_text);
  std::set<std::string> qset(q.begin(), q.end());
  const AnswerType wanted = answer_type(question);
  const std::string acronym = asked_acronym(question);
  std::map<std::string, int> df;
  std::vector<ScoredUnit> scored;
  // A keyword list ("Key words: A, B, C.") shares many words with questions and states no fact.
  static const RE2 kKeywordList(R"((?i)^\s*(?:key\s*words?|index terms)\s*[:.—-])");
  for (auto& p : passages)
    for (auto& unit : answer_units(p.text)) {
      const std::string& s = unit.text;
      if (RE2::PartialMatch(s, kKeywordList)) continue;
      auto words = content_words(s);
      std::set<std::string> ws(words.begin(), words.end());
      for (auto& w : ws)
        if (qset.count(w)) ++df[w];
      scored.push_back({0, s, p.source, p.rank});
    }
  if (asks_for_authors(question)) {
    // The best first page's opening lines (title, authors, affiliations) come first.
    static const RE2 kAbstract(R"((?i)^\s*(abstract|summary|background|introduction)\b)");
    for (auto& p : passages) {
      if (p.page != 1) continue;
      std::string front;
      for (auto& line : sentences(p.text, true)) {
        if (RE2::PartialMatch(line, kAbstract) || front.size() > 700) break;
        front += (front.empty() ? "" : " | ") + line;
      }
      if (!front.empty()) scored.push_back({1e6, front, p.source, p.rank});
      break;
    }
  }
  for (auto& sc : scored) {
    if (sc.score >= 1e5) continue;  // placed above, not scored
    auto words = content_words(sc.text);
    std::set<std::string> ws(words.begin(), words.end());
    for (auto& w : ws)
      if (qset.count(w)) sc.score += std::log(1.0 + double(scored.size()) / df[w]);
    sc.matched = sc.score;
    sc.score /= std::sqrt(std::max<size_t>(8, words.size()) / 8.0);  // long sentences earn no bonus for length
    // Sentences that hold the kind of fact asked for (a number, a name, a definition) come first.
    if (wanted != AnswerType::kAny && sc.score > 0 && holds_answer_type(wanted, sc.text)) sc.score *= 1.3;
    if (!acronym.empty() && sc.score > 0 && expands(sc.text, acronym)) sc.score *= 2.0;
    sc.score /= 1.0 + 0.1 * sc.rank;
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.score > b.score; });
  std::vector<const ScoredUnit*> chosen = quoted_units(scored, 5);
  // Facts from one page stay together: the units are listed page by page, the pages in the
  // order of their best unit, each page's units best first.
  std::stable_sort(chosen.begin(), chosen.end(), [&](const ScoredUnit* a, const ScoredUnit* b) {
    auto first = [&](int source) {
      return std::find_if(chosen.begin(), chosen.end(), [&](const ScoredUnit* c) { return c->source == source; }) -
             chosen.begin();
    };
    return first(a->source) < first(b->source);
  });
  std::string answer;
  int typed = 0;
  for (const ScoredUnit* sc : chosen) {
    answer += "- " + sc->text + " [" + std::to_string(sc->source) + "]\n";
    typed += holds_answer_type(wanted, sc->text);
  }
  // Said plainly: no unit found holds even a third of the question's word weight (rare words
  // count more), whatever is quoted as closest.
  double question_weight = 0, best_matched = 0;
  for (auto& w : qset)
    if (df.count(w)) question_weight += std::log(1.0 + double(scored.size()) / df[w]);
  for (const ScoredUnit* sc : chosen) best_matched = std::max(best_matched, sc->matched);
  const bool not_held =
      !chosen.empty() && chosen.front()->score < 1e5 && qset.size() >= 3 && best_matched < kHeldShare * question_weight;
  // The page was found but none of its sentences holds the fact asked for: say so.
  if (!answer.empty() && wanted != AnswerType::kAny && typed == 0 && !passages.empty())
    answer += "(The best-matching passages were found [" + std::to_string(passages.front().source) +
              "], but none of the sentences above states " + answer_type_words(wanted) + ".)\n";
  std::string where;
  for (size_t i = 0; i < looked.size(); ++i) where += (i ? (i + 1 == looked.size() ? " and " : ", ") : "") + looked[i];
  if (answer.empty()) {
    result.answer = "Nothing relevant was found" +
                    (where.empty() ? std::string(" (no local source is available)") : " in " + where) +
                    ". Add PDFs with `bioagent papers add`, collect evidence with search_literature, or configure a "
                    "language model for a fuller answer." +
                    (literature_searched ? std::string(" The literature search services found nothing either: this "
                                                       "may be a gap in the literature.")
                                         : std::string(" No literature search ran, so this says nothing about the "
                                                       "literature itself."));
    result.stop_reason = StopReason::kAnswer;
  } else if (not_held) {
    // What was found, not a claim about the library: a passage retrieval missed may still hold it.
    result.answer = "None of the passages found in " + where +
                    " states most of what the question asks: the library may not hold the answer. No language model "
                    "was used; the closest passages are:\n" +
                    answer;
    result.stop_reason = StopReason::kAnswer;
  } else {
    result.answer =
        "No language model was used: these are the passages that best answer the question (sentences, table rows "
        "with their header, captions), extracted from " +
        where + ":\n" + answer;
    result.stop_reason = StopReason::kAnswer;
  }
  result.answer_value = result.answer;
  result.sources = book.cited_in(answer.empty() ? "[0]" : answer);
  run.finish(result, budget);
  return result;
}

}  // namespace bioagent
