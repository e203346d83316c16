// The form reader (see message_form.h): a lexicon of particles and verbs and
// the grammar that places them (clause-initial, scoped negation, A-not-A).
#include "assistant/message_form.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "assistant/form_lexicon.h"
#include "assistant/message_words.h"
#include "bioagent/json_text.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

using form::Entry;
using form::Kind;
const std::vector<Entry>& kLexicon = form::form_lexicon();

// CJK characters that carry no subject (particles, pronouns, light verbs, measure words).
constexpr const char* kCjkFunction =
    "的了吗呢吧啊呀哦嘛么我你他她它们这那个是在有和与及或把被给就都也还又要会能可以一下些点很太最更再先刚才让"
    "对从向到于为之其此该各每某咗佢啦嘅喺吓哋係啲呃嗯喔唄嘛呗着过得地来去上下里中内外前后大概可能一共分别一个"
    "什么怎么样如何吗哪几多少久长做弄搞不用看想";

bool is_cjk_lead(unsigned char c) { return c >= 0xE0; }

// The UTF-8 characters of a CJK run.
std::vector<std::string> utf8_chars(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out.emplace_back(s.substr(i, std::min(n, s.size() - i)));
    i += n;
  }
  return out;
}

struct Clause {
  std::string text;                // the clause as written (lower-case ASCII)
  std::vector<std::string> words;  // its ASCII words
};

// Clauses: split at sentence and clause punctuation (ASCII and full-width) and line breaks.
std::vector<Clause> clauses_of(const std::string& low) {
  static const char* const kMarks[] = {"，", "。", "；", "！", "？", "、", "：", "…"};
  std::vector<Clause> out;
  std::string cur;
  auto push = [&] {
    if (!cur.empty()) out.push_back({cur, written_out(ascii_words(cur))});
    cur.clear();
  };
  for (size_t i = 0; i < low.size();) {
    char c = low[i];
    if (c == ',' || c == '.' || c == ';' || c == '!' || c == '?' || c == '\n' || c == ':' || c == '(' || c == ')') {
      push();
      ++i;
      continue;
    }
    bool mark = false;
    for (const char* m : kMarks)
      if (low.compare(i, std::strlen(m), m) == 0) {
        push();
        i += std::strlen(m);
        mark = true;
        break;
      }
    if (!mark) cur += low[i++];
  }
  push();
  return out;
}

bool is_ascii_entry(const char* text) { return static_cast<unsigned char>(text[0]) < 0x80; }

// Where the entry's words occur in `words` (indices of the first word).
std::vector<size_t> find_words(const std::vector<std::string>& words, const std::vector<std::string>& entry) {
  std::vector<size_t> at;
  if (entry.empty() || words.size() < entry.size()) return at;
  for (size_t i = 0; i + entry.size() <= words.size(); ++i)
    if (std::equal(entry.begin(), entry.end(), words.begin() + static_cast<long>(i))) at.push_back(i);
  return at;
}

std::vector<std::string> split_spaces(const char* text) {
  std::vector<std::string> out;
  std::string w;
  for (const char* p = text;; ++p) {
    if (*p == ' ' || *p == 0) {
      if (!w.empty()) out.push_back(w);
      w.clear();
      if (*p == 0) break;
    } else {
      w += *p;
    }
  }
  return out;
}

// Damerau distance 1 by one transposition, one deletion or one insertion (not a substitution: "identity" is no
// typo of "identify"). Words of six letters or more only.
bool near_miss(const std::string& typed, const std::string& word) {
  if (word.size() < 6 || typed.size() < 5 || typed == word) return false;
  if (typed.size() == word.size()) {
    size_t i = 0;
    while (i < word.size() && typed[i] == word[i]) ++i;
    return i + 1 < word.size() && typed[i] == word[i + 1] && typed[i + 1] == word[i] &&
           typed.compare(i + 2, std::string::npos, word, i + 2, std::string::npos) == 0;
  }
  const std::string& longer = typed.size() > word.size() ? typed : word;
  const std::string& shorter = typed.size() > word.size() ? word : typed;
  if (longer.size() != shorter.size() + 1) return false;
  size_t i = 0;
  while (i < shorter.size() && longer[i] == shorter[i]) ++i;
  return longer.compare(i + 1, std::string::npos, shorter, i, std::string::npos) == 0;
}

