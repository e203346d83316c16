// proximity() (see proximity.h).
#include "papers/proximity.h"

#include "text/stop_words.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace bioagent {
namespace {

constexpr size_t kStem = 5, kMaxQuestionWords = 16;

// Lower-cased alphanumeric words of at least three characters, cut to kStem.
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (w.size() >= 3 && !is_stop_word(w)) out.push_back(w.substr(0, kStem));
    w.clear();
  };
  for (unsigned char c : s) {
    if (std::isalnum(c))
      w += char(std::tolower(c));
    else
      flush();
  }
  flush();
  return out;
}

// Lower-cased ASCII, every whitespace run one space, trimmed.
std::string normalised(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isspace(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += char(std::tolower(c));
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

bool number_near_question_words(const std::string& question, const std::string& passage, size_t window) {
  std::set<std::string> asked;
  for (auto& w : words(question)) asked.insert(w);
  if (asked.empty()) return false;
  // Whitespace-separated tokens: a number is a token of digits (with . , %)
  // standing alone, not a year and not in brackets.
  std::vector<std::string> tokens;
  std::string t;
  for (unsigned char c : passage + " ") {
    if (std::isspace(c)) {
      if (!t.empty()) tokens.push_back(t);
      t.clear();
    } else {
      t += char(c);
    }
  }
  auto is_number = [](std::string tok) {
    while (!tok.empty() && std::string_view("(,;:").find(tok.front()) != std::string_view::npos) tok.erase(0, 1);
    while (!tok.empty() && std::string_view("),;:.").find(tok.back()) != std::string_view::npos) tok.pop_back();
    if (tok.empty() || !std::isdigit(static_cast<unsigned char>(tok.front()))) return false;
    bool decimal = false;
    for (size_t i = 0; i < tok.size(); ++i) {
      const char c = tok[i];
      if (c == '.' || c == ',')
        decimal = true;
      else if (c == '%' && i + 1 == tok.size())
        return true;
      else if (!std::isdigit(static_cast<unsigned char>(c)))
        return false;
    }
    const bool year = tok.size() == 4 && (tok.starts_with("19") || tok.starts_with("20"));
    return decimal || !year;
  };
  std::vector<size_t> near_word, numbers;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (is_number(tokens[i])) numbers.push_back(i);
    for (auto& w : words(tokens[i]))
      if (asked.contains(w)) near_word.push_back(i);
  }
  for (size_t n : numbers)
    for (size_t w : near_word)
      if ((n > w ? n - w : w - n) <= window) return true;
  return false;
}

std::vector<std::string> quoted_phrases(const std::string& question) {
  static const std::pair<std::string_view, std::string_view> kQuotes[] = {
      {"\"", "\""}, {"\u201c", "\u201d"}, {"\u300c", "\u300d"}};
  std::vector<std::string> out;
  for (auto [open, close] : kQuotes) {
    size_t at = 0;
    while (out.size() < 8) {
      size_t a = question.find(open, at);
      if (a == std::string::npos) break;
      size_t b = question.find(close, a + open.size());
      if (b == std::string::npos) break;
      std::string p = normalised(std::string_view(question).substr(a + open.size(), b - a - open.size()));
      if (p.find(' ') != std::string::npos) out.push_back(p);
      at = b + close.size();
    }
  }
  return out;
}

bool holds_phrase(const std::string& passage, const std::string& phrase) {
  if (phrase.empty()) return false;
  const std::string text = normalised(passage);
  auto word = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(text[i])) != 0; };
  for (size_t at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1)) {
    const size_t end = at + phrase.size();
    if ((at == 0 || !word(at - 1)) && (end == text.size() || !word(end))) return true;  // whole words only
  }
  return false;
}

double proximity(const std::string& question, const std::string& passage) {
  std::vector<std::string> asked;
  for (auto& w : words(question))
    if (std::find(asked.begin(), asked.end(), w) == asked.end() && asked.size() < kMaxQuestionWords) asked.push_back(w);
  if (asked.size() < 2) return 0;
  std::map<std::string, int> index;
  for (size_t i = 0; i < asked.size(); ++i) index[asked[i]] = int(i);
  std::vector<std::pair<size_t, int>> hits;  // (position in the passage, which asked word)
  const auto text = words(passage);
  for (size_t pos = 0; pos < text.size(); ++pos)
    if (auto it = index.find(text[pos]); it != index.end()) hits.push_back({pos, it->second});
  std::set<int> distinct;
  for (auto& h : hits) distinct.insert(h.second);
  const size_t found = distinct.size();
  if (found < 2) return 0;
  // The shortest window holding every found word (two pointers over the hits).
  std::vector<int> count(asked.size(), 0);
  size_t have = 0, best = SIZE_MAX, left = 0;
  for (size_t right = 0; right < hits.size(); ++right) {
    if (count[size_t(hits[right].second)]++ == 0) ++have;
    while (have == found) {
      best = std::min(best, hits[right].first - hits[left].first + 1);
      if (--count[size_t(hits[left].second)] == 0) --have;
      ++left;
    }
  }
  const double tightness = std::min(1.0, double(found) / double(best));
  return double(found - 1) / double(asked.size() - 1) * tightness;
}

}  // namespace bioagent
