#include "bioagent/registry.h"
#include "bioagent/workspace.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bioagent/schema.h"
#include "core/embedded_configs.h"

namespace bioagent {
namespace {

// Parses one config entry into a spec, checking everything a later call relies on.
Result<ToolSpec> parse_entry(const Json& e, const std::string& family) {
  if (!e.is_object()) return invalid_argument(family + ": every tool entry must be an object");
  static const std::set<std::string> kKeys = {"name",       "type",          "description",   "parameter",
                                              "parameters", "return_schema", "test_examples", "settings",
                                              "label",      "category"};
  for (auto& [k, _] : e.items()) {
    if (!kKeys.count(k)) return invalid_argument(family + ": unknown key '" + k + "' in a tool entry");
  }
  ToolSpec s;
  if (!e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
    return invalid_argument(family + ": a tool entry has no name");
  s.name = e["name"];
  const std::string where = family + "/" + s.name;
  static const RE2 kName("^[A-Za-z][A-Za-z0-9_]{0,63}$");
  if (!RE2::FullMatch(s.name, kName))
    return invalid_argument(where + ": tool names use letters, digits and '_' (at most 64)");
  if (!e.contains("type") || !e["type"].is_string()) return invalid_argument(where + ": missing 'type'");
  s.type = e["type"];
  s.description = e.value("description", "");
  if (s.description.empty()) return invalid_argument(where + ": missing 'description'");
  s.family = family;
  // ToolUniverse spells it "parameter"; accept both spellings.
  s.parameters = e.contains("parameter") ? e["parameter"] : e.value("parameters", Json());
  BIOAGENT_RETURN_IF_ERROR(check_schema(s.parameters, where + " parameters", true));
  s.return_schema = e.value("return_schema", Json{{"type", "object"}});
  BIOAGENT_RETURN_IF_ERROR(check_schema(s.return_schema, where + " return_schema", false));
  s.test_examples = e.value("test_examples", Json::array());
  if (!s.test_examples.is_array()) return invalid_argument(where + ": 'test_examples' must be an array");
  for (auto& ex : s.test_examples) {
    Status v = validate(s.parameters, ex);
    if (!v.is_ok()) return invalid_argument(where + ": a test example does not validate: " + v.message());
  }
  s.settings = e.value("settings", Json::object());
  return s;
}

}  // namespace

ToolRegistry::ToolRegistry() = default;

void ToolRegistry::add_type(const std::string& type, ToolFn fn) { types_[type] = fn; }

Status ToolRegistry::load_config(const std::string& text, const std::string& family) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded()) return parse_error("tool config '" + family + "' is not valid JSON");
  if (doc.is_object() && doc.contains("tools")) doc = doc["tools"];
  if (!doc.is_array()) return invalid_argument("tool config '" + family + "' must be an array of tools");
  std::vector<ToolSpec> parsed;
  for (auto& e : doc) {
    auto spec = parse_entry(e, family);
    if (!spec) return spec.status();
    if (!types_.count(spec->type))
      return invalid_argument(family + "/" + spec->name + ": no implementation named '" + spec->type + "'");
    if (specs_.count(spec->name))
      return invalid_argument(family + ": tool '" + spec->name + "' is already defined by " +
                              specs_.at(spec->name).family);
    for (auto& p : parsed) {
      if (p.name == spec->name) return invalid_argument(family + ": tool '" + p.name + "' appears twice");
    }
    parsed.push_back(std::move(*spec));
  }
  for (auto& s : parsed) specs_.emplace(s.name, std::move(s));
  return {};
}

Status ToolRegistry::load_builtin() {
  for (size_t i = 0; i < embedded::kConfigsCount; ++i) {
    BIOAGENT_RETURN_IF_ERROR(load_config(embedded::kConfigs[i].text, embedded::kConfigs[i].family));
  }
  return {};
}

