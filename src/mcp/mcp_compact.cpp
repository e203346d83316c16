// Compact tool mode: four meta-tools stand in for the whole registry, so a
// host's context holds a few hundred tokens of tool definitions instead of the
// full list. Tool search is BM25 (k1 1.2, b 0.75) over each tool's text.
#include <algorithm>
#include <cmath>

#include "bioagent/json_text.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

// Chinese words for each tool family (the configs' descriptions are English).
const std::map<std::string, std::string>& family_keywords() {
  static const std::map<std::string, std::string> kWords = {
      {"literature_tools", "文献 论文 检索 搜索 发表 临床试验 预印本 摘要 引用"},
      {"paper_tools", "论文 数据库 页面 图片 图像 表格 检索 问答 向量"},
      {"calculator_tools", "计算 计算器 表达式 数学 公式"},
      {"executed_notebook_tools", "笔记本 代码 单元格 结果"},
      {"taijichat_data_tools", "数据 转录因子 表格 相关性 图片 文件 细胞"},
  };
  return kWords;
}

bool is_cjk_start(unsigned char c) { return c >= 0xE3 && c <= 0xE9; }  // U+3000..U+9FFF as UTF-8 lead bytes

void add_word(std::vector<std::string>& out, std::string w) {
  // Split snake_case and camelCase into parts, keep the whole word too.
  std::string part;
  auto flush = [&] {
    if (part.size() > 1 && part != w) out.push_back(part);
    part.clear();
  };
  std::string lower;
  for (size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    if (c == '_' || c == '-' || c == '.') {
      flush();
      continue;
    }
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 && std::islower(static_cast<unsigned char>(w[i - 1])))
      flush();
    part.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  }
  flush();
  if (lower.size() > 1) out.push_back(lower);
}

}  // namespace

std::vector<std::string> search_terms(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  std::vector<std::string> cjk;  // consecutive CJK characters
  auto flush_cjk = [&] {
    for (size_t i = 0; i < cjk.size(); ++i) {
      out.push_back(cjk[i]);
      if (i + 1 < cjk.size()) out.push_back(cjk[i] + cjk[i + 1]);
    }
    cjk.clear();
  };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (is_cjk_start(c) && i + 2 < text.size()) {
      if (!word.empty()) add_word(out, std::exchange(word, ""));
      cjk.push_back(text.substr(i, 3));
      i += 3;
      continue;
    }
    flush_cjk();
    if (std::isalnum(c) || c == '_' || c == '-') {
      word.push_back(char(c));
    } else if (!word.empty()) {
      add_word(out, std::exchange(word, ""));
    }
    i += c >= 0x80 ? (c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1) : 1;
  }
  flush_cjk();
  if (!word.empty()) add_word(out, word);
  return out;
}

ToolSearch::ToolSearch(const ToolRegistry& registry) {
  size_t total = 0;
  for (const ToolSpec* spec : registry.list()) {
    std::string text = spec->name + " " + spec->name + " " + spec->description + " " + spec->family;
    auto kw = family_keywords().find(spec->family);
    if (kw != family_keywords().end()) text += " " + kw->second;
    if (spec->parameters.contains("properties") && spec->parameters["properties"].is_object())
      for (auto& [pname, p] : spec->parameters["properties"].items())
        text += " " + pname + " " + (p.is_object() ? p.value("description", "") : "");
    Doc d{spec, {}, 0};
    for (auto& t : search_terms(text)) {
      ++d.tf[t];
      ++d.length;
    }
    for (auto& [t, n] : d.tf) ++df_[t];
    total += d.length;
    docs_.push_back(std::move(d));
  }
  if (!docs_.empty()) avg_length_ = std::max(1.0, double(total) / double(docs_.size()));
}

