// MCP prompts: the seed's scenarios (summarise a gene family; has family X been
// studied in species Y; plan an analysis; run it; explain a run's results), each
// in English and Chinese, with arguments; and the values completion offers.
#include <algorithm>
#include <cctype>

#include "bioagent/assistant.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

struct PromptArg {
  const char* name;
  const char* description;
  bool required;
};

struct Scenario {
  const char* name;
  const char* title;
  const char* description;
  std::vector<PromptArg> args;
  const char* en;  // {family}, {species}, {run} are replaced by the arguments
  const char* zh;
};

const PromptArg kFamily{"family", "Gene family, e.g. SPL, WRKY, NAC (English or Chinese name)", true};
const PromptArg kSpecies{"species", "Species: prefix (Lchi), Latin name or common name (荔枝)", true};
const PromptArg kLanguage{"language", "en or zh (default en)", false};
const PromptArg kRun{"run", "A gene-family run (task id, e.g. t_...)", true};

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> kScenarios = {
      {"summarize_gene_family",
       "Summarise a gene family",
       "What is known about a plant gene family: domains, members, functions, regulators.",
       {kFamily, kLanguage},
       "Summarise the {family} gene family in plants: its conserved domain(s), typical members in Arabidopsis "
       "and rice, functions and regulators. Cite the sources you used.",
       "总结下{family}基因家族：保守结构域、拟南芥和水稻中的代表成员、功能和调控因子。请注明依据的来源。"},
      {"family_studied_in_species",
       "Has a family been studied in a species?",
       "Whether papers on a gene family in a species exist (literature search).",
       {kFamily, kSpecies, kLanguage},
       "Has the {family} gene family been studied in {species}? Search the literature and list the papers "
       "with their links; say so plainly if none were found.",
       "{species}的{family}基因家族是否有发表过相关的文章？请检索文献并列出论文及链接；没有找到就直说。"},
      {"plan_family_analysis",
       "Plan a gene-family analysis",
       "A research plan for identifying and analysing a gene family in a species' genome.",
       {kFamily, kSpecies, kLanguage},
       "I want to study the {family} gene family in {species}. Plan the analysis: the input files it needs, "
       "the stages, their parameters and how long it will take.",
       "如果我想开展{species}的{family}基因家族研究，可以吗？请规划分析：需要的输入文件、分析步骤、参数和预计耗时。"},
      {"run_family_analysis",
       "Run a gene-family analysis",
       "Start the gene-family pipeline as a task (genefamily_task_start) and follow it to the report.",
       {kFamily, kSpecies, kLanguage},
       "Run the {family} gene-family analysis on the {species} genome: start it with genefamily_task_start, "
       "follow it with genefamily_task_status or genefamily_task_result, and when it is done read the report "
       "and figures from the resource links it returns.",
       "请运行{species}的{family}基因家族分析：用 genefamily_task_start 启动，用 genefamily_task_status 或 "
       "genefamily_task_result 跟踪，完成后从返回的资源链接读取报告和图。"},
      {"explain_run_results",
       "Explain a run's results",
       "Explain a finished gene-family run: members found, classification, figures, and what failed.",
       {kRun, kLanguage},
       "Explain the results of gene-family run {run}: read bioagent://runs/{run}/status.json and the report "
       "under bioagent://runs/{run}/final/, then say how many members were found, how they group, what the "
       "figures show, and which stages failed or were skipped and why.",
       "请解读基因家族分析 {run} 的结果：读取 bioagent://runs/{run}/status.json 和 bioagent://runs/{run}/final/ "
       "下的报告，说明鉴定到多少成员、如何分组、各图说明什么，以及哪些步骤失败或跳过及其原因。"},
  };
  return kScenarios;
}

