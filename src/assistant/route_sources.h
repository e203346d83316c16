// What the sources that could answer a message hold for it, as the router
// asks them: the gene-family knowledge base (families, aliases, member genes,
// species, and the text of each family's entry), the user's paper library
// (BM25 over its chunks), the literature evidence store (SQLite FTS5), the
// data bundle (its datasets, column names and row names, read from the tables
// its manifest names), and the session (its latest plan, the task under way, a
// stopped task). Each answer is a score in [0, 1] with what matched, so the
// router (and a model routing in its place) decides from evidence, not from
// phrases. Lookups are bounded: a few index reads per message.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "assistant/assistant_internal.h"
#include "assistant/message_form.h"

namespace bioagent {

struct SourceMatch {
  bool available = false;  // the source exists (a library with papers, a bundle, a store with records)
  double score = 0;        // how well it matches the message, 0..1
  double beyond_kb = 0;    // the score over what the knowledge base does not already name (family, species)
  std::vector<std::string> matched;
  std::string best;   // the best item: "paper.pdf p. 3", a table, a record title
  double ms = 0;      // what the lookup took
  std::string error;  // the lookup failed (the source counts as unavailable)
  Json to_json() const;
};

struct KbMatch {
  const Json* family = nullptr;        // the knowledge base's entry, named or inferred
  std::string family_name;             // its name, or a family the knowledge base lacks ("XYZ1 gene family")
  std::string family_term;             // the words that named it
  bool named = false;                  // named in the message (else inferred from its entry's text)
  std::string species, species_name;   // prefix; a Latin name outside the species list
  size_t species_named = 0;            // how many species of the list the message names (two: a comparison)
  bool generic_family = false;         // "gene family", 基因家族, "my genome": a subject without a name
  double score = 0;                    // the share of the message's content the knowledge base names or holds
  std::vector<std::string> explained;  // content words it names or holds
  Json to_json() const;
};

struct SessionMatch {
  bool has_plan = false;
  std::string plan_family, plan_species;  // of the latest plan
  std::string running_task;               // a task under way ("" when none)
  std::string resumable_task;             // the latest task when it was cancelled or failed
  Json to_json() const;
};

struct RouteEvidence {
  KbMatch kb;
  SourceMatch library, evidence_store, data, plan;
  SessionMatch session;
  double ms = 0;  // every lookup together
  Json to_json() const;
};

// The knowledge base's answer (compiled in; no I/O).
// A message naming the plan's family and another ("forget globin, plan WRKY instead") is about the other.
KbMatch match_knowledge_base(std::string_view message, const MessageForm& form, std::string_view plan_family = "");
// The paper library at `papers_db` (absent or empty: not available, score 0).
SourceMatch match_library(const std::string& papers_db, std::string_view message, const MessageForm& form,
                          const KbMatch& kb);
// The literature evidence store in `cache_dir` (absent: not available).
SourceMatch match_evidence_store(const std::string& cache_dir, std::string_view message, const MessageForm& form,
                                 const KbMatch& kb);
// The data bundle at `bundle_dir`: its vocabulary is read once per manifest version.
SourceMatch match_data_bundle(const std::string& bundle_dir, std::string_view message, const MessageForm& form,
                              const KbMatch& kb);
// The plan (the session's latest, or the pipeline's stages and the files a plan needs when there is none).
SourceMatch match_plan(const Json& plan, std::string_view message, const MessageForm& form);

// The content words of a message as the text sources match them: its ASCII content words and the English
// words of the names it uses (name_expansions), stop words out, each once.
std::vector<std::string> source_terms(std::string_view message, const MessageForm& form);
// A word reduced for matching (lower case, a plural or -ed/-ing ending dropped).
std::string match_stem(std::string w);

}  // namespace bioagent