// A-not-A questions (是不是, 能不能, 有没有, 可不可以): the character before 不/没 repeats after it.
bool a_not_a(const std::string& text, size_t neg_at, size_t neg_len) {
  if (neg_at < 3 || neg_at + neg_len + 3 > text.size()) return false;
  return text.compare(neg_at - 3, 3, text, neg_at + neg_len, 3) == 0;
}

// CJK verbs a negation can refuse (the run acts and the study acts), within a few characters after it.
bool negates_cjk_act(const std::string& text, size_t after, Act* act) {
  static const char* const kFillers[] = {"要",   "用", "想",   "需要", "必", "再", "先", "了",   "太",
                                         "给我", "去", "着急", "看",   "查", "搜", "翻", "我的", "你的"};
  size_t at = after;
  for (int hops = 0; hops < 3; ++hops) {
    bool moved = false;
    for (const char* f : kFillers)
      if (text.compare(at, std::strlen(f), f) == 0) {
        at += std::strlen(f);
        moved = true;
        break;
      }
    if (!moved) break;
  }
  for (auto& e : kLexicon)
    if (e.kind == Kind::kAct && !is_ascii_entry(e.text) &&
        (e.act == Act::kRun || e.act == Act::kStudy || e.act == Act::kResume || e.act == Act::kLiterature ||
         e.act == Act::kLibrary) &&
        text.compare(at, std::strlen(e.text), e.text) == 0) {
      *act = e.act;
      return true;
    }
  return false;
}

// The ASCII entries with their words, longest (most words) first.
const std::vector<std::pair<const Entry*, std::vector<std::string>>>& ascii_entries() {
  static const auto kEntries = [] {
    std::vector<std::pair<const Entry*, std::vector<std::string>>> v;
    for (auto& e : kLexicon)
      if (is_ascii_entry(e.text)) v.push_back({&e, split_spaces(e.text)});
    std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second.size() > b.second.size(); });
    return v;
  }();
  return kEntries;
}

// Words that open a clause without changing its form ("so", "ok", "hey"): skipped before reading its first verb.
bool is_opener(const std::string& w) {
  static const char* const kOpeners[] = {"so",    "and",      "but",  "also",  "then",     "ok",   "okay",
                                         "hey",   "hi",       "well", "just",  "now",      "oh",   "um",
                                         "hmm",   "yes",      "yeah", "yep",   "fine",     "sure", "alright",
                                         "great", "actually", "btw",  "quick", "question", "first"};
  return std::any_of(std::begin(kOpeners), std::end(kOpeners), [&](const char* o) { return w == o; });
}

// Verbs that order when they open a clause (the base form of the acts and of asking for things).
bool is_imperative_verb(const std::string& w) {
  static const char* const kVerbs[] = {
      "run",       "execute",     "start",     "launch",   "begin",     "proceed",   "kick",         "go",
      "stop",      "halt",        "abort",     "kill",     "terminate", "cancel",    "pause",        "continue",
      "resume",    "restart",     "analyse",   "analyze",  "study",     "identify",  "characterise", "characterize",
      "survey",    "investigate", "explore",   "annotate", "summarise", "summarize", "explain",      "describe",
      "introduce", "tell",        "outline",   "plan",     "find",      "search",    "show",         "list",
      "give",      "compute",     "calculate", "sort",     "open",      "load",      "make",         "do",
      "draft",     "prepare",     "check",     "look",     "get",       "rank",      "count",        "compare",
      "help",      "skip",        "use",       "fetch",    "pull",      "read"};
  return std::any_of(std::begin(kVerbs), std::end(kVerbs), [&](const char* v) { return w == v; });
}

