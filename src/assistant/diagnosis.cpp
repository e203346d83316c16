// DiagnosisAgent's rules: classify a failure, name its root cause, pick a fix
// from the repair table (data, not code: the program itself is never changed),
// and apply the reversible ones with a backup.
#include <regex>

#include "assistant/assistant_internal.h"

namespace bioagent {

Json Diagnosis::to_json() const {
  return {{"error_type", error_type},
          {"error_message", error_message},
          {"root_cause", root_cause},
          {"pattern", pattern},
          {"fix", fix}};
}

const std::vector<DiagnosisRepair>& repair_table() {
  static const std::vector<DiagnosisRepair> table = {
      {"rename_extension_variant", "naming_mismatch",
       "detect the extension variant (.fa, .fas, .faa, .gff) and give the file its rule name; the original is kept "
       "in .backup/",
       "check the file names for extension variants before the naming check and fix them up front", true},
      {"relax_evalue", "empty_result", "relax the identify E-value from 1e-5 to 1e-3 and say so in the report",
       "start identify at E-value 1e-3 for "
       "this family when 1e-5 found nothing",
       true},
      {"fasttree_fallback", "out_of_memory", "build the tree with FastTree instead of IQ-TREE (less memory and time)",
       "use FastTree for the phylogeny of large families", true},
      {"fasttree_on_timeout", "time_limit", "build the tree with FastTree instead of IQ-TREE",
       "use FastTree when IQ-TREE would exceed the time limit", true},
      {"fasttree_if_iqtree_missing", "tool_missing", "build the tree with FastTree (IQ-TREE is not installed)",
       "check installed programs before planning the phylogeny", true},
      {"ask_for_file", "missing_file", "ask the user to upload the missing file under its rule name",
       "list the required files and their naming rules in the plan", false},
      {"ask_for_valid_file", "bad_format", "show the parse error and ask for a corrected file",
       "validate file formats at upload time", false},
      {"report_gene_count", "gene_count_out_of_bounds",
       "report the count against the expected bounds; check the HMM and the E-value before trusting it",
       "compare the member count with the knowledge base before the phylogeny", false},
  };
  return table;
}

const DiagnosisRepair* find_repair(const std::string& key) {
  for (auto& r : repair_table())
    if (r.key == key) return &r;
  return nullptr;
}

namespace {

bool has(const std::string& text, const char* needle) { return lower_ascii(text).find(needle) != std::string::npos; }

}  // namespace

std::string generalise(std::string message) {
  static const std::regex path(R"((/[^\s'"]+/)+)");
  static const std::regex prefixed(R"(\b[A-Z][a-z]{1,3}(\.[A-Za-z0-9_]+)*\.(genome|gff3?|cds|pep)\b)");
  message = std::regex_replace(message, path, "<dir>/");
  message = std::regex_replace(message, prefixed, "<Prefix>.$2");
  return message;
}

Diagnosis classify_failure(const std::string& stage, const std::string& message, const Json& naming_problems) {
  Diagnosis d;
  d.error_message = message;
  bool fixable = false, unfixable = false;
  for (auto& p : naming_problems) (p.value("fixable", false) ? fixable : unfixable) = true;
  if (fixable && !unfixable) {
    const Json& p = naming_problems[0];
    std::string file = p.value("file", ""), want = p.value("fix", "");
    d.error_type = "naming_mismatch";
    std::string ext = file.substr(file.rfind('.') == std::string::npos ? file.size() : file.rfind('.'));
    std::string want_ext = want.substr(want.rfind('.') == std::string::npos ? want.size() : want.rfind('.'));
    d.root_cause =
        "file extension does not match the naming rule: expected " + want_ext + ", found " + ext + " (" + file + ")";
    d.pattern = "extension variant " + ext + " for " + want_ext + " (" + p.value("kind", "") + ")";
    d.fix = "rename_extension_variant";
  } else if (unfixable || has(message, "not found") || has(message, "no such file") || has(message, "missing")) {
    d.error_type = "missing_file";
    std::string what;
    for (auto& p : naming_problems)
      if (!p.value("fixable", false)) what += (what.empty() ? "" : "; ") + p.value("message", p.value("file", ""));
    d.root_cause = what.empty() ? "a required input file is missing" : what;
    d.pattern = "missing input for stage " + stage;
    d.fix = "ask_for_file";
  } else if (has(message, "not installed") || has(message, "command not found") || has(message, "no such program")) {
    d.error_type = "tool_missing";
    d.root_cause = "a program the stage needs is not installed";
    d.pattern = "program missing for stage " + stage;
    d.fix = has(message, "iqtree") ? "fasttree_if_iqtree_missing" : "";
  } else if (has(message, "out of memory") || has(message, "bad_alloc") || has(message, "exit code 137") ||
             has(message, "killed by signal 9") || has(message, "oom")) {
    d.error_type = "out_of_memory";
    d.root_cause = "the process ran out of memory";
    d.pattern = "out of memory in stage " + stage;
    d.fix = stage == "phylogeny" ? "fasttree_fallback" : "";
  } else if (has(message, "time limit") || has(message, "timed out") || has(message, "timeout")) {
    d.error_type = "time_limit";
    d.root_cause = "the stage exceeded its time limit";
    d.pattern = "time limit in stage " + stage;
    d.fix = stage == "phylogeny" ? "fasttree_on_timeout" : "";
  } else if (has(message, "no member") || has(message, "found nothing") || has(message, "0 members") ||
             has(message, "empty")) {
    d.error_type = "empty_result";
    d.root_cause = "the search found no family members at the current thresholds";
    d.pattern = "empty result in stage " + stage;
    d.fix = stage == "identify" ? "relax_evalue" : "";
  } else if (has(message, "gene count") || has(message, "outside")) {
    d.error_type = "gene_count_out_of_bounds";
    d.root_cause = "the number of members is outside the expected bounds";
    d.pattern = "gene count out of bounds";
    d.fix = "report_gene_count";
  } else if (has(message, "parse") || has(message, "format") || has(message, "malformed") || has(message, "invalid")) {
    d.error_type = "bad_format";
    d.root_cause = "an input file is not in the expected format";
    d.pattern = "bad format in stage " + stage;
    d.fix = "ask_for_valid_file";
  } else {
    d.error_type = "unknown";
    d.root_cause = "not recognised by the rules; the stage log has the details";
    d.pattern = "unrecognised failure in stage " + stage;
  }
  d.pattern = generalise(d.pattern);
  return d;
}

Result<Json> apply_naming_repair(const fs::path& data_dir, const Json& naming_problems) {
  Json changes = Json::array();
  std::error_code ec;
  fs::create_directories(data_dir / ".backup", ec);
  for (auto& p : naming_problems) {
    if (!p.value("fixable", false)) continue;
    std::string from = p.value("file", ""), to = p.value("fix", "");
    // Both names come from the check of this folder; never leave it.
    if (from.empty() || to.empty() || from.find('/') != std::string::npos || to.find('/') != std::string::npos)
      continue;
    if (fs::exists(data_dir / to, ec))
      return Status(ErrorCode::kInvalidArgument, to + " exists already; not overwriting it with " + from);
    fs::copy_file(data_dir / from, data_dir / ".backup" / from, fs::copy_options::overwrite_existing, ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot back up " + from + ": " + ec.message());
    fs::rename(data_dir / from, data_dir / to, ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot rename " + from + ": " + ec.message());
    changes.push_back({{"renamed", from}, {"to", to}, {"backup", ".backup/" + from}});
  }
  return changes;
}

}  // namespace bioagent
