// The one-place rules of docs/architecture.md (where new things go), checked on the tables
// themselves: every stage row is complete, every intent has its row, and stage
// names are not used as keys outside the stage files. Each rule is also shown to
// fail on a planted violation, so a rule that stops checking is noticed.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "assistant/intents.h"
#include "bioagent/assistant.h"
#include "bioagent/genefamily.h"

using namespace bioagent;

namespace {

// Each stage has both labels, every repair of its row its texts in both languages (a Chinese session shows
// them) and, the report itself aside, a report section.
std::vector<std::string> stage_row_violations(const std::vector<StageSpec>& stages) {
  std::vector<std::string> out;
  std::set<std::string> names;
  for (auto& s : stages) {
    if (!names.insert(s.name).second) out.push_back(s.name + ": two rows");
    if (s.label.empty() || s.label_zh.empty()) out.push_back(s.name + ": a label is missing");
    for (auto& r : s.repairs)
      if (r.description_zh.empty() || r.prevention_zh.empty() || r.root_cause_zh.empty() || r.root_cause.empty())
        out.push_back(s.name + ": repair " + r.key + " lacks a text in one language");
    if (s.name != "report" && !s.report) out.push_back(s.name + ": no report section");
    if (!s.params_schema.is_object() || !s.params_schema.contains("properties"))
      out.push_back(s.name + ": no parameter schema");
  }
  return out;
}

// Each intent of the enum has exactly one row, with a name, a description, what it rests on (the
// model's routing prompt states it) and a handler.
std::vector<std::string> intent_row_violations(const std::vector<IntentSpec>& rows) {
  std::vector<std::string> out;
  const Intent all[] = {Intent::kFaq,          Intent::kLiterature, Intent::kAnalysis, Intent::kExecute,
                        Intent::kPlanQuestion, Intent::kDecline,    Intent::kStop,     Intent::kResume,
                        Intent::kData,         Intent::kPaper,      Intent::kChitchat};
  for (Intent i : all) {
    int n = 0;
    for (auto& r : rows) n += r.intent == i;
    if (n != 1) out.push_back(to_string(i) + ": " + std::to_string(n) + " rows");
  }
  for (auto& r : rows) {
    const std::string name = r.name ? r.name : "";
    if (name.empty() || name != to_string(r.intent)) out.push_back("a row whose name is not its intent's");
    if (!r.description || !*r.description) out.push_back(name + ": no description");
    if (!r.handler) out.push_back(name + ": no handler");
    if (!r.rests_on || !*r.rests_on) out.push_back(name + ": does not say what it rests on");
  }
  return out;
}

// A stage name used as a key into stage parameters or as a stage reference —
// `["identify"]` or `{"stage", "identify"}` — in a source text. "properties" is
// left out of the `[...]` form: it is also JSON Schema's keyword.
std::vector<std::string> stage_key_literals(const std::string& text, const std::vector<StageSpec>& stages) {
  std::vector<std::string> out;
  for (auto& s : stages) {
    std::vector<std::string> forms = {"{\"stage\", \"" + s.name + "\"}"};
    if (s.name != "properties") forms.push_back("[\"" + s.name + "\"]");
    for (auto& f : forms)
      for (size_t p = text.find(f); p != std::string::npos; p = text.find(f, p + 1)) out.push_back(f);
  }
  return out;
}

// Each dialog parameter names a property of its own stage's schema, with a default and both labels, and no two
// stages offer the same key (the dialog's values are keyed by it alone).
std::vector<std::string> dialog_violations(const std::vector<StageSpec>& stages) {
  std::vector<std::string> out;
  std::set<std::string> keys;
  for (auto& s : stages)
    for (auto& d : s.dialog) {
      if (!keys.insert(d.key).second) out.push_back(d.key + ": offered by two stages");
      const Json& props = s.params_schema.value("properties", Json::object());
      if (!props.contains(d.key) || !props[d.key].contains("default"))
        out.push_back(s.name + "." + d.key + ": not a property with a default in its schema");
      if (d.label.en.empty() || d.label.zh.empty()) out.push_back(s.name + "." + d.key + ": a label is missing");
    }
  return out;
}

// Chinese labels of the server's tables (stages, stage and task states, dialog fields) written in a web
// source: the page must take them from /api/config, not keep a copy that drifts.
std::vector<std::string> copied_labels(const std::string& text, const std::vector<StageSpec>& stages) {
  std::set<std::string> labels;
  for (auto& s : stages) {
    labels.insert(s.label_zh);
    for (auto& d : s.dialog) labels.emplace(d.label.zh);
  }
  for (StageState s : all_stage_states()) labels.emplace(label_of(s).zh);
  for (TaskState s : all_task_states()) labels.emplace(label_of(s).zh);
  std::vector<std::string> out;
  for (auto& l : labels)
    if (!l.empty() && text.find("'" + l + "'") != std::string::npos) out.push_back(l);
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(TableGuard, DialogFieldsAreTheirStagesSchemaProperties) {
  const auto& stages = genefamily_pipeline().stages();
  EXPECT_EQ(dialog_violations(stages), std::vector<std::string>{});
  EXPECT_GE(genefamily_pipeline().dialog_fields().size(), 3u);  // the seed's E-value and hits, the tree method
  auto planted = stages;
  planted[0].dialog.push_back({"no_such_key", {"x", "x"}});
  planted[1].dialog.push_back(stages[0].dialog.empty() ? DialogParam{"evalue", {"E", ""}} : stages[0].dialog[0]);
  for (auto& s : stages)
    if (!s.dialog.empty()) planted.back().dialog.push_back({s.dialog[0].key, {"", ""}});
  EXPECT_GE(dialog_violations(planted).size(), 3u);
}

TEST(TableGuard, TheWebPageKeepsNoCopyOfTheServersLabels) {
  const auto& stages = genefamily_pipeline().stages();
  const fs::path web = fs::path(BIOAGENT_SOURCE_DIR) / "web" / "src";
  for (auto& e : fs::directory_iterator(web)) {
    if (e.path().extension() != ".ts") continue;
    EXPECT_EQ(copied_labels(read_text(e.path()), stages), std::vector<std::string>{}) << e.path();
  }
  EXPECT_EQ(copied_labels("const names = { done: '完成', checking: '检查文件' };", stages).size(), 2u);
}

TEST(TableGuard, EveryStageRowHasBothLabelsBilingualRepairsAReportSectionAndASchema) {
  const auto& stages = genefamily_pipeline().stages();
  EXPECT_EQ(stage_row_violations(stages), std::vector<std::string>{});
  auto planted = stages;
  planted[1].label_zh.clear();
  planted[2].report = nullptr;
  planted.push_back(stages[0]);
  for (auto& st : planted)
    if (!st.repairs.empty()) {
      st.repairs[0].root_cause_zh.clear();
      break;
    }
  EXPECT_EQ(stage_row_violations(planted).size(), 4u);
}

TEST(TableGuard, EveryIntentHasOneRowSayingWhatItRestsOnAndAHandler) {
  EXPECT_EQ(intent_row_violations(intent_table()), std::vector<std::string>{});
  auto planted = intent_table();
  planted[0].rests_on = "";
  planted[1].handler = nullptr;
  planted.pop_back();
  EXPECT_EQ(intent_row_violations(planted).size(), 3u);
}

TEST(TableGuard, StageNamesAreKeysOnlyInsideTheStageFiles) {
  const auto& stages = genefamily_pipeline().stages();
  const fs::path src = fs::path(BIOAGENT_SOURCE_DIR) / "src";
  const fs::path own = src / "genefamily" / "stages";
  std::multiset<std::string> found;
  for (auto& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file() || e.path().string().rfind(own.string(), 0) == 0) continue;
    auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    for (auto& f : stage_key_literals(read_text(e.path()), stages))
      found.insert(fs::relative(e.path(), src).string() + " " + f);
  }
  for (auto& f : found) ADD_FAILURE() << "a stage name used as a key outside stages/: " << f;
  EXPECT_EQ(stage_key_literals("p[\"kaks\"][\"x\"] = 1; ev = {{\"stage\", \"motif\"}};", stages).size(), 2u);
  EXPECT_TRUE(stage_key_literals("schema[\"properties\"]", stages).empty());
}
