// The form reader's lexicon (message_form.cpp): interrogatives, auxiliaries,
// negations, refusals, deferrals, assent, small talk, requests, politeness,
// the speaker, how-to and existence questions, and the verbs and nouns of the
// acts, in Chinese and English. Words of the grammar only: no topic.
#pragma once

#include <vector>

#include "assistant/message_form.h"

namespace bioagent::form {

enum class Kind {
  kWh,            // what, which, 什么, 哪 (anywhere: a question)
  kAux,           // is, can, does: a question when it opens a clause
  kNegation,      // not, don't, 不, 别 (CJK: only before a verb of an act)
  kRefusal,       // a refusal on its own: nah, never mind, 算了, 不用了
  kDeferral,      // later, not yet, 以后
  kConditional,   // if, 如果: a negation in its clause refuses nothing
  kAssent,        // yes, ok, 好的
  kPhatic,        // hello, thanks, bye, haha, hmm
  kRequest,       // I want to, can you, 我想, 帮我
  kPlease,        // please, 请, 麻烦
  kFirstPerson,   // I, we, 我
  kHowTo,         // how should I, 怎么做
  kExistence,     // already, has anyone, 有人
  kRecency,       // recent, latest, 最近, 最新: asks for what is new (publications)
  kSource,        // a literature source the assistant searches (PubMed, bioRxiv, 知网): names a search
  kSecondPerson,  // you, your, 你, 您: addressed to the assistant
  kAct,           // a verb or noun of an act
};

struct Entry {
  const char* text;  // ASCII: lower-case words separated by one space; else a CJK substring
  Kind kind;
  Act act = Act::kRun;
};

// Every entry; ASCII entries are lower-case words separated by one space, others CJK substrings.
const std::vector<Entry>& form_lexicon();

}  // namespace bioagent::form
