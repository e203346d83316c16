// parse_action: one seed 001 action from a model's text (see agent.h).
#include <nlohmann/json.hpp>

#include "bioagent/agent.h"
#include "bioagent/json_text.h"

namespace bioagent {
namespace {

std::string squash(const std::string& s) {  // case and separators do not matter for a name
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

// The canonical action name for `name`, noting a near-miss.
std::optional<std::string> match_name(const std::string& name, const std::vector<std::string>& names, bool& repaired) {
  for (auto& n : names)
    if (n == name) return n;
  for (auto& n : names)
    if (squash(n) == squash(name)) {
      repaired = true;
      return n;
    }
  return std::nullopt;
}

// Common near-misses of JSON written by models: trailing commas, Python
// literals, single-quoted strings.
std::string repair_json(const std::string& in) {
  std::string s;
  bool dq = false, sq = false, esc = false;
  const bool has_double = in.find('"') != std::string::npos;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (esc) {
      s += c;
      esc = false;
      continue;
    }
    if (c == '\\') {
      s += c;
      esc = true;
      continue;
    }
    if (!sq && c == '"') dq = !dq;
    if (!dq && !has_double && c == '\'') {
      sq = !sq;
      s += '"';
      continue;
    }
    if (!dq && !sq && c == ',') {  // drop a comma before } or ]
      size_t j = in.find_first_not_of(" \t\r\n", i + 1);
      if (j != std::string::npos && (in[j] == '}' || in[j] == ']')) continue;
    }
    if (!dq && !sq) {
      for (auto [py, js] : {std::pair{"True", "true"}, {"False", "false"}, {"None", "null"}}) {
        size_t n = std::strlen(py);
        if (in.compare(i, n, py) == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(in[i - 1]))) &&
            (i + n >= in.size() || !std::isalnum(static_cast<unsigned char>(in[i + n])))) {
          s += js;
          i += n - 1;
          c = 0;
          break;
        }
      }
      if (c == 0) continue;
    }
    s += c;
  }
  return s;
}

Json parse_json_lenient(const std::string& text, bool& repaired) {
  Json j = parse_json_bounded(text);
  if (!j.is_discarded()) return j;
  j = parse_json_bounded(repair_json(text));
  if (!j.is_discarded()) repaired = true;
  return j;
}

// The balanced {...} that starts first in `s` (strings respected), in one pass.
std::optional<std::string> first_object(const std::string& s) {
  std::vector<size_t> open;
  size_t best_start = std::string::npos, best_end = 0;
  bool str = false, esc = false;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == quote)
        str = false;
      continue;
    }
    if (c == '"' || c == '\'') {
      str = true;
      quote = c;
    } else if (c == '{') {
      open.push_back(i);
    } else if (c == '}' && !open.empty()) {
      size_t start = open.back();
      open.pop_back();
      if (start < best_start) {
        best_start = start;
        best_end = i;
      }
    }
  }
  if (best_start == std::string::npos) return std::nullopt;
  return s.substr(best_start, best_end - best_start + 1);
}

Result<ParsedAction> from_object(const Json& j, const std::vector<std::string>& names, ParsedAction base) {
  std::string name;
  Json params = Json::object();
  for (const char* k : {"action_type", "action", "name", "tool"})
    if (j.contains(k) && j[k].is_string()) {
      name = j[k];
      for (const char* p : {"parameters", "params", "arguments", "args", "action_input"})
        if (j.contains(p) && j[p].is_object()) params = j[p];
      if (params.empty())  // flat: {"action_type": X, "sql": ...}
        for (auto& [key, v] : j.items())
          if (key != k && key != "thought" && key != "reasoning") params[key] = v;
      break;
    }
  if (name.empty() && j.size() == 1 && j.begin().value().is_object()) {  // {"RetrieveFromDatabase": {...}}
    name = j.begin().key();
    params = j.begin().value();
  }
  if (name.empty())
    return invalid_argument(
        "the JSON names no action: expected {\"action_type\": \"<one of the actions>\", "
        "\"parameters\": {...}}");
  auto canon = match_name(name, names, base.repaired);
  if (!canon) {
    std::string list;
    for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return invalid_argument("unknown action '" + name + "'; the actions are: " + list);
  }
  base.name = *canon;
  base.parameters = params;
  return base;
}

