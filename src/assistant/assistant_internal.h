// Shared inside src/assistant: text helpers, the knowledge-base mentions, and
// what the assistant uses of the run service's internals (the store, diagnosis,
// data folders).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/assistant.h"
#include "bioagent/pipeline.h"
#include "core/app_store.h"
#include "runs/runs_internal.h"

namespace bioagent {

std::string lower_ascii(std::string s);

struct Mentions {
  const Json* species = nullptr;
  const Json* family = nullptr;
  std::string species_term, family_term;
  std::string unknown_family;  // "<X> gene family" where X is not in the knowledge base
  std::string latin_species;   // a Latin binomial the species list lacks ("Camellia sinensis")
};
// The family is the longest name found; one other than `set_aside` when the text names another too.
Mentions find_mentions(std::string_view text, std::string_view set_aside = "");
// Every species of the list that `text` names, in list order.
std::vector<const Json*> species_mentioned(std::string_view text);
// `term` in `text` as the knowledge base matches names: whole words, short symbols in their case.
bool text_mentions(std::string_view text, const std::string& term);
std::string family_summary(const Json& family, Lang lang);

}  // namespace bioagent
