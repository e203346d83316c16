#include "genefamily/stages/report_methods.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"

namespace bioagent::gf {
namespace {

// A parameter's value as printed: a path by its file name only (the run and
// data folders name a session), an empty text as "" and anything else as JSON.
std::string value_text(const Json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return s.empty() ? "\"\"" : s[0] == '/' ? fs::path(s).filename().string() : s;
  }
  if (v.is_array()) {
    std::string out;
    for (auto& x : v) out += (out.empty() ? "" : ", ") + value_text(x);
    return "[" + out + "]";
  }
  return json_text(v);
}

// The version number in a program's version line: its first word with a dot and a digit ("HMMER 3.3.2 (Nov 2020); ..."
// -> 3.3.2, "YN00 in paml version 4.9j, ..." -> 4.9j); the whole line stays in the methods table.
std::string version_number(const std::string& line) {
  std::istringstream words(line.substr(0, line.find('\n')));
  for (std::string w; words >> w;) {
    while (!w.empty() && (w.back() == ',' || w.back() == ';' || w.back() == ':')) w.pop_back();
    if (w.find('.') != std::string::npos && std::any_of(w.begin(), w.end(), ::isdigit)) return w;
  }
  return "";
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "program version; program version" from the record's versions (the first line of each), for the
// programs the stage ran only (all of them when the run holds no command of the stage: a result
// reused from a cache).
std::string versions_text(const Json& versions, const std::set<std::string>& ran, Lang lang) {
  std::string out;
  for (auto& [program, version] : versions.items()) {
    if (!ran.empty() && !ran.count(lower(program))) continue;
    const std::string v = version_number(version.is_string() ? version.get<std::string>() : json_text(version));
    out += (out.empty() ? "" : "; ") + program + " " +
           (v.empty() ? BiText{"(version unknown)", "（版本未知）"}.in(lang) : v);
  }
  return out;
}

bool empty_value(const Json& params, const char* key) {
  const Json v = params.value(key, Json());
  if (v.is_string()) return v.get<std::string>().empty();  // Json::empty() is false for any string
  return v.is_null() || ((v.is_array() || v.is_object()) && v.empty());
}

}  // namespace

std::set<std::string> parameters_not_used(const std::string& stage, const Json& params, const Json& summary) {
  std::set<std::string> out;
  auto drop = [&](std::initializer_list<const char*> keys) { out.insert(keys.begin(), keys.end()); };
  if (stage == "phylogeny") {
    // The summary says what ran: FastTree (by choice, above fasttree_above or as a repair) or IQ-TREE with
    // ModelFinder or with a fixed model.
    const bool fasttree = summary.value("method", std::string()) == "FastTree" ||
                          (summary.empty() && params.value("method", std::string()) == "fasttree");
    const std::string selection = summary.value("model_selection", std::string());
    if (fasttree) drop({"model", "model_set", "rate_set", "max_rate_categories", "bootstrap"});
    if (!fasttree && selection.rfind("fixed", 0) == 0) drop({"model_set", "rate_set", "max_rate_categories"});
    if (params.value("method", std::string()) == "fasttree") drop({"fasttree_above"});
    if (!empty_value(params, "references") || !params.value("fetch_references", true))
      drop({"uniprot_url", "max_references"});
    if (!empty_value(params, "references")) drop({"fetch_references"});
    if (empty_value(params, "reference_groups")) drop({"reference_groups"});
  } else if (stage == "identify") {
    if (empty_value(params, "blast_references")) drop({"blast_references", "blast_evalue"});
    if (empty_value(params, "pfam")) drop({"pfam", "interpro_url"});
    if (empty_value(params, "hmm_from_references")) drop({"hmm_from_references"});
  } else if (stage == "promoter") {
    if (empty_value(params, "pwm_meme")) drop({"pwm_meme", "pwm_pvalue", "pwm_qvalue"});
  } else if (stage == "expression") {
    if (empty_value(params, "reads"))
      drop({"reads", "transcripts", "kmer"});
    else
      drop({"matrix", "units"});  // salmon's TPM: the matrix and its units are the ones salmon wrote
  } else if (stage == "synteny") {
    if (empty_value(params, "comparative")) drop({"comparative"});
  } else if (stage == "ppi") {
    if (empty_value(params, "orthologs")) drop({"orthologs", "string_url", "min_score"});
  }
  return out;
}

std::vector<std::string> methods_narrative(const StageContext& ctx, const std::vector<Json>& history, Lang lang,
                                           std::vector<std::string>* cited) {
  std::vector<std::string> order;                    // the works cited, in the order first cited
  std::map<std::string, std::set<std::string>> ran;  // stage -> programs its commands ran (lower case)
  for (auto& a : history)
    if (a["argv"].is_array() && !a["argv"].empty() && a["argv"][0].is_string())
      ran[a.value("stage", std::string())].insert(lower(fs::path(a["argv"][0].get<std::string>()).filename().string()));
  std::vector<std::string> out;
  for (auto& spec : genefamily_pipeline().stages()) {  // in plan order
    auto folder = ctx.input.find(spec.name);
    if (folder == ctx.input.end()) continue;
    const Json record = read_json_or(folder->second / ".complete");
    if (record.empty()) continue;
    std::string params;
    const Json given = record.value("params", Json::object());  // kept alive: items() refers to it
    const Json summary = read_json_or(folder->second / (spec.name + ".json"));
    const auto unused = parameters_not_used(spec.name, given, summary);
    for (auto& [k, v] : given.items())
      if (!unused.count(k)) params += (params.empty() ? "" : ", ") + k + " = " + value_text(v);
    const Json programs = record.value("versions", Json::object());
    const std::string versions = versions_text(programs, ran[spec.name], lang);
    const std::string label = lang == Lang::kZh && !spec.label_zh.empty() ? spec.label_zh : spec.label;
    std::string line = BiText{label + " (" + spec.name + "): ", label + "（" + spec.name + "）："}.in(lang);
    line += versions.empty() ? BiText{"implemented in bioagent", "本程序内实现"}.in(lang)
                             : BiText{"ran ", "程序 "}.in(lang) + versions;
    if (!params.empty()) line += BiText{"; parameters ", "；参数 "}.in(lang) + params;
    std::string numbers;
    // A result reused from a cache ran no command here; the programs that made it are cited all the same.
    std::set<std::string> made_by = ran[spec.name];
    if (made_by.empty())
      for (auto& [program, version] : programs.items()) made_by.insert(lower(program));
    for (auto& key : stage_citations(spec.name, made_by, summary)) {
      auto at = std::find(order.begin(), order.end(), key);
      if (at == order.end()) at = order.insert(order.end(), key);
      numbers += (numbers.empty() ? "" : ", ") + std::to_string(at - order.begin() + 1);
    }
    out.push_back(line + (numbers.empty() ? "" : " [" + numbers + "]") + BiText{".", "。"}.in(lang));
  }
  if (cited) *cited = order;
  return out;
}

}  // namespace bioagent::gf