// The clause's first word after openers, phatic words and "please".
std::string first_verb_slot(const std::vector<std::string>& words) {
  for (auto& w : words)
    if (!is_opener(w) && w != "please" && w != "pls" && w != "plz" && w != "kindly" && w != "thanks") return w;
  return "";
}

// "do a genome-wide study", "do the analysis": "do" followed by what is to be done orders it; "do you",
// "do NAC genes" ask.
bool orders_a_deed(const std::vector<std::string>& w, size_t at) {
  if (w[at] != "do" || at + 1 >= w.size()) return false;
  static const std::set<std::string> objects = {"a",   "an", "the", "some", "this", "that",      "my",
                                                "our", "it", "me",  "us",   "all",  "everything"};
  return objects.count(w[at + 1]) > 0;
}

// The clause's first slot holds `first`, and an object's determiner or quantifier follows it.
bool verb_then_object(const std::vector<std::string>& w, const std::string& first) {
  static const std::set<std::string> kObjects = {"a", "an", "the", "all", "my", "our", "these", "those", "every"};
  auto at = std::find(w.begin(), w.end(), first);
  if (first.size() < 3 || at == w.end() || at + 1 == w.end() || !kObjects.count(*(at + 1))) return false;
  // An imperative is a base form: a plural noun before "the" ("genes the size of") is none.
  if (first.ends_with('s') && !first.ends_with("ss")) return false;
  return !is_stop_word(first) &&
         std::all_of(first.begin(), first.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

struct Reading {
  MessageForm& f;
  std::set<std::string> capitals;  // words written in capitals (lower-cased): "HMM" is a profile, not "hmm"
  void cue(const std::string& what) {
    if (std::find(f.cues.begin(), f.cues.end(), what) == f.cues.end()) f.cues.push_back(what);
  }
  void found(const Entry& e, bool negated, const std::string& as_written);
};

void Reading::found(const Entry& e, bool negated, const std::string& as_written) {
  switch (e.kind) {
    case Kind::kWh:
      f.question = true, cue("question:" + as_written);
      break;
    case Kind::kRefusal:
      f.refusal = true, cue("refusal:" + as_written);
      break;
    case Kind::kDeferral:
      f.deferred = true, cue("deferral:" + as_written);
      break;
    case Kind::kPhatic:
      f.phatic = true, cue("phatic:" + as_written);
      break;
    case Kind::kRequest:
      f.request = true, cue("request:" + as_written);
      break;
    case Kind::kPlease:
      f.order = true, cue("please:" + as_written);
      break;
    case Kind::kFirstPerson:
      f.first_person = true;
      break;
    case Kind::kRecency:
      f.recency = true, cue("recency:" + as_written);
      break;
    case Kind::kSource:
      f.names_source = true, f.acts.insert(Act::kLiterature), cue("source:" + as_written);
      break;
    case Kind::kSecondPerson:
      f.addressed = true;
      break;
    case Kind::kHowTo:
      f.how_to = true, f.question = true, cue("how-to:" + as_written);
      break;
    case Kind::kExistence:
      f.existence = true, cue("existence:" + as_written);
      break;
    case Kind::kAct:
      if (negated) {
        f.negated_acts.insert(e.act);
        cue(std::string("not:") + act_name(e.act) + ":" + as_written);
      } else {
        f.acts.insert(e.act);
        cue(std::string("act:") + act_name(e.act) + ":" + as_written);
      }
      break;
    default:
      break;  // kAux, kNegation, kAssent: read by their position
  }
}

// The acts that change a task's state: a condition can suppose them done.
bool is_deed(const Entry& e) {
  return e.kind == Kind::kAct && (e.act == Act::kRun || e.act == Act::kStop || e.act == Act::kResume);
}

// The ASCII words of one clause: entries longest first, each word used once; a negation refuses the run, study
// or continue act that follows it in its clause; an auxiliary or verb that opens the clause asks or orders.
void read_ascii_clause(const Clause& c, bool conditional, Reading& r, std::vector<char>& used) {
  MessageForm& f = r.f;
  const auto& w = c.words;
  std::vector<std::pair<size_t, const Entry*>> hits;
  const auto& order = ascii_entries();
  for (auto& [e, parts] : order) {
    for (size_t at : find_words(w, parts)) {
      bool free = true;
      for (size_t j = at; j < at + parts.size(); ++j) free = free && !used[j];
      // A kind of its own per word: "no" is a negation, "no need" a refusal; the longer entry wins.
      if (!free && e->kind != Kind::kFirstPerson && e->kind != Kind::kSecondPerson) continue;
      // An interjection written in capitals is an abbreviation ("HMM", the profile): content, not small talk;
      // so is a two-letter verb ("GO enrichment": Gene Ontology, not "go").
      const bool abbreviation = parts.size() == 1 && r.capitals.contains(parts[0]) &&
                                (e->kind == Kind::kPhatic || (e->kind == Kind::kAct && parts[0].size() <= 2));
      if (abbreviation) continue;
      for (size_t j = at; j < at + parts.size(); ++j) used[j] = 1;
      hits.push_back({at, e});
    }
  }
  // Typos of the acts' longer words ("anaylsis", "identifcation").
  for (size_t i = 0; i < w.size(); ++i) {
    if (used[i] || is_stop_word(w[i])) continue;
    for (auto& [e, parts] : order)
      if (e->kind == Kind::kAct && parts.size() == 1 && near_miss(w[i], parts[0])) {
        used[i] = 1;
        hits.push_back({i, e});
        break;
      }
  }
  std::sort(hits.begin(), hits.end(), [](auto& a, auto& b) { return a.first < b.first; });
  size_t negation_at = SIZE_MAX, condition_at = SIZE_MAX;
  for (auto& [at, e] : hits) {
    if (e->kind == Kind::kNegation) negation_at = std::min(negation_at, at);
    if (e->kind == Kind::kConditional) condition_at = std::min(condition_at, at);
    if (e->kind == Kind::kWh && joins_clauses(w, at)) {
      r.cue("conjunction:" + w[at]);
      continue;
    }
    if (condition_at < at && is_deed(*e) && supposes_deed(w, condition_at, at)) {
      r.cue(std::string("supposed:") + e->text);
      continue;
    }
    const bool searches = e->act == Act::kLiterature || e->act == Act::kLibrary;
    bool negated = e->kind == Kind::kAct && negation_at < at && at - negation_at <= 6 &&
                   (e->act == Act::kRun || e->act == Act::kStudy || e->act == Act::kResume || searches);
    if (negated && conditional) continue;  // "if I don't run it now, ...": a supposition refuses nothing
    // "don't search the literature": that act is not wanted; it refuses no run.
    if (negated && !searches) f.refusal = true;
    r.found(*e, negated, e->text);
  }
  // A clause that only refuses ("no", "not now", "don't"): nothing after the negation carries content.
  if (negation_at != SIZE_MAX && !conditional) {
    bool bare = true;
    for (size_t j = 0; j < w.size(); ++j)
      if (!used[j] && !is_stop_word(w[j])) bare = false;
    if (bare && w.size() <= 4) f.refusal = true, r.cue("refusal:" + w[negation_at]);
  }
  std::string first = first_verb_slot(w);
  bool opens_aux = false;
  for (auto& [at, e] : hits)
    if (e->kind == Kind::kAux && w[at] == first && !orders_a_deed(w, at)) opens_aux = true;
  if (opens_aux) f.question = true, r.cue("question:" + first + "…");
  const bool first_abbreviated = first.size() <= 2 && r.capitals.contains(first);  // "GO enrichment"
  if (!opens_aux && !first_abbreviated && is_imperative_verb(first)) f.order = true, r.cue("order:" + first);
  // A clause opening with a word and then its object ("map the ARF genes", "plot a tree") orders: the
  // first word is a verb in the imperative, whichever verb it is.
  const bool first_is_read = std::any_of(hits.begin(), hits.end(), [&](auto& h) { return w[h.first] == first; });
  if (!opens_aux && !f.order && !first_is_read && verb_then_object(w, first)) f.order = true, r.cue("order:" + first);
  // Assent opens the clause ("yes please proceed", "fine, kick it off").
  for (auto& [at, e] : hits)
    if (e->kind == Kind::kAssent && at == 0) f.assent = true, r.cue("assent:" + std::string(e->text));
}

}  // namespace

const char* act_name(Act act) {
  switch (act) {
    case Act::kRun:
      return "run";
    case Act::kStop:
      return "stop";
    case Act::kResume:
      return "resume";
    case Act::kStudy:
      return "study";
    case Act::kPlan:
      return "plan";
    case Act::kSummarise:
      return "summarise";
    case Act::kLiterature:
      return "literature";
    case Act::kLibrary:
      return "library";
    case Act::kData:
      return "data";
    case Act::kCompute:
      return "compute";
  }
  return "?";
}

std::vector<std::string> ascii_words(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty()) out.push_back(w.substr(0, 64));
    w.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\'' || (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                      static_cast<unsigned char>(text[i + 2]) == 0x99)) {
      if (c == 0xE2) i += 2;  // a typographic apostrophe ’
      continue;
    }
    if (std::isalnum(c) || c == '_' || (c == '-' && !w.empty()))
      w += static_cast<char>(std::tolower(c));
    else
      flush();
  }
  flush();
  for (auto& x : out)
    while (!x.empty() && x.back() == '-') x.pop_back();
  out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
  return out;
}

