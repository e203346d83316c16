#include "assistant/message_words.h"

#include <cctype>

namespace bioagent {

std::vector<std::string> written_out(std::vector<std::string> words) {
  static const std::pair<const char*, const char*> kChat[] = {
      {"u", "you"}, {"ur", "your"}, {"ya", "you"}, {"thx", "thanks"}, {"ty", "thanks"}};
  for (auto& w : words) {
    std::string once;
    for (size_t i = 0; i < w.size();) {
      size_t j = i;
      while (j < w.size() && w[j] == w[i]) ++j;
      once.append(j - i >= 3 && std::isalpha(static_cast<unsigned char>(w[i])) ? 1 : j - i, w[i]);
      i = j;
    }
    w = once;
    for (auto& [chat, full] : kChat)
      if (w == chat) w = full;
  }
  return words;
}

std::set<std::string> words_in_capitals(std::string_view text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t j = i;
    while (j < text.size() && std::isupper(static_cast<unsigned char>(text[j]))) ++j;
    const bool word = j - i >= 2 && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))) &&
                      (j == text.size() || !std::isalnum(static_cast<unsigned char>(text[j])));
    if (word) {
      std::string w(text.substr(i, j - i));
      for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      out.insert(w);
    }
    i = j > i ? j : i + 1;
  }
  return out;
}

bool joins_clauses(const std::vector<std::string>& w, size_t at) {
  static const std::set<std::string> kOpeners = {"and", "so", "but", "then", "ok", "okay", "also"};
  return at < w.size() && w[at] == "when" && at > 0 && !kOpeners.count(w[at - 1]);
}

bool supposes_deed(const std::vector<std::string>& w, size_t condition_at, size_t at) {
  static const std::set<std::string> kSubjects = {"i",  "we",  "it", "they", "this", "that",   "the",
                                                  "my", "our", "he", "she",  "its",  "someone"};
  for (size_t j = condition_at + 1; j < at && j < w.size(); ++j)
    if (kSubjects.count(w[j])) return true;
  return false;
}

bool cjk_supposes_deed(const std::string& t, size_t at) {
  size_t from = std::string::npos;
  for (const char* c : {"如果", "要是", "假如", "万一"})
    if (size_t p = t.rfind(c, at); p != std::string::npos && (from == std::string::npos || p > from)) from = p;
  if (from == std::string::npos) return false;
  const std::string between = t.substr(from, at - from);
  if (between.find("就") != std::string::npos || between.find("那") != std::string::npos) return false;
  for (const char* subject : {"我", "咱", "它", "这", "任务", "分析"})
    if (between.find(subject) != std::string::npos) return true;
  return false;
}

}  // namespace bioagent
