// The words of a message as its writer meant them: chat spellings written out, and the words typed in
// capitals (an abbreviation such as "HMM" or "GO" is not the word "hmm" or "go"). Pure; thread-safe.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace bioagent {

// Chat spellings read as written out ("u" → "you", "thx" → "thanks"); a letter typed three or more times
// in a row is one letter ("stopppp" → "stop", "pleeease" → "please"). Words are lower case.
std::vector<std::string> written_out(std::vector<std::string> words);

// The words of two or more capitals in `text` ("HMM", "GO"), lower-cased.
std::set<std::string> words_in_capitals(std::string_view text);

}  // namespace bioagent