Json MessageForm::to_json() const {
  Json a = Json::array(), n = Json::array();
  for (Act x : acts) a.push_back(act_name(x));
  for (Act x : negated_acts) n.push_back(act_name(x));
  return {{"question", question},
          {"order", order},
          {"request", request},
          {"how_to", how_to},
          {"refusal", refusal},
          {"deferred", deferred},
          {"assent", assent},
          {"phatic", phatic},
          {"existence", existence},
          {"recency", recency},
          {"names_source", names_source},
          {"addressed", addressed},
          {"names_sequence_file", names_sequence_file},
          {"first_person", first_person},
          {"acts", a},
          {"negated_acts", n},
          {"content", content},
          {"cues", cues}};
}

namespace {

// The clause starts with a modal verb, after an optional addressee (你, 您) or 请.
bool opens_with_modal(const std::string& t) {
  std::string_view v = t;
  for (const char* lead : {"你", "您", "请"})
    if (v.starts_with(lead)) v.remove_prefix(std::char_traits<char>::length(lead));
  for (const char* modal : {"可以", "能否", "可否", "能不能", "可不可以", "能"})
    if (v.starts_with(modal)) return true;
  return false;
}

// The CJK part of one clause: entries longest first, each character used once; a negation before a run, study or
// continue verb refuses it (不跑, 别运行, 不要执行), an A-not-A pair asks (能不能, 是不是).
// In a conditional clause: a refusal or deferral refuses nothing, and a deed with its subject (如果我停掉) is
// supposed, not ordered.
bool supposed_in_cjk(const Entry& e, const std::string& t, size_t at, Reading& r) {
  if (e.kind == Kind::kRefusal || e.kind == Kind::kDeferral) return true;
  if (!is_deed(e) || !cjk_supposes_deed(t, at)) return false;
  r.cue(std::string("supposed:") + e.text);
  return true;
}

void read_cjk_clause(const std::string& t, bool conditional, Reading& r, std::vector<char>& used) {
  MessageForm& f = r.f;
  static const std::vector<const Entry*> order = [] {
    std::vector<const Entry*> v;
    for (auto& e : kLexicon)
      if (!is_ascii_entry(e.text)) v.push_back(&e);
    std::stable_sort(v.begin(), v.end(),
                     [](const Entry* a, const Entry* b) { return std::strlen(a->text) > std::strlen(b->text); });
    return v;
  }();
  // A-not-A first: its negation asks, it refuses nothing.
  for (const char* neg : {"不", "没"})
    for (size_t at = t.find(neg); at != std::string::npos; at = t.find(neg, at + 1))
      if (a_not_a(t, at, 3) && !used[at]) {
        std::fill(used.begin() + static_cast<long>(at) - 3, used.begin() + static_cast<long>(at) + 6, 1);
        f.question = true;
        r.cue("question:" + t.substr(at - 3, 9));
        // A modal asked A-not-A (能不能, 可不可以) asks for something to be done: a request.
        const std::string modal = t.substr(at - 3, 3);
        if (modal == "能" || modal == "可") f.request = true, r.cue("request:" + t.substr(at - 3, 9));
      }
  // A yes/no question opened by a modal (可以先暂停吗, 你能帮我查吗, 能否…吗) asks for something to be done.
  const std::string last = t.substr(t.find_last_of(' ') == std::string::npos ? 0 : t.find_last_of(' ') + 1);
  if ((opens_with_modal(t) || opens_with_modal(last)) && (t.ends_with("吗") || t.ends_with("么") || t.ends_with("嘛")))
    f.request = true, r.cue("request:" + t.substr(0, 6) + "…" + t.substr(t.size() - 3));
  bool refused_act = false;
  for (const Entry* e : order) {
    size_t len = std::strlen(e->text);
    for (size_t at = t.find(e->text); at != std::string::npos; at = t.find(e->text, at + len)) {
      if (std::any_of(used.begin() + static_cast<long>(at), used.begin() + static_cast<long>(at + len),
                      [](char u) { return u != 0; }))
        continue;
      if (e->kind == Kind::kNegation) {
        Act act;
        if (!negates_cjk_act(t, at + len, &act)) continue;  // 不同, 区别, 不错: no act is refused
        if (conditional) continue;                          // 如果不跑: a supposition refuses nothing
        // Refusing a search ("别看文献了", "不用查我的文献") is no refusal to run: only that act is not wanted.
        if (act != Act::kLiterature && act != Act::kLibrary) f.refusal = true;
        refused_act = true;
        f.negated_acts.insert(act);
        r.cue(std::string("not:") + act_name(act) + ":" + e->text);
        std::fill(used.begin() + static_cast<long>(at), used.begin() + static_cast<long>(at + len), 1);
        continue;
      }
      if (e->kind == Kind::kAssent && at != 0) continue;  // 最好, 进行: assent only opens a clause
      // "之前没做过": what the writer has not done, not whether anyone has.
      if (e->kind == Kind::kExistence && at >= 3 &&
          (t.compare(at - 3, 3, "没") == 0 || t.compare(at - 3, 3, "未") == 0 || t.compare(at - 3, 3, "不") == 0))
        continue;
      if (conditional && supposed_in_cjk(*e, t, at, r)) continue;
      std::fill(used.begin() + static_cast<long>(at), used.begin() + static_cast<long>(at + len), 1);
      bool negated = false;
      if (e->kind == Kind::kAct && refused_act && f.negated_acts.count(e->act)) negated = true;
      if (e->kind == Kind::kAssent) {
        f.assent = true;
        r.cue(std::string("assent:") + e->text);
        continue;
      }
      r.found(*e, negated, e->text);
      // A CJK verb that opens the clause orders (开始分析, 停了吧, 取消).
      if (e->kind == Kind::kAct && at == 0 && !negated) f.order = true;
      // "如何分析", "怎么鉴定": asking how to do an act names the act too.
      if (e->kind == Kind::kHowTo)
        for (const Entry* act : order)
          if (act->kind == Kind::kAct && std::strstr(e->text, act->text)) r.found(*act, false, act->text);
    }
  }
  // A search refused in this clause was read before its negation (longer entries first): it is not wanted.
  if (refused_act)
    for (Act a : {Act::kLiterature, Act::kLibrary})
      if (f.negated_acts.count(a)) f.acts.erase(a);
  if (t.size() >= 3 && t.compare(t.size() - 3, 3, "吧") == 0 && t.find("好吧") == std::string::npos) {
    f.order = true;
    r.cue("order:吧");
  }
  if (t.find("把") != std::string::npos) f.order = true;
}

// The clause's CJK text (its ASCII words blanked), to read as a string.
std::string cjk_part(const std::string& clause) {
  std::string out;
  for (size_t i = 0; i < clause.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(clause[i]);
    out += c >= 0x80 ? clause[i] : ' ';
  }
  return out;
}

// Content: the ASCII words no entry used that are not stop words (nor bare numbers), and the runs of CJK
// characters no entry used that are not function characters.
void collect_content(const Clause& c, const std::vector<char>& word_used, const std::string& cjk,
                     const std::vector<char>& cjk_used, MessageForm& f) {
  for (size_t i = 0; i < c.words.size(); ++i) {
    const std::string& w = c.words[i];
    bool letters = std::any_of(w.begin(), w.end(), [](unsigned char ch) { return std::isalpha(ch); });
    if (!word_used[i] && letters && !is_stop_word(w)) f.content.push_back(w);
  }
  static const std::vector<std::string> function_chars = utf8_chars(kCjkFunction);
  std::string run;
  auto flush = [&] {
    if (!run.empty()) f.content.push_back(run);
    run.clear();
  };
  for (size_t i = 0; i < cjk.size();) {
    unsigned char ch = static_cast<unsigned char>(cjk[i]);
    if (!is_cjk_lead(ch) || cjk_used[i]) {
      flush();
      ++i;
      continue;
    }
    size_t n = ch < 0xF0 ? 3 : 4;
    std::string one = cjk.substr(i, n);
    bool function = std::find(function_chars.begin(), function_chars.end(), one) != function_chars.end();
    bool punctuation = static_cast<unsigned char>(one[0]) == 0xE3 && static_cast<unsigned char>(one[1]) == 0x80;
    if (function || punctuation || static_cast<unsigned char>(one[0]) == 0xEF)
      flush();
    else
      run += one;
    i += n;
  }
  flush();
}

}  // namespace

