// Question cues and the front matter's extent (see question_cues.h).
#include "papers/question_cues.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "text/stop_words.h"

namespace bioagent {

std::string named_paper(const std::string& question) {
  // "the/this/that X paper": X of one to six words, the last before the noun.
  static const RE2 kNamed(
      R"((?i)\b(?:the|this|that)\s+((?:[\w\-]+\s+){0,5}?[\w\-]+)\s+(?:paper|article|preprint|study|review|manuscript|work)\b)");
  // Words that end a name read from the left ("the authors of the RAG paper": "RAG").
  static const RE2 kCut(R"((?i)^(?:the|this|that|these|those|of|in|on|for|by|from|with|a|an|and|or|to)$)");
  static const RE2 kVague(
      R"((?i)^(?:same|present|current|above|following|original|systematic|whole|entire|first|second|last|other|new|recent|related|cited)$)");
  std::string matched;
  if (!RE2::PartialMatch(question, kNamed, &matched)) return "";
  std::vector<std::string> words;
  std::string word;
  for (char c : matched + " ") {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      word += c;
      continue;
    }
    if (RE2::FullMatch(word, kCut))
      words.clear();
    else if (!word.empty())
      words.push_back(word);
    word.clear();
  }
  std::string named;
  bool content = false;
  for (auto& w : words) {
    named += (named.empty() ? "" : " ") + w;
    std::string lower = w;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    content = content || (!is_stop_word(lower) && !RE2::FullMatch(lower, kVague));
  }
  return content ? named : "";
}

std::string without_study_naming(const std::string& question) {
  // "In the study showing that …," (up to the clause's end), "the X paper" (the X), "X研究中，".
  static const RE2 kClause(
      R"((?i)\b(?:in|from|of|for|by)\s+(?:the|this|that)\s+(?:paper|article|preprint|study|review|manuscript|work|report)\s+(?:showing|that showed|which showed|reporting|that reported|on|about|describing|that described|where|in which|that)\b[^,;?]*[,;]\s*)");
  static const RE2 kChinese(R"((?:在)?[^，,。？?；;]{2,40}?(?:研究|论文|文章|工作)(?:中|里)[，,]?)");
  std::string out = question;
  RE2::Replace(&out, kClause, "");
  RE2::Replace(&out, kChinese, "");
  if (const std::string named = named_paper(out); !named.empty()) {  // its words, whatever spaces between them
    std::string pattern = "(?i)", word;
    for (char c : named + " ") {
      if (c != ' ') {
        word += c;
      } else if (!word.empty()) {
        pattern += (pattern.size() > 4 ? "\\s+" : "") + RE2::QuoteMeta(word);
        word.clear();
      }
    }
    RE2::Replace(&out, RE2(pattern), "");
  }
  const bool left = std::any_of(out.begin(), out.end(), [](unsigned char c) { return std::isalnum(c) || c >= 0x80; });
  return left ? out : question;
}

std::optional<CaptionLabel> asked_caption_label(const std::string& question) {
  static const RE2 kEnglish(R"((?i)\b(fig(?:ure)?s?\.?|tab(?:le)?s?\.?)\s*((?:S|s)?\d+|(?-i:[IVX]+))\b)");
  static const RE2 kChinese(R"((图|表)\s*((?:S|s)?\d+))");
  std::string kind, number;
  if (!RE2::PartialMatch(question, kEnglish, &kind, &number) && !RE2::PartialMatch(question, kChinese, &kind, &number))
    return std::nullopt;
  CaptionLabel out;
  out.table = kind == "表" || std::tolower(static_cast<unsigned char>(kind[0])) == 't';
  for (char& c : number) c = char(std::toupper(static_cast<unsigned char>(c)));
  out.number = number;
  return out;
}

