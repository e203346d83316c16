// is_stop_word() (see stop_words.h).
#include "text/stop_words.h"

#include <set>

namespace bioagent {

bool is_stop_word(std::string_view word) {
  static const std::set<std::string_view> k = {
      // articles, conjunctions, prepositions
      "a", "an", "the", "and", "or", "but", "of", "in", "on", "for", "to", "by", "with", "as", "at", "from", "into",
      "onto", "about", "after", "over", "under", "than", "then",
      // pronouns and determiners
      "i", "me", "we", "our", "you", "your", "it", "its", "they", "them", "their", "there", "this", "that", "these",
      "those", "such", "some", "any", "all", "each", "other", "also", "not",
      // auxiliaries
      "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "has", "have", "had", "can", "could",
      "would", "should", "may",
      // question words
      "what", "which", "who", "whom", "how", "why", "when", "where",
      // words that ask for something rather than name it
      "tell", "find", "show", "give", "list", "paper", "papers", "study", "article", "look", "like", "say", "says",
      "mean", "means", "right"};
  return k.count(word) > 0;
}

}  // namespace bioagent
