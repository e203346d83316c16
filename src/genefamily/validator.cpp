// The validator (seed 004's ValidatorAgent: required files present and
// required files present and non-empty, every stage's state, the checks the
// stage table ran on each stage's results).
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"
#include "genefamily/stages/stage_common.h"
#include "pipeline/stage_reasons.h"

namespace bioagent {

Result<std::vector<StageStatus>> run_genefamily(const Json& config, Runner& runner, const PipelineOptions& o,
                                                const Pipeline& pipeline) {
  std::error_code ec;
  fs::create_directories(o.run_dir, ec);
  std::ofstream(o.run_dir / "run.json") << json_text(config, 2) << "\n";
  auto r = pipeline.run(config, runner, o);
  if (!r) return r;
  Json stages = Json::array();
  // A Chinese run's status.json carries each stage's message in Chinese too (message_zh, from the typed reason or
  // the repair); the English message stays, as the engine's record the repairs and the diagnosis read.
  const bool zh = config.value("lang", std::string()) == "zh";
  for (auto& s : *r) {
    Json j = s.to_json();
    std::string text = s.repair.is_object() ? repair_text(s.repair, Lang::kZh) : render_reason(s.reason, Lang::kZh);
    if (zh && !s.message.empty() && !text.empty()) j["message_zh"] = text;
    stages.push_back(j);
  }
  std::ofstream(o.run_dir / "status.json")
      << json_text(Json{{"run_dir", fs::absolute(o.run_dir).string()}, {"runner", runner.name()}, {"stages", stages}},
                   2)
      << "\n";
  return r;
}

Result<Json> validate_run(const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return not_found("no run folder " + run_dir.string());
  Json run = Json::parse(std::ifstream(run_dir / "run.json"), nullptr, false);
  if (run.is_discarded()) return not_found("no run.json in " + run_dir.string() + " (is it a gene-family run?)");
  Json status = Json::parse(std::ifstream(run_dir / "status.json"), nullptr, false);
  if (status.is_discarded()) return not_found("no status.json in " + run_dir.string() + " (the run did not finish)");
  std::string base = run.value("species", std::string()) + "." + run.value("family", std::string());
  const bool zh = run.value("lang", std::string()) == "zh";  // details in the run's language
  Json checks = Json::array();
  auto add = [&](const std::string& name, const std::string& st, const std::string& detail, Json value = nullptr,
                 Json threshold = nullptr) {
    checks.push_back({{"check", name}, {"status", st}, {"detail", detail}, {"value", value}, {"threshold", threshold}});
  };
  // completeness: the seed's required files (the CDS only when the run had CDS)
  std::vector<std::string> required = {"pep.fasta", "geneID.txt", "domain.txt"};
  if (!run.value("files", Json::object()).value("cds", std::string()).empty()) required.push_back("cds.fasta");
  for (auto& suffix : required) {
    fs::path p = run_dir / "final" / (base + "." + suffix);
    bool ok = fs::exists(p, ec) && fs::file_size(p, ec) > 0;
    add("file final/" + base + "." + suffix, ok ? "pass" : "fail", ok ? "present" : "missing or empty");
  }
  // every stage's state, and the checks its table entry ran
  for (auto& st : status.value("stages", Json::array())) {
    const std::string name = st.value("stage", std::string()), state = st.value("state", std::string());
    auto s = stage_state_from_string(state);
    std::string verdict = !s                           ? "fail"
                          : finished_with_outputs(*s)  ? (*s == StageState::kWarn ? "warn" : "pass")
                          : *s == StageState::kSkipped ? "skipped"
                                                       : "fail";
    const std::string message = st.value(zh && st.contains("message_zh") ? "message_zh" : "message", std::string());
    size_t cut = std::min<size_t>(message.size(), 300);
    while (cut < message.size() && cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80)
      --cut;  // not inside a UTF-8 letter (a Chinese message)
    add("stage " + name, verdict, state + (message.empty() ? "" : ": " + message.substr(0, cut)));
    for (auto& c : st.value("checks", Json::array()))
      add(name + ": " + c.value("check", std::string()), c.value("status", std::string("warn")),
          c.value("detail", std::string()), c.value("value", Json()), c.value("threshold", Json()));
  }
  std::string verdict = "pass";
  for (auto& c : checks) {
    if (c["status"] == "fail") verdict = "fail";
    if (c["status"] == "warn" && verdict == "pass") verdict = "warn";
  }
  Json out = {{"run", run_dir.filename().string()}, {"status", verdict}, {"checks", checks}};
  std::ofstream(run_dir / "validation.json") << json_text(out, 2) << "\n";
  return out;
}

}  // namespace bioagent