std::string fill(std::string text, const Json& args) {
  for (const char* key : {"family", "species", "run"}) {
    std::string slot = std::string("{") + key + "}";
    std::string value = args.contains(key) && args[key].is_string() ? args[key].get<std::string>() : "";
    for (size_t at = text.find(slot); at != std::string::npos; at = text.find(slot, at + value.size()))
      text.replace(at, slot.size(), value);
  }
  return text;
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Json prompt_list() {
  Json out = Json::array();
  for (auto& s : scenarios()) {
    Json args = Json::array();
    for (auto& a : s.args) args.push_back({{"name", a.name}, {"description", a.description}, {"required", a.required}});
    out.push_back({{"name", s.name}, {"title", s.title}, {"description", s.description}, {"arguments", args}});
  }
  return out;
}

Result<Json> prompt_get(const std::string& name, const Json& arguments) {
  const Json args = arguments.is_object() ? arguments : Json::object();
  for (auto& s : scenarios()) {
    if (name != s.name) continue;
    for (auto& a : s.args) {
      bool given = args.contains(a.name) && args[a.name].is_string() && !args[a.name].get<std::string>().empty();
      if (a.required && !given)
        return Status(ErrorCode::kInvalidArgument,
                      std::string("prompt ") + s.name + " needs the argument '" + a.name + "'")
            .with("field", a.name);
      if (given && args[a.name].get<std::string>().size() > 200)
        return Status(ErrorCode::kInvalidArgument, std::string("argument '") + a.name + "' is longer than 200 bytes")
            .with("field", a.name);
    }
    std::string language = args.value("language", "en");
    if (language != "en" && language != "zh")
      return Status(ErrorCode::kInvalidArgument, "language must be en or zh").with("field", "language");
    std::string text = fill(language == "zh" ? s.zh : s.en, args);
    return Json{{"description", s.description},
                {"messages", Json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})}};
  }
  return not_found("no prompt named '" + name.substr(0, 100) + "' (see prompts/list)");
}

std::vector<std::string> complete_prompt_argument(const std::string& argument, const std::string& prefix) {
  std::vector<std::string> values;
  if (argument == "language") {
    values = {"en", "zh"};
  } else if (argument == "family") {
    for (auto& f : gene_family_kb().value("families", Json::array())) {
      values.push_back(f.value("name", ""));
      if (f.contains("chinese") && f["chinese"].is_string()) values.push_back(f["chinese"]);
    }
  } else if (argument == "species") {
    for (auto& sp : species_kb().value("species", Json::array())) {
      values.push_back(sp.value("prefix", ""));
      values.push_back(sp.value("latin", ""));
      for (const char* key : {"english", "chinese"})
        for (auto& n : sp.value(key, Json::array()))
          if (n.is_string()) values.push_back(n);
    }
  }
  std::string p = lower(prefix);
  std::vector<std::string> out;
  for (auto& v : values)
    if (!v.empty() && lower(v).rfind(p, 0) == 0 && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

Result<Json> complete_request(const Json& params, RunBridge* runs, bool fixtures) {
  Json ref = params.value("ref", Json::object());
  Json arg = params.value("argument", Json::object());
  if (!ref.is_object() || !arg.is_object() || !arg.contains("name"))
    return invalid_argument("Invalid params: completion/complete needs ref and argument.name");
  std::string name = arg.value("name", ""), value = arg.value("value", "");
  std::vector<std::string> values;
  if (ref.value("type", "") == "ref/prompt") {
    values = complete_prompt_argument(name, value);
    if (fixtures && ref.value("name", "") == "test_prompt_with_arguments")
      for (const char* v : {"paris", "park", "party"})
        if (std::string(v).rfind(value, 0) == 0) values.push_back(v);
    if (name == "run" && runs) values = runs->run_ids(value);
  } else if (ref.value("type", "") == "ref/resource" && runs) {
    if (name == "run") values = runs->run_ids(value);
    Json ctx_args = params.value("context", Json::object()).value("arguments", Json::object());
    if (name == "file" && ctx_args.is_object()) values = runs->run_files(ctx_args.value("run", ""), value);
  } else if (ref.value("type", "") != "ref/resource") {
    return invalid_argument("Invalid params: ref.type must be ref/prompt or ref/resource");
  }
  size_t total = values.size();
  if (values.size() > 100) values.resize(100);
  return Json{{"completion", {{"values", values}, {"total", total}, {"hasMore", total > values.size()}}}};
}

}  // namespace bioagent::mcp