bool caption_has_label(const std::string& caption, const CaptionLabel& label) {
  static const RE2 kLabel(R"((?i)^\s*(fig(?:ure)?s?\.?|tab(?:le)?s?\.?|图|表)\s*((?:S|s)?\d+|(?-i:[IVX]+)))");
  std::string kind, number;
  if (!RE2::PartialMatch(caption, kLabel, &kind, &number)) return false;
  const bool table = kind == "表" || std::tolower(static_cast<unsigned char>(kind[0])) == 't';
  for (char& c : number) c = char(std::toupper(static_cast<unsigned char>(c)));
  return table == label.table && number == label.number;
}

std::string defined_term(const std::string& question) {
  static const RE2 kStandFor(
      R"((?i)^\s*(?:in [^,]+,\s*)?what (?:does|do) (?:the (?:term|word|abbreviation|acronym|phrase)\s+)?(.+?)\s+(?:stand for|mean|refer to|denote)\b)");
  static const RE2 kWhatIs(
      R"((?i)^\s*(?:in [^,]+,\s*)?(?:what|who) (?:is|are) (?:an?\s+|the\s+)?(?:term\s+)?(.+?)\s*(?:\bin the\b.*)?[?？.]?\s*$)");
  static const RE2 kDefine(R"((?i)^\s*define\s+(.+?)[?？.]?\s*$)");
  static const RE2 kChinese(R"(^\s*(?:什么是|何为)(.+?)[?？。]?\s*$|^\s*(.+?)是什么[?？。]?\s*$)");
  std::string term, other;
  if (!RE2::PartialMatch(question, kStandFor, &term) && !RE2::PartialMatch(question, kWhatIs, &term) &&
      !RE2::PartialMatch(question, kDefine, &term) && !RE2::PartialMatch(question, kChinese, &term, &other))
    return "";
  if (term.empty()) term = other;
  size_t words = 1;
  for (char c : term) words += c == ' ';
  if (words > 4 || term.empty()) return "";
  static const RE2 kQuotes(R"(^["'“‘]+|["'”’]+$)");
  RE2::GlobalReplace(&term, kQuotes, "");
  return term;
}

std::string asked_acronym(const std::string& q) {
  static const RE2 kAsks(
      R"((?i)\b(stand|stands|short|abbreviat\w*|acronym|full (?:name|form)|spelled out|expan\w+|denotes?|refers?|means?)\b|全称|缩写|全名|代表什么|指的是|指什么)");
  if (!RE2::PartialMatch(q, kAsks)) return "";
  // The term of "what does X stand for" when it is one word with two capitals ("dTE", "AP-MS"), else the
  // question's first such word.
  const std::string term = defined_term(q);
  const auto capitals =
      std::count_if(term.begin(), term.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  const bool one_ascii_word =
      std::all_of(term.begin(), term.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80 && c != ' '; });
  if (capitals >= 2 && one_ascii_word) return term;
  static const RE2 kAcronym(R"((?:^|[^\w-])([A-Za-z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)(?:[^\w-]|$))");
  std::string a;
  return RE2::PartialMatch(q, kAcronym, &a) ? a : "";
}

namespace {

// The long form of `acronym` at the end of `before` (the text up to its parenthesis), else "".
std::string long_form_before(std::string_view before, const std::string& acronym) {
  // The words that may hold the long form: at most min(n + 5, 2n) of them.
  const size_t n = acronym.size();
  size_t start = before.size(), words = 0;
  while (start > 0 && words < std::min(n + 5, 2 * n)) {
    while (start > 0 && before[start - 1] == ' ') --start;
    while (start > 0 && before[start - 1] != ' ' && before[start - 1] != '(' && before[start - 1] != '.') --start;
    ++words;
    if (start > 0 && (before[start - 1] == '(' || before[start - 1] == '.')) break;
  }
  const std::string_view l = before.substr(start);
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  long si = static_cast<long>(n) - 1, li = static_cast<long>(l.size()) - 1;
  while (si >= 0) {
    const char c = lower(acronym[static_cast<size_t>(si)]);
    if (!alnum(c)) {
      --si;
      continue;
    }
    // The first character must open a word of the long form.
    while (li >= 0 &&
           (lower(l[static_cast<size_t>(li)]) != c || (si == 0 && li > 0 && alnum(l[static_cast<size_t>(li) - 1]))))
      --li;
    if (li < 0) return "";
    --li, --si;
  }
  const size_t from = l.rfind(' ', static_cast<size_t>(li + 1));
  std::string out(l.substr(from == std::string_view::npos ? 0 : from + 1));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // A long form is longer than its acronym and is not the acronym itself: two words or more,
  // spaced or hyphenated (a fusion protein's parts, "DN1S-Cas9-XTEN-hExo1").
  const bool itself = out.starts_with(acronym);  // "DCXE (DCXE-1)": a variant named, not a spelling out
  return out.size() > n && !itself && out.find_first_of(" -") != std::string::npos ? out : "";
}

}  // namespace