// Name(key=value, ...) with Python-style literals.
std::optional<Json> parse_kwargs(const std::string& body, bool& repaired) {
  Json params = Json::object();
  size_t i = 0;
  auto skip = [&] {
    while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  };
  while (true) {
    skip();
    if (i >= body.size()) break;
    size_t eq = body.find('=', i);
    if (eq == std::string::npos) return std::nullopt;
    std::string key = body.substr(i, eq - i);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") != std::string::npos)
      return std::nullopt;
    i = eq + 1;
    skip();
    // the value runs to the next top-level comma
    size_t start = i;
    int depth = 0;
    char quote = 0;
    bool esc = false;
    for (; i < body.size(); ++i) {
      char c = body[i];
      if (quote) {
        if (esc)
          esc = false;
        else if (c == '\\')
          esc = true;
        else if (c == quote)
          quote = 0;
        continue;
      }
      if (c == '"' || c == '\'')
        quote = c;
      else if (c == '[' || c == '{' || c == '(')
        ++depth;
      else if (c == ']' || c == '}' || c == ')')
        --depth;
      else if (c == ',' && depth == 0)
        break;
    }
    std::string raw = body.substr(start, i - start);
    while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.pop_back();
    Json v = parse_json_lenient(raw, repaired);
    if (v.is_discarded()) return std::nullopt;
    params[key] = v;
    if (i < body.size()) ++i;  // the comma
  }
  return params;
}

}  // namespace

Result<ParsedAction> parse_action(const std::string& text, const std::vector<std::string>& names) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return invalid_argument("the reply is empty");
  ParsedAction base;
  // 1. a fenced block
  for (const char* fence : {"```json", "```JSON", "```"}) {
    size_t a = text.find(fence);
    if (a == std::string::npos) continue;
    size_t from = a + std::strlen(fence);
    size_t b = text.find("```", from);
    if (b == std::string::npos) continue;
    base.form = "fenced";
    std::string inner = text.substr(from, b - from);
    if (auto obj = first_object(inner)) {
      Json j = parse_json_lenient(*obj, base.repaired);
      if (j.is_object()) return from_object(j, names, base);
    }
    break;
  }
  // 2. XML-ish tags
  auto tag = [&](const std::string& t) -> std::optional<std::string> {
    size_t a = text.find("<" + t + ">");
    if (a == std::string::npos) return std::nullopt;
    a += t.size() + 2;
    size_t b = text.find("</" + t + ">", a);
    if (b == std::string::npos) return std::nullopt;
    return text.substr(a, b - a);
  };
  auto xml_name = tag("action");
  if (!xml_name) xml_name = tag("action_type");
  if (xml_name) {
    base.form = "xml";
    std::string n = *xml_name;
    n.erase(0, n.find_first_not_of(" \n\t"));
    n.erase(n.find_last_not_of(" \n\t") + 1);
    Json params = Json::object();
    auto p = tag("parameters");
    if (!p) p = tag("params");
    if (p) {
      params = parse_json_lenient(*p, base.repaired);
      if (!params.is_object()) return invalid_argument("the <parameters> of the action are not a JSON object");
    }
    return from_object(Json{{"action_type", n}, {"parameters", params}}, names, base);
  }
  // 3. a JSON object anywhere in the text
  if (auto obj = first_object(text)) {
    base.form = "json";
    Json j = parse_json_lenient(*obj, base.repaired);
    if (j.is_object()) return from_object(j, names, base);
  }
  // 4. Name(key=value, ...)
  for (auto& n : names) {
    size_t a = text.find(n + "(");
    if (a == std::string::npos) continue;
    size_t close = text.rfind(')');
    if (close == std::string::npos || close < a) break;
    base.form = "call";
    auto params = parse_kwargs(text.substr(a + n.size() + 1, close - a - n.size() - 1), base.repaired);
    if (!params) return invalid_argument("could not read the arguments of " + n + "(...); use key=value pairs");
    base.name = n;
    base.parameters = *params;
    return base;
  }
  return invalid_argument(
      "no action found; reply with one JSON object {\"action_type\": \"<action>\", \"parameters\": {...}}");
}

}  // namespace bioagent
