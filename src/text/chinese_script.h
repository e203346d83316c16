// Traditional Chinese read as simplified: the router's lexicon, the knowledge
// base's names and the species list are written in simplified characters, and
// users in Taiwan, Hong Kong and Macau write 確認、開始執行、暫停. OpenCC's
// character and phrase tables (t2s) make one reading of both scripts.
#pragma once

#include <string>
#include <string_view>

namespace bioagent {

// `text` with traditional characters made simplified; text without CJK, or text OpenCC cannot convert, is
// returned as it is. Thread-safe.
std::string to_simplified(std::string_view text);

}  // namespace bioagent
