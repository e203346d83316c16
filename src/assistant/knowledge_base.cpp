// The compiled-in knowledge base: gene families and the species dictionary,
// with lookups by name and mentions in free text (Chinese and English).
#include <re2/re2.h>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <unordered_set>

#include "assistant/agents.h"
#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "core/embedded_configs.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

const Json& knowledge_file(const std::string& stem) {
  static const std::map<std::string, Json> files = [] {
    std::map<std::string, Json> m;
    for (size_t i = 0; i < embedded::kKnowledgeCount; ++i)
      m[embedded::kKnowledge[i].family] = Json::parse(embedded::kKnowledge[i].text);
    return m;
  }();
  static const Json empty = Json::object();
  auto it = files.find(stem);
  return it == files.end() ? empty : it->second;
}

bool is_word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '/'; }

// The length of a class suffix at `pos` ("AP2-like", "WRKY-type", "NAC-domain"): the name before it
// still names the family. 0 when none.
size_t family_suffix_length(std::string_view hay, size_t pos) {
  static const char* const kSuffixes[] = {"-like",  "-type", "-box",     "-domain",   "-family",    "-related",
                                          "-genes", "-gene", "-protein", "-proteins", "-subfamily", "-class"};
  for (const char* suf : kSuffixes) {
    std::string_view sv(suf);
    if (hay.size() < pos + sv.size()) continue;
    std::string tail = lower_ascii(std::string(hay.substr(pos, sv.size())));
    size_t after = pos + sv.size();
    if (tail == sv && (after == hay.size() || !is_word_char(static_cast<unsigned char>(hay[after])))) return sv.size();
  }
  return 0;
}

// Where `needle` is in `text` at a word boundary (ASCII needles) or anywhere (CJK needles); npos if not.
// `lowered`, when given, is `text` in lower case, so that one message is lowered once for all names.
size_t term_at(std::string_view text, std::string_view needle, bool case_sensitive,
               const std::string* lowered = nullptr) {
  if (needle.empty()) return std::string::npos;
  bool cjk = static_cast<unsigned char>(needle[0]) >= 0x80;
  const std::string pin = case_sensitive ? std::string(needle) : lower_ascii(std::string(needle));
  const std::string own = case_sensitive || lowered ? std::string() : lower_ascii(std::string(text));
  const std::string_view hay = case_sensitive ? text : lowered ? std::string_view(*lowered) : std::string_view(own);
  for (size_t pos = hay.find(pin); pos != std::string::npos; pos = hay.find(pin, pos + 1)) {
    if (cjk) return pos;
    // A name joined to another by '-' or '/' ("miR156-SPL", "ABF/bZIP") is still named; the longer joined
    // name, when it is a term itself (AP2/ERF), wins as the longer mention.
    bool left = pos == 0 || !is_word_char(static_cast<unsigned char>(hay[pos - 1])) || hay[pos - 1] == '-' ||
                hay[pos - 1] == '/';
    size_t end = pos + pin.size();
    // A plural "s" still counts ("SPLs", "WRKYs").
    if (end < hay.size() && (hay[end] == 's' || hay[end] == 'S') &&
        (end + 1 == hay.size() || !is_word_char(static_cast<unsigned char>(hay[end + 1]))))
      ++end;
    end += family_suffix_length(hay, end);
    // A name joined to another on its right ("GRF-GIF", "WRKY/NAC") is still named, as on its left.
    bool right = end >= hay.size() || !is_word_char(static_cast<unsigned char>(hay[end])) ||
                 ((hay[end] == '-' || hay[end] == '/') && end + 1 < hay.size() &&
                  std::isalnum(static_cast<unsigned char>(hay[end + 1])));
    if (left && right) return pos;
  }
  return std::string::npos;
}

bool contains_term(std::string_view text, std::string_view needle, bool case_sensitive) {
  return term_at(text, needle, case_sensitive) != std::string::npos;
}

// Terms that name an entry, longest first, with whether they must match case.
std::vector<std::pair<std::string, bool>> family_terms(const Json& f) {
  std::vector<std::pair<std::string, bool>> t;
  auto add = [&](const std::string& s) {
    // Short symbols (SPL, NAC, TIP) are written in capitals; matching them in
    // any case would find English words.
    bool exact = s.size() <= 4 && static_cast<unsigned char>(s[0]) < 0x80;
    t.push_back({s, exact});
  };
  add(f.value("name", ""));
  for (auto& a : f.value("aliases", Json::array()))
    if (a.is_string()) add(a.get<std::string>());
  // Member genes with names of their own (APETALA2, TOE1, IPA1) match as written.
  for (auto& g : f.value("genes", Json::array()))
    if (g.is_string()) t.push_back({g.get<std::string>(), true});
  std::string zh = f.value("chinese", "");
  if (!zh.empty()) t.push_back({zh, true});
  return t;
}