Status ToolRegistry::load_config_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("tool config directory '" + dir + "' does not exist");
  std::vector<fs::path> files;
  for (auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    Status s = load_config(ss.str(), f.stem().string());
    if (!s.is_ok()) return Status(s.code(), f.string() + ": " + s.message());
  }
  return {};
}

const ToolSpec* ToolRegistry::find(const std::string& name) const {
  auto it = specs_.find(name);
  return it == specs_.end() ? nullptr : &it->second;
}

std::vector<const ToolSpec*> ToolRegistry::list() const {
  std::vector<const ToolSpec*> out;
  for (auto& [_, s] : specs_) out.push_back(&s);
  return out;
}

namespace {
// The call's workspace, or null for a context made without one.
const Workspace* workspace_of(const ToolContext& ctx) {
  try {
    return &ctx.workspace();
  } catch (const std::logic_error&) {
    return nullptr;
  }
}
}  // namespace

Result<Json> ToolRegistry::call(const std::string& name, const Json& args_in, ToolContext& ctx) const {
  const ToolSpec* spec = find(name);
  if (!spec) {
    Status s = not_found("unknown tool '" + name + "'; `bioagent tools list` shows the available tools");
    s.with("tool", name);
    return s;
  }
  const Json args_obj = args_in.is_null() ? Json::object() : args_in;
  Status v = validate(spec->parameters, args_obj);
  if (!v.is_ok()) {
    v.with("tool", name);
    return v;
  }
  Json args = apply_defaults(spec->parameters, args_obj);
  try {
    Result<Json> r = types_.at(spec->type)(*spec, args, ctx);
    const Workspace* ws = workspace_of(ctx);
    if (!r.is_ok()) {
      Status s = ws ? ws->scrub(r.status()) : r.status();  // a server's paths stay out of refusals
      if (!s.details().contains("tool")) s.with("tool", name);
      return s;
    }
    if (ws && r->is_object())
      for (const char* key : {"message", "note", "error"})
        if (r->contains(key) && (*r)[key].is_string()) (*r)[key] = ws->scrub((*r)[key].get<std::string>());
    return r;
  } catch (const std::exception& ex) {  // firewall: a tool bug never crashes the caller
    Status s = internal_error("tool '" + name + "' failed unexpectedly: " + ex.what());
    s.with("tool", name);
    return s;
  }
}

Json ToolRegistry::call_envelope(const std::string& name, const Json& args, ToolContext& ctx) const {
  auto r = call(name, args, ctx);
  return r.is_ok() ? success_envelope(std::move(r).value()) : error_envelope(r.status());
}

Json ToolRegistry::spec_json(const ToolSpec& s) const {
  return {{"name", s.name},
          {"type", s.type},
          {"family", s.family},
          {"description", s.description},
          {"parameters", s.parameters},
          {"return_schema", s.return_schema},
          {"test_examples", s.test_examples}};
}

Json ToolRegistry::openai_function(const ToolSpec& s) const {
  return {{"type", "function"},
          {"function", {{"name", s.name}, {"description", s.description}, {"parameters", s.parameters}}}};
}

Json ToolRegistry::mcp_tool(const ToolSpec& s) const {
  Json t = {{"name", s.name}, {"description", s.description}, {"inputSchema", s.parameters}};
  // structuredContent must be an object; tools whose data is not an object get
  // it wrapped as {"result": data}, so the advertised schema is wrapped too.
  if (s.return_schema.value("type", Json()) == "object") {
    t["outputSchema"] = s.return_schema;
  } else {
    t["outputSchema"] = {
        {"type", "object"}, {"properties", {{"result", s.return_schema}}}, {"required", Json::array({"result"})}};
  }
  return t;
}

Json success_envelope(Json data) {
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(2);  // growing would copy `data` (see notebook.cpp)
  out["status"] = "success";
  out["data"] = std::move(data);
  return out;
}

Json error_envelope(const Status& status) { return {{"status", "error"}, {"error", status.to_json()}}; }

}  // namespace bioagent
