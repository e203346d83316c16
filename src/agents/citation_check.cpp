// The citation checker: every sentence of an answer against the sources it
// cites. A sentence fails when it cites a number that names no source, or
// when a number, a gene name or a quoted phrase in it occurs in none of the
// sources it cites; a factual sentence that cites nothing fails too.
#include <re2/re2.h>

#include <set>

#include "bioagent/agent.h"

namespace bioagent {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Sentences: cut after 。！？ and after . ! ? followed by a space or a line end; every line break cuts.
std::vector<std::string> split_sentences(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    size_t a = cur.find_first_not_of(" \t");
    if (a != std::string::npos) out.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      flush();
      continue;
    }
    cur += c;
    bool cjk_end = text.compare(i, 3, "。") == 0 || text.compare(i, 3, "！") == 0 || text.compare(i, 3, "？") == 0;
    if (cjk_end) {
      cur += text.substr(i + 1, 2);
      i += 2;
    }
    bool ascii_end = (c == '.' || c == '!' || c == '?') && (i + 1 == text.size() || text[i + 1] == ' ');
    if (cjk_end || ascii_end) {
      // Citation marks right after the stop belong to this sentence ("... rice. [2]").
      size_t j = i + 1;
      while (j < text.size() && text[j] == ' ') ++j;
      while (j < text.size() && text[j] == '[') {
        size_t close = text.find(']', j);
        if (close == std::string::npos) break;
        cur += text.substr(i + 1, close + 1 - i - 1);
        i = close;
        j = close + 1;
      }
      flush();
    }
  }
  flush();
  return out;
}

// The numbers of the [n] / [n, m] / [n-m] marks in a sentence. (The answer may
// echo user text: RE2 and plain scanning only, never a backtracking engine.)
std::vector<int> cited_numbers(const std::string& s) {
  static const RE2 mark(R"(\[(\d+(?:\s*[,，-]\s*\d+)*)\])");
  static const RE2 num(R"((\d+))");
  std::vector<int> out;
  re2::StringPiece in(s);
  std::string inside;
  while (RE2::FindAndConsume(&in, mark, &inside)) {
    std::vector<int> ns;
    re2::StringPiece digits(inside);
    std::string n;
    while (RE2::FindAndConsume(&digits, num, &n))
      if (n.size() <= 6) ns.push_back(std::stoi(n));  // no source list is longer
    if (inside.find('-') != std::string::npos && ns.size() == 2 && ns[1] >= ns[0] && ns[1] - ns[0] < 50)
      for (int k = ns[0]; k <= ns[1]; ++k) out.push_back(k);
    else
      out.insert(out.end(), ns.begin(), ns.end());
  }
  return out;
}

// Phrases between quote marks ("..." or “...”), 3 to 200 bytes on one line.
std::vector<std::string> quoted_phrases(const std::string& s) {
  auto opener = [&](size_t i) -> size_t {
    if (s[i] == '"') return 1;
    return s.compare(i, 3, "\u201c") == 0 ? 3 : 0;
  };
  auto closer = [&](size_t i) -> size_t {
    if (s[i] == '"') return 1;
    return s.compare(i, 3, "\u201d") == 0 ? 3 : 0;
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t open = opener(i);
    if (open == 0) {
      ++i;
      continue;
    }
    size_t j = i + open, end = std::min(s.size(), j + 201);
    size_t close = 0;
    while (j < end && s[j] != '\n' && (close = closer(j)) == 0) ++j;
    size_t len = j - (i + open);
    if (close != 0 && len >= 3 && len <= 200) {
      out.push_back(s.substr(i + open, len));
      i = j + close;
    } else {
      ++i;
    }
  }
  return out;
}