std::vector<std::pair<std::string, bool>> species_terms(const Json& s) {
  std::vector<std::pair<std::string, bool>> t = {{s.value("prefix", ""), true}, {s.value("latin", ""), false}};
  for (auto& e : s.value("english", Json::array())) t.push_back({e.get<std::string>(), false});
  for (auto& c : s.value("chinese", Json::array())) t.push_back({c.get<std::string>(), true});
  return t;
}

// The lower-case words of the system word list (wamerican's /usr/share/dict/words, installed by
// scripts/setup.sh); empty when it is absent.
const std::unordered_set<std::string>& english_words() {
  static const std::unordered_set<std::string> words = [] {
    std::unordered_set<std::string> w;
    std::ifstream in("/usr/share/dict/words");
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && std::islower(static_cast<unsigned char>(line[0]))) w.insert(line);
    return w;
  }();
  return words;
}

// Known to be no English word: the list is there and lacks it. Without the list nothing is known so.
bool known_non_english(const std::string& lower) {
  return !english_words().empty() && !english_words().contains(lower);
}

// A name with its separators dropped and in lower case ("AP2/ERF", "AP2-ERF", "ap2 erf" → "ap2erf").
std::string squashed(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '/' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `term` named in `text` as people type it: as contains_term reads it; a symbol that is no English word
// in any case ("myb genes", "bzips", but never "pin" for PIN); a name of several parts with its
// separators dropped or changed ("ap2erf" for AP2/ERF).
// Where it is named; npos if not.
size_t mentioned_at(std::string_view text, const std::string& lowered, const std::string& term, bool exact) {
  constexpr size_t kNone = std::string::npos;
  if (size_t at = term_at(text, term, exact, &lowered); at != kNone) return at;
  if (term.empty() || static_cast<unsigned char>(term[0]) >= 0x80) return kNone;
  if (exact && term.size() >= 3 && known_non_english(lower_ascii(term)))
    if (size_t at = term_at(text, term, false, &lowered); at != kNone) return at;
  const std::string joined = squashed(term);
  if (joined.size() == term.size() || joined.size() < 5) return kNone;
  std::string word;
  auto matches = [&] { return squashed(word) == joined || squashed(word) == joined + "s"; };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/') {
      word += c;
    } else {
      if (matches()) return i - word.size();
      word.clear();
    }
  }
  return matches() ? text.size() - word.size() : kNone;
}

// The entry of `list` named first in `text` ("ARF跟Aux/IAA怎么互作": ARF), the longest name where two start
// at one place (so "番木瓜" wins over "木瓜", "AP2/ERF" over "AP2").
const Json* best_mention(std::string_view text, const Json& list,
                         std::vector<std::pair<std::string, bool>> (*terms)(const Json&), std::string* matched,
                         std::string_view set_aside = "") {
  const Json* best = nullptr;
  const std::string lowered = lower_ascii(std::string(text));
  size_t best_at = std::string::npos, best_len = 0;
  for (auto& e : list) {
    if (!set_aside.empty() && e.value("name", "") == set_aside) continue;
    for (auto& [term, exact] : terms(e)) {
      const size_t at = mentioned_at(text, lowered, term, exact);
      if (at == std::string::npos || at > best_at || (at == best_at && term.size() <= best_len)) continue;
      best = &e;
      best_at = at;
      best_len = term.size();
      if (matched) *matched = term;
    }
  }
  return best;
}

}  // namespace

std::string lower_ascii(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const Json& gene_family_kb() { return knowledge_file("gene_families_kb"); }
const Json& species_kb() { return knowledge_file("species_kb"); }

const Json* find_gene_family(std::string_view name) {
  std::string n = lower_ascii(std::string(name));
  for (auto& f : gene_family_kb()["families"])
    for (auto& [term, exact] : family_terms(f))
      if (lower_ascii(term) == n) return &f;
  return nullptr;
}

const Json* find_species(std::string_view name) {
  std::string n = lower_ascii(std::string(name));
  for (auto& s : species_kb()["species"])
    for (auto& [term, exact] : species_terms(s))
      if (lower_ascii(term) == n) return &s;
  return nullptr;
}

namespace {

// "<WORD> gene family" / "<WORD> 基因家族" (spaces allowed between): the word, else empty.
std::string family_word_before_cue(std::string_view text) {
  static const std::vector<std::string> cues = {" gene family", " family", "基因家族", "家族"};
  for (auto& cue : cues) {
    size_t pos = text.find(cue);
    if (pos == std::string::npos || pos == 0) continue;
    size_t end = pos;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == ')')) --end;  // "small HSP (HSP20) family"
    size_t start = end;
    while (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '-')) --start;
    if (start < end) return std::string(text.substr(start, end - start));
  }
  return "";
}