std::string acronym_long_form(const std::string& text, const std::string& acronym) {
  if (acronym.size() < 2) return "";
  for (size_t at = text.find("(" + acronym); at != std::string::npos; at = text.find("(" + acronym, at + 1)) {
    const size_t end = at + 1 + acronym.size();
    if (end < text.size() && text[end] != ')' && text[end] != ',' && text[end] != ';' && text[end] != 's') continue;
    std::string before = text.substr(at > 300 ? at - 300 : 0, at - (at > 300 ? at - 300 : 0));
    for (auto& c : before)
      if (c == '\n' || c == '\t') c = ' ';
    std::string found = long_form_before(before, acronym);
    if (!found.empty()) return found;
  }
  // The other order: "ACRONYM (long form)".
  for (size_t at = text.find(acronym + " ("); at != std::string::npos; at = text.find(acronym + " (", at + 1)) {
    const size_t open = at + acronym.size() + 2, close = text.find(')', open);
    if ((at > 0 && std::isalnum(static_cast<unsigned char>(text[at - 1]))) || close == std::string::npos ||
        close - open > 200)
      continue;
    std::string inner = text.substr(open, close - open);
    for (auto& c : inner)
      if (c == '\n' || c == '\t') c = ' ';
    std::string found = long_form_before(inner, acronym);
    if (!found.empty() && inner.starts_with(found)) return found;
  }
  return "";
}

std::map<std::string, std::string> defined_acronyms(const std::string& text) {
  static const RE2 kParenthesised(R"(\(([A-Z][A-Za-z0-9-]{1,11}?)s?[),;])");
  std::map<std::string, std::string> out;
  re2::StringPiece rest(text);
  std::string acronym;
  while (RE2::FindAndConsume(&rest, kParenthesised, &acronym)) {
    const auto marks = std::count_if(acronym.begin(), acronym.end(),
                                     [](unsigned char c) { return std::isupper(c) || std::isdigit(c); });
    if (marks < 2 || out.count(acronym)) continue;
    const size_t end = static_cast<size_t>(rest.data() - text.data()), from = end > 400 ? end - 400 : 0;
    std::string long_form = acronym_long_form(text.substr(from, end - from), acronym);
    if (!long_form.empty()) out.emplace(acronym, std::move(long_form));
  }
  return out;
}

bool asks_for_quantity(const std::string& question) {
  static const RE2 kQuantity(
      R"((?i)\b(?:how (?:many|much|long|often|large|big|high|low|far|old)|rates?|risks?|percent(?:age)?s?|proportions?|fractions?|ratios?|doses?|dosages?|concentrations?|amounts?|numbers? of|[IELCG]C50|[ELI]D50|yields?|average|mean|median)\b|多少|几[个种株次天年]|比例|百分|[率量])");
  return RE2::PartialMatch(question, kQuantity);
}

