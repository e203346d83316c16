// KnowledgeAgent's report sections (src/assistant): the literature comparison
// and the biological significance of a gene-family run, written by the model
// from the run's results and retrieved evidence and vetted by the citation
// checker, or, without a model, the evidence list and a plain statement that
// no model was used. The gene-family report only prints them (params.prewritten).
#pragma once

#include <functional>

#include "assistant/knowledge_evidence.h"
#include "bioagent/pipeline.h"

namespace bioagent {

struct RunSubject {
  std::string prefix, latin, family;  // latin: empty when the species list does not know the prefix
};

struct ReportSections {
  std::string literature, significance;  // section texts
  std::string model = "none";            // the model asked; "none" without one
  bool model_used = false;               // some of the model's text passed the checker and is printed
  Json checks = Json::object();          // {"literature": check, "significance": check} with a model
  std::vector<std::string> searched, failed;
  Json sources = Json::array();
  // Every sentence the checker removed: [{section, sentence, why}].
  Json removed_sentences() const;
};

// The run's own results as a source text: one line per stage that reached a
// final state, its summary's values (or its reason when it did not finish).
std::string run_results_text(const RunSubject& subject, const std::vector<StageStatus>& finished);

ReportSections write_report_sections(const AgentEnv& env, LlmClient* llm, const RunSubject& subject,
                                     const std::vector<StageStatus>& finished, Lang lang);

// The report stage's parameters that carry the written sections (and the
// session's language); the sections are recorded (`record`, a task event) and
// written to run_dir/final/literature_comparison.md.
Json report_sections_patch(const AgentEnv& env, LlmClient* llm, const RunSubject& subject,
                           const std::vector<StageStatus>& finished, const fs::path& run_dir, Lang lang,
                           const std::function<void(Json)>& record);

}  // namespace bioagent