MessageForm read_form(std::string_view message) {
  MessageForm f;
  Reading r{f};
  std::string low(utf8_prefix(message, 4000));
  r.capitals = words_in_capitals(low);
  for (auto& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (low.find('?') != std::string::npos || low.find("？") != std::string::npos) f.question = true, r.cue("question:?");
  for (const Clause& c : clauses_of(low)) {
    std::vector<char> word_used(c.words.size(), 0);
    bool conditional = false;
    for (auto& e : kLexicon)
      if (e.kind == Kind::kConditional)
        conditional = conditional || (is_ascii_entry(e.text) ? !find_words(c.words, split_spaces(e.text)).empty()
                                                             : c.text.find(e.text) != std::string::npos);
    read_ascii_clause(c, conditional, r, word_used);
    std::string cjk = cjk_part(c.text);
    // Leading spaces (an ASCII word before the Chinese) do not move where the clause starts.
    size_t lead = cjk.find_first_not_of(' ');
    std::string t = lead == std::string::npos ? "" : cjk.substr(lead);
    std::vector<char> cjk_used(t.size(), 0);
    read_cjk_clause(t, conditional, r, cjk_used);
    collect_content(c, word_used, t, cjk_used, f);
  }
  static const RE2 kSequenceFile(
      R"((?i)(?:[\w.-]\.(?:fa|fasta|faa|fna|ffn|pep|cds|gff3?|gtf|embl|gb|gbk)(?:\.gz)?\b|(?:^|\s)/\w[\w.-]*/[\w./-]+))");
  if (RE2::PartialMatch(re2::StringPiece(message.data(), std::min<size_t>(message.size(), 4000)), kSequenceFile))
    f.names_sequence_file = true, r.cue("sequence file");
  // A deferral refuses when it is about running ("can I run it later?", "not now") or stands alone.
  if (f.deferred && (f.has(Act::kRun) || f.content.empty())) {
    f.refusal = true;
    if (f.acts.erase(Act::kRun)) f.negated_acts.insert(Act::kRun);
  }
  if (f.refusal && !f.acts.count(Act::kStop)) f.order = f.order || f.content.empty();
  return f;
}

}  // namespace bioagent