// Whether `needle` occurs in `hay` as a whole token (no letter or digit glued on either side).
bool has_token(const std::string& hay, const std::string& needle) {
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) {
    auto glued = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(hay[i])) != 0; };
    bool left =
        p == 0 || !glued(p - 1) ||
        (std::isdigit(static_cast<unsigned char>(needle[0])) && !std::isdigit(static_cast<unsigned char>(hay[p - 1])));
    size_t e = p + needle.size();
    bool right =
        e >= hay.size() || !glued(e) ||
        (std::isdigit(static_cast<unsigned char>(needle.back())) && !std::isdigit(static_cast<unsigned char>(hay[e])));
    if (left && right) return true;
  }
  return false;
}

// What a sentence asserts that a source must contain: numbers, gene-like names, quoted phrases.
std::vector<std::pair<std::string, std::string>> checkable_facts(const std::string& sentence) {
  static const RE2 marks(R"(\[\d+(?:\s*[,，-]\s*\d+)*\])");
  std::string s = sentence;
  RE2::GlobalReplace(&s, marks, " ");
  std::vector<std::pair<std::string, std::string>> facts;
  static const RE2 number(R"((?:^|[^A-Za-z0-9.])(\d+(?:\.\d+)?))");
  re2::StringPiece in(s);
  std::string found;
  while (RE2::FindAndConsume(&in, number, &found)) facts.push_back({"number", found});
  // Gene names: letters with digits (SPL9, miR156, AtMYB21) or a capitalised symbol of 3+ capitals (WRKY, SBP).
  static const RE2 gene(R"(\b([A-Za-z]{1,6}[0-9]+[A-Za-z0-9]*|[A-Z][A-Z0-9]{2,}[a-z]?)\b)");
  static const std::set<std::string> common = {"DNA", "RNA", "PCR", "HMM", "THE", "AND", "NOT", "LLM", "PDF", "API"};
  in = re2::StringPiece(s);
  while (RE2::FindAndConsume(&in, gene, &found)) {
    if (!common.count(found) &&
        !std::all_of(found.begin(), found.end(), [](char c) { return std::isdigit(c) || c == '.'; }))
      facts.push_back({"gene name", found});
  }
  for (auto& q : quoted_phrases(s)) facts.push_back({"quoted phrase", q});
  return facts;
}

}  // namespace

Json CitationCheck::to_json() const {
  Json v = Json::array();
  for (auto& s : sentences)
    v.push_back({{"sentence", s.sentence}, {"kept", s.kept}, {"cited", s.cited}, {"problems", s.problems}});
  return {{"checked", sentences.size()}, {"removed", removed}, {"sentences", v}};
}

CitationCheck check_citations(const std::string& answer, const std::map<int, std::string>& sources) {
  CitationCheck out;
  std::string kept_text;
  for (auto& sentence : split_sentences(answer)) {
    CitationVerdict v;
    v.sentence = sentence;
    v.cited = cited_numbers(sentence);
    std::string evidence;
    for (int n : v.cited) {
      auto it = sources.find(n);
      if (it == sources.end())
        v.problems.push_back("cites [" + std::to_string(n) + "], which is no source in the context");
      else
        evidence += it->second + "\n";
    }
    auto facts = checkable_facts(sentence);
    if (v.cited.empty() && !facts.empty()) {
      v.problems.push_back("states " + facts[0].first + " '" + facts[0].second + "' without citing a source");
    } else if (!v.cited.empty()) {
      std::string low_evidence = lower(evidence);
      for (auto& [kind, value] : facts) {
        bool found = kind == "quoted phrase" ? low_evidence.find(lower(value)) != std::string::npos
                     : kind == "gene name"   ? has_token(low_evidence, lower(value))
                                             : has_token(evidence, value);
        if (!found) v.problems.push_back(kind + " '" + value + "' is in none of the cited sources");
      }
    }
    v.kept = v.problems.empty();
    if (v.kept)
      kept_text += sentence + "\n";
    else
      ++out.removed;
    out.sentences.push_back(std::move(v));
  }
  while (!kept_text.empty() && kept_text.back() == '\n') kept_text.pop_back();
  out.text = kept_text;
  return out;
}

}  // namespace bioagent