std::vector<std::pair<const ToolSpec*, double>> ToolSearch::search(const std::string& query, size_t limit) const {
  const double k1 = 1.2, b = 0.75, n = double(docs_.size());
  std::vector<std::string> terms = search_terms(query);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  std::vector<std::pair<const ToolSpec*, double>> scored;
  for (auto& d : docs_) {
    double score = 0;
    for (auto& t : terms) {
      auto tf = d.tf.find(t);
      if (tf == d.tf.end()) continue;
      double df = df_.at(t);
      double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
      double f = tf->second;
      score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * double(d.length) / avg_length_));
    }
    if (score > 0) scored.push_back({d.spec, score});
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& x, auto& y) { return x.second > y.second; });
  if (scored.size() > limit) scored.resize(limit);
  return scored;
}

bool is_compact_tool(const std::string& name) {
  return name == "list_tool_categories" || name == "search_tools" || name == "describe_tool" || name == "call_tool";
}

Result<Json> call_compact_tool(const ToolRegistry& registry, const ToolSearch& search, const std::string& name,
                               const Json& arguments, ToolContext& ctx) {
  const Json args = arguments.is_object() ? arguments : Json::object();
  auto text_arg = [&](const char* key) -> Result<std::string> {
    if (!args.contains(key) || !args[key].is_string() || args[key].get<std::string>().empty())
      return Status(ErrorCode::kInvalidArgument, std::string("'") + key + "' must be a non-empty string")
          .with("field", key);
    return args[key].get<std::string>();
  };
  if (name == "list_tool_categories") {
    std::map<std::string, Json> families;
    for (const ToolSpec* s : registry.list()) {
      Json& f = families[s->family.empty() ? "other" : s->family];
      if (f.is_null()) f = Json::array();
      f.push_back(s->name);
    }
    Json out = Json::array();
    for (auto& [family, names] : families)
      out.push_back({{"category", family}, {"count", names.size()}, {"tools", names}});
    return Json{{"categories", out}, {"total_tools", registry.size()}};
  }
  if (name == "search_tools") {
    auto q = text_arg("query");
    if (!q) return q.status();
    int64_t limit = args.contains("limit") && args["limit"].is_number_integer() ? args["limit"].get<int64_t>() : 8;
    Json hits = Json::array();
    for (auto& [spec, score] : search.search(*q, size_t(std::clamp<int64_t>(limit, 1, 50))))
      hits.push_back({{"name", spec->name},
                      {"category", spec->family},
                      {"score", std::round(score * 1000) / 1000},
                      {"description", spec->description.substr(0, 300)}});
    return Json{{"query", *q}, {"tools", hits}, {"count", hits.size()}};
  }
  auto tool = text_arg("name");
  if (!tool) return tool.status();
  const ToolSpec* spec = registry.find(*tool);
  if (!spec) return not_found("no tool named '" + tool->substr(0, 100) + "' (use search_tools)");
  if (name == "describe_tool") return registry.mcp_tool(*spec);
  Json inner = args.value("arguments", Json::object());
  return registry.call(*tool, inner.is_null() ? Json::object() : inner, ctx);
}

}  // namespace bioagent::mcp

namespace bioagent {

Json mcp_compact_tools() {
  Json str = {{"type", "string"}};
  return Json::array(
      {{{"name", "list_tool_categories"},
        {"description", "List the tool categories (families) with their tool counts and names."},
        {"inputSchema", {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}}}},
       {{"name", "search_tools"},
        {"description",
         "Find tools by words (English or Chinese), best first: name, description and parameters are searched."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"query", {{"type", "string"}, {"maxLength", 500}}},
            {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}}}},
          {"required", {"query"}},
          {"additionalProperties", false}}}},
       {{"name", "describe_tool"},
        {"description", "The full definition of one tool: description and JSON Schema of its arguments."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"name", str}}},
          {"required", {"name"}},
          {"additionalProperties", false}}}},
       {{"name", "call_tool"},
        {"description", "Call one tool by name with its arguments (see describe_tool for the schema)."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"name", str}, {"arguments", {{"type", "object"}}}}},
          {"required", {"name"}},
          {"additionalProperties", false}}}}});
}

Json openai_compact_functions() {
  Json out = Json::array();
  for (auto& t : mcp_compact_tools())
    out.push_back(
        {{"type", "function"},
         {"function", {{"name", t["name"]}, {"description", t["description"]}, {"parameters", t["inputSchema"]}}}});
  return out;
}

}  // namespace bioagent
