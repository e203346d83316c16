// Traditional Chinese read as simplified: the router's lexicon, the knowledge
// base's names and the species list are written in simplified characters, and
// users in Taiwan, Hong Kong and Macau write 確認、開始執行、暫停. OpenCC's
// character and phrase tables (t2s) make one reading of both scripts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bioagent {

// `text` with traditional characters made simplified; text without CJK, or text OpenCC cannot convert, is
// returned as it is. Thread-safe.
std::string to_simplified(std::string_view text);

// At text[i], the code point of a three-byte UTF-8 sequence of the CJK ranges (U+2E80..U+9FFF,
// U+AC00..U+D7AF, U+F900..U+FAFF, U+FF00..U+FFEF), else 0. Unspaced scripts: a search reads each such
// character as a word, and a word of Latin letters glued to them ("在SMN") as a word apart.
unsigned cjk_at(std::string_view text, size_t i);

// CJK and full-width punctuation (、。「」，？ …): separators, not words.
bool cjk_punctuation(unsigned cp);

}  // namespace bioagent