// A Latin binomial: a capitalised genus of 3+ letters and a lower-case epithet of 3+ letters.
std::string latin_binomial(std::string_view text) {
  static const std::set<std::string> not_genus = {
      "The",   "This",   "What", "How", "Has",    "Have",  "Can",    "Does",  "Which",  "Summarise", "Summarize",
      "Tell",  "Is",     "Are",  "Run", "Any",    "Gene",  "Family", "Plan",  "Please", "Compare",   "Could",
      "Would", "Should", "Will", "Did", "Do",     "Show",  "Give",   "List",  "Find",   "Search",    "Why",
      "When",  "Where",  "Who",  "Yes", "Thanks", "Thank", "Hello",  "Start", "Execute"};
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isupper(static_cast<unsigned char>(text[i])) ||
        (i > 0 && std::isalpha(static_cast<unsigned char>(text[i - 1]))))
      continue;
    size_t g = i + 1;
    while (g < text.size() && std::islower(static_cast<unsigned char>(text[g]))) ++g;
    if (g - i < 3 || g >= text.size() || text[g] != ' ') continue;
    size_t e = g + 1;
    while (e < text.size() && std::islower(static_cast<unsigned char>(text[e]))) ++e;
    bool word_end = e >= text.size() || !std::isalpha(static_cast<unsigned char>(text[e]));
    std::string genus(text.substr(i, g - i)), epithet(text.substr(g + 1, e - g - 1));
    // Words that follow a capitalised word without being an epithet: stop words and the field's own.
    static const std::set<std::string> not_epithet = {"gene", "genes", "family", "much", "many"};
    // An epithet is Latin: an English word after a capitalised one ("Pfam one", "Exam genes") is no species.
    if (e - g - 1 < 3 || !word_end || not_genus.count(genus) || not_epithet.count(epithet) || is_stop_word(epithet) ||
        english_words().contains(epithet))
      continue;
    return genus + " " + epithet;
  }
  return "";
}

// A family's symbols that numbered members are written with: its name and
// one-word aliases (SPL, SBP, ERF, WRKY, MPK), as written.
bool is_member_symbol(const Json& f, const std::string& symbol) {
  auto one_word = [](const std::string& s) {
    return s.size() >= 2 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c); });
  };
  if (one_word(f.value("name", "")) && f.value("name", "") == symbol) return true;
  for (auto& a : f.value("aliases", Json::array()))
    if (a.is_string() && one_word(a.get<std::string>()) && a.get<std::string>() == symbol) return true;
  return false;
}

// A numbered member gene or the members in the plural: [species prefix] + family symbol + number
// (+ letter) or "s": SPL9, OsSPL14, AtMYB75, OsbZIP23, WRKY33, DREB1A, ZmSBP6, ZmWRKYs. The family, else null.
const Json* numbered_member(std::string_view text, std::string* matched) {
  // RE2 (linear time) on the user's message; the token's right edge is a
  // non-alphanumeric or the end, left unconsumed so that adjacent tokens match too.
  static const RE2 token(R"((?:^|[^A-Za-z0-9])(([A-Za-z]{2,12}?)([0-9]{1,3}[A-Za-z]?|s))(?:[^A-Za-z0-9]|$))");
  re2::StringPiece s(text.data(), text.size()), m[4];
  for (size_t pos = 0; pos <= s.size() && token.Match(s, pos, s.size(), RE2::UNANCHORED, m, 4);) {
    // The letters, and the letters after each possible species prefix (a capital and up to three
    // lower-case letters: "Zm", "Ptr"; "OsbZIP" is "Os" + "bZIP"); a family symbol matches in its own case.
    const std::string letters(m[2]);
    std::vector<std::string> symbols = {letters};
    for (size_t k = 1; k <= 4 && k + 2 <= letters.size() && std::isupper(static_cast<unsigned char>(letters[0])); ++k) {
      if (k > 1 && !std::islower(static_cast<unsigned char>(letters[k - 1]))) break;
      symbols.push_back(letters.substr(k));
    }
    for (auto& sym : symbols) {
      if (sym.size() < 2) continue;
      for (auto& f : gene_family_kb()["families"])
        if (is_member_symbol(f, sym)) {
          if (matched) *matched = std::string(m[1]);
          return &f;
        }
    }
    pos = size_t(m[1].data() + m[1].size() - s.data());  // the next token may start at this one's right edge
  }
  return nullptr;
}

}  // namespace

