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

// Whether the "when" at w[at] joins a time to its clause ("ping me when the tree is done") rather than asking
// (it asks where the clause opens with it: "when will it finish", "and when …").
bool joins_clauses(const std::vector<std::string>& w, size_t at);

// Whether the verb at w[at], after the condition word at w[condition_at] ("if", "unless"), is a deed the
// condition supposes someone other than the reader does ("if I stop it now, can I resume?", "if the run
// stops"). Said to the reader it asks politely ("if you could stop it"); with no subject it qualifies an
// order ("if possible stop it"): neither supposes.
bool supposes_deed(const std::vector<std::string>& w, size_t condition_at, size_t at);

// The same in Chinese text `t` for the verb at byte `at`: 如果我现在停掉, 要是它停了 suppose; a verb in the
// main clause (after 就 or 那) or with no subject (如果可以的话) does not.
bool cjk_supposes_deed(const std::string& t, size_t at);

}  // namespace bioagent
