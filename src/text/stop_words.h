// The one English stop-word list: words that carry no subject (articles,
// pronouns, auxiliaries, prepositions, question words) and the words with
// which people ask for things (tell, find, show, paper). Retrieval scoring,
// the offline agent's sentence choice and the knowledge base's name finder
// all skip these.
#pragma once

#include <string_view>

namespace bioagent {

// `word` in lower case.
bool is_stop_word(std::string_view word);

}  // namespace bioagent