bool defines_term(const std::string& text, const std::string& term) {
  if (term.empty()) return false;
  bool acronym = term.size() >= 2;
  for (char c : term) acronym = acronym && !std::islower(static_cast<unsigned char>(c)) && !std::isspace(c);
  const std::string t = RE2::QuoteMeta(term);
  const std::string flags = acronym ? "" : "(?i)";
  // \b only where the term begins or ends with a word character (not before or after 中文).
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const std::string before = word(term.front()) ? "\\b" : "", after = word(term.back()) ? "\\b" : "";
  // "(T)", "T (…", "T: …", "T, a …", "T is a/an/the …", "T[”] [shall] refer(s) to / stand(s) for / denote(s) /
  // mean(s)", "the term/word “T”", "called/termed/known as/defined as T".
  RE2::Options quiet;
  quiet.set_log_errors(false);
  const RE2 pattern(
      flags + "\\(" + t + "s?\\)|" + before + t + R"(s?(?:\s*\(|:\s|,\s+(?:an?|the)\s|\s+(?:is|are)\s+(?:an?|the)\s)" +
          R"(|["'”’]?,?\s+(?:(?:shall|will|here|hereafter|is used to)\s+)?(?:refers? to|stands? for|denotes?|means?|is defined as)\s))" +
          R"(|\b(?:term|word|notion|acronym|abbreviation)\s+["'“‘]?)" + t + after +
          R"(|(?:called|termed|named|known as|defined as|refer to as|referred to as)\s+(?:an?\s+|the\s+)?["'“‘]?)" + t +
          after,
      quiet);
  return pattern.ok() && RE2::PartialMatch(text, pattern);
}

size_t front_matter_chunks(const std::vector<std::string>& first_page_chunks, bool has_abstract) {
  // A paragraph opening with the heading: "Introduction" alone or followed by its text (a capital), never by
  // ':' or '.' ("Background: …" opens a structured abstract's part) nor by a lower-case word ("Introduction of …").
  static const RE2 kBodyOpens(
      R"((?m)^\s*(?:(?:\d+|[IVX]+)\.?\s+)?(?:Introduction|INTRODUCTION|Background|BACKGROUND)(?:\s*$|\s+[A-Z]))");
  for (size_t i = 0; i < first_page_chunks.size(); ++i)
    if (RE2::PartialMatch(first_page_chunks[i], kBodyOpens)) return i;
  return has_abstract ? first_page_chunks.size() : 0;
}

// The patterns below see user text (questions, PDF page text): RE2, linear time
// and no recursion, so a long or hostile text costs its length, never the stack.
namespace {
RE2::Options quiet_options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}
}  // namespace

// How much a chunk reads like a reference list: years, page ranges, "et al."
// and DOIs per 200 characters. Reference lists repeat the words of titles,
// so they match many questions they do not answer.
double reference_density(const std::string& text) {
  static const RE2 kMarks(R"((?i)\b(?:19|20)\d\d\b|\bet al\b|\b\d+\s*-\s*\d+\b|\bdoi\b)", quiet_options());
  size_t n = 0;
  re2::StringPiece rest(text);
  while (RE2::FindAndConsume(&rest, kMarks)) ++n;
  return double(n) * 200.0 / double(std::max<size_t>(200, text.size()));
}

// Questions about a paper's title, who wrote it, where its authors work, its
// abstract or when it was received, accepted or published are answered by its
// front matter (the first page); only these get the title field's vote and the
// first-page factor.
bool asks_for_front_matter(const std::string& q) {
  static const RE2 kFront(
      R"((?i)\b(?:who (?:wrote|are the authors|is the (?:first|corresponding) author)|authors?|affiliat\w*|universit(?:y|ies)|institutions?|organi[sz]ations?|departments?|titled?|abstract|(?:when|date)\b[^?]*\b(?:received|accepted|published))\b|作者|单位|机构|标题|题目|摘要|发表|收稿)",
      quiet_options());
  return RE2::PartialMatch(q, kFront);
}

// Questions naming a figure or a table are answered where its caption is.
bool asks_for_caption(const std::string& q) {
  static const RE2 kCaption(R"((?i)\b(?:fig(?:ure|s)?\.?|tables?|plots?|charts?|diagrams?)\b|图|表)", quiet_options());
  return RE2::PartialMatch(q, kCaption);
}

bool asks_for_references(const std::string& q) {
  static const RE2 kRefs(R"((?i)\b(?:references?|cit(?:e|es|ed|ation|ations)|bibliography|journal)\b|参考文献|引用)",
                         quiet_options());
  return RE2::PartialMatch(q, kRefs);
}

}  // namespace bioagent