Mentions find_mentions(std::string_view whole, std::string_view set_aside) {
  // The names a message opens with, as the form is read (its first 4,000 bytes): every name is looked for
  // in several spellings, so the work grows with the text.
  const std::string_view text = utf8_prefix(whole, 4000);
  Mentions m;
  const Json& families = gene_family_kb()["families"];
  if (!set_aside.empty()) m.family = best_mention(text, families, family_terms, &m.family_term, set_aside);
  if (!m.family) m.family = best_mention(text, families, family_terms, &m.family_term);
  m.species = best_mention(text, species_kb()["species"], species_terms, &m.species_term);
  if (!m.family) m.family = numbered_member(text, &m.family_term);
  // A family the knowledge base does not hold.
  if (!m.family) m.unknown_family = family_word_before_cue(text);
  if (!m.species) m.latin_species = latin_binomial(text);
  return m;
}

bool text_mentions(std::string_view text, const std::string& term) {
  bool exact = term.size() <= 4 && !term.empty() && static_cast<unsigned char>(term[0]) < 0x80;
  return contains_term(text, term, exact);
}

std::vector<const Json*> species_mentioned(std::string_view text) {
  std::vector<std::pair<const Json*, std::string>> found;
  for (auto& e : species_kb()["species"]) {
    std::string best;
    for (auto& [term, exact] : species_terms(e))
      if (term.size() > best.size() && contains_term(text, term, exact)) best = term;
    if (!best.empty()) found.push_back({&e, best});
  }
  // A name inside a longer one that also matched ("木瓜" in "番木瓜") is not a mention of its own.
  std::vector<const Json*> out;
  for (auto& [e, term] : found) {
    bool inside = false;
    for (auto& [f, other] : found)
      inside |= f != e && other.size() > term.size() && other.find(term) != std::string::npos;
    if (!inside) out.push_back(e);
  }
  return out;
}

std::string prefix_of_latin(std::string_view latin) {
  size_t sp = latin.find(' ');
  if (sp == std::string_view::npos || sp == 0 || latin.size() < sp + 4) return "";
  std::string p(1, char(std::toupper(static_cast<unsigned char>(latin[0]))));
  for (size_t i = sp + 1; i < sp + 4; ++i) p += char(std::tolower(static_cast<unsigned char>(latin[i])));
  return p;
}

std::optional<Json> resolve_species(std::string_view name, const std::vector<fs::path>& data_dirs) {
  if (const Json* sp = find_species(name)) return *sp;
  std::string n(name);
  std::string latin = latin_binomial(n) == n ? n : "";
  std::string prefix = latin.empty() ? n : prefix_of_latin(latin);
  static const RE2 prefix_rule("[A-Z][a-z]{3}");
  if (!RE2::FullMatch(prefix, prefix_rule)) return std::nullopt;
  // A bare prefix counts as a species only when its files were given.
  if (latin.empty() && find_species_folder(data_dirs, prefix).empty()) return std::nullopt;
  std::string shown = latin.empty() ? prefix : latin;
  return Json{{"prefix", prefix},         {"latin", shown}, {"english", Json::array({shown})},
              {"chinese", Json::array()}, {"taxid", 0},     {"group", "not in the species list (named by the user)"}};
}

// The knowledge-base summary of a family in the user's language, with its reference as source [1].
std::string family_summary(const Json& f, Lang lang) {
  std::string pfam;
  for (auto& d : f["pfam"]) pfam += (pfam.empty() ? "" : ", ") + d.value("name", "") + " (" + d.value("acc", "") + ")";
  auto join = [](const Json& a, const std::string& sep) {
    std::string s;
    for (auto& x : a) s += (s.empty() ? "" : sep) + x.get<std::string>();
    return s;
  };
  std::string ath = f["members"].value("Ath", "?"), osa = f["members"].value("Osa", "?");
  if (lang == Lang::kZh) {
    // Chinese text where the knowledge base has it; otherwise the English facts, marked as such.
    bool has_zh = f.contains("functions_zh") && f.contains("regulators_zh");
    std::string note = has_zh ? "" : "（英文）";
    return f.value("name", "") + " = " + f.value("full_name", "") + "（" + f.value("chinese", "") + "）\n" +
           "- 定义结构域: " + pfam + "\n" + "- 成员数量: 拟南芥 " + ath + " 个，水稻 " + osa + " 个 [1]\n" +
           "- 主要功能" + note + ": " + join(has_zh ? f["functions_zh"] : f["functions"], "；") + "\n" +
           "- 关键调控因子" + note + ": " + join(has_zh ? f["regulators_zh"] : f["regulators"], "；") + "\n";
  }
  return f.value("name", "") + " = " + f.value("full_name", "") + "\n" + "- Defining domain(s): " + pfam + "\n" +
         "- Members: Arabidopsis " + ath + ", rice " + osa + " [1]\n" +
         "- Main functions: " + join(f["functions"], "; ") + "\n" + "- Key regulators: " + join(f["regulators"], "; ") +
         "\n";
}

}  // namespace bioagent
