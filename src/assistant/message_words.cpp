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

}  // namespace bioagent
