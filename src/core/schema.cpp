#include "bioagent/schema.h"
#include "bioagent/json_text.h"

#include <re2/re2.h>

#include <cmath>
#include <set>

namespace bioagent {
namespace {

const std::set<std::string> kKnownKeywords = {"type",
                                              "description",
                                              "title",
                                              "properties",
                                              "required",
                                              "additionalProperties",
                                              "enum",
                                              "const",
                                              "default",
                                              "minimum",
                                              "maximum",
                                              "exclusiveMinimum",
                                              "exclusiveMaximum",
                                              "minLength",
                                              "maxLength",
                                              "pattern",
                                              "items",
                                              "minItems",
                                              "maxItems",
                                              "anyOf",
                                              "examples",
                                              "format",
                                              "$schema"};
const std::set<std::string> kTypeNames = {"string", "integer", "number", "boolean", "object", "array", "null"};

Status schema_error(const std::string& where, const std::string& what) {
  return invalid_argument("schema " + where + ": " + what);
}

bool type_matches(const std::string& type, const Json& v) {
  if (type == "string") return v.is_string();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
      double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
  }
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  return false;
}

std::string child_path(const std::string& path, const std::string& key) { return path + "." + key; }

Status fail(const std::string& path, const std::string& rule, const std::string& message) {
  Status s = invalid_argument("argument '" + path + "': " + message);
  s.with("field", path).with("rule", rule);
  return s;
}

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string json_type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

Status check_schema(const Json& schema, const std::string& where, bool top) {
  if (!schema.is_object()) return schema_error(where, "must be an object");
  for (auto& [key, val] : schema.items()) {
    if (!kKnownKeywords.count(key)) return schema_error(where, "unsupported keyword '" + key + "'");
  }
  if (schema.contains("type")) {
    const Json& t = schema["type"];
    std::vector<Json> types = t.is_array() ? t.get<std::vector<Json>>() : std::vector<Json>{t};
    if (types.empty()) return schema_error(where, "'type' is empty");
    for (auto& one : types) {
      if (!one.is_string() || !kTypeNames.count(one.get<std::string>()))
        return schema_error(where, "'type' must name JSON Schema types");
    }
  }
  if (schema.contains("required")) {
    if (!schema["required"].is_array()) return schema_error(where, "'required' must be an array");
    for (auto& r : schema["required"]) {
      if (!r.is_string()) return schema_error(where, "'required' entries must be strings");
      if (!schema.contains("properties") || !schema["properties"].contains(r.get<std::string>()))
        return schema_error(where, "required property '" + r.get<std::string>() + "' is not declared");
    }
  }
  if (schema.contains("properties")) {
    if (!schema["properties"].is_object()) return schema_error(where, "'properties' must be an object");
    for (auto& [k, sub] : schema["properties"].items())
      BIOAGENT_RETURN_IF_ERROR(check_schema(sub, where + "." + k, false));
  }
  if (schema.contains("items")) BIOAGENT_RETURN_IF_ERROR(check_schema(schema["items"], where + "[]", false));
  if (schema.contains("anyOf")) {
    if (!schema["anyOf"].is_array()) return schema_error(where, "'anyOf' must be an array");
    for (auto& sub : schema["anyOf"]) BIOAGENT_RETURN_IF_ERROR(check_schema(sub, where + "|", false));
  }
  if (schema.contains("additionalProperties")) {
    const Json& ap = schema["additionalProperties"];
    if (!ap.is_boolean()) BIOAGENT_RETURN_IF_ERROR(check_schema(ap, where + ".*", false));
  }
  if (schema.contains("enum") && (!schema["enum"].is_array() || schema["enum"].empty()))
    return schema_error(where, "'enum' must be a non-empty array");
  for (const char* k : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
    if (schema.contains(k) && !schema[k].is_number())
      return schema_error(where, std::string("'") + k + "' must be a number");
  }
  for (const char* k : {"minLength", "maxLength", "minItems", "maxItems"}) {
    if (schema.contains(k) && !schema[k].is_number_unsigned() && !schema[k].is_number_integer())
      return schema_error(where, std::string("'") + k + "' must be an integer");
  }
  if (schema.contains("pattern")) {
    if (!schema["pattern"].is_string()) return schema_error(where, "'pattern' must be a string");
    RE2 re(schema["pattern"].get<std::string>(), RE2::Quiet);
    if (!re.ok()) return schema_error(where, "'pattern' does not compile: " + re.error());
  }
  if (schema.contains("default")) {
    Status s = validate(schema, schema["default"], where + ".default");
    if (!s.is_ok()) return schema_error(where, "default does not validate: " + s.message());
  }
  if (top) {
    if (schema.value("type", Json()) != "object") return schema_error(where, "parameters must be of type object");
    if (!schema.contains("properties")) return schema_error(where, "parameters need 'properties'");
    if (schema.value("additionalProperties", Json(true)) != Json(false))
      return schema_error(where, "parameters must set additionalProperties: false");
  }
  return {};
}

namespace {

Status validate_type(const Json& schema, const Json& v, const std::string& path) {
  const Json& t = schema["type"];
  bool ok = false;
  std::string expected;
  if (t.is_array()) {
    for (auto& one : t) {
      ok = ok || type_matches(one.get<std::string>(), v);
      expected += (expected.empty() ? "" : " or ") + one.get<std::string>();
    }
  } else {
    expected = t.get<std::string>();
    ok = type_matches(expected, v);
  }
  if (ok) return {};
  Status s = fail(path, "type", "expected " + expected + ", got " + json_type_name(v));
  s.with("expected", expected).with("got", json_type_name(v));
  return s;
}

// minimum, maximum, exclusiveMinimum, exclusiveMaximum.
Status validate_number(const Json& schema, const Json& v, const std::string& path) {
  double d = v.get<double>();
  auto bound = [&](const char* key, bool bad, const std::string& words) -> Status {
    Status s = fail(path, key, "must be " + words + " " + json_text(schema[key]) + ", got " + json_text(v));
    s.with("limit", schema[key]);
    return bad ? s : Status{};
  };
  if (schema.contains("minimum")) BIOAGENT_RETURN_IF_ERROR(bound("minimum", d < schema["minimum"].get<double>(), ">="));
  if (schema.contains("maximum")) BIOAGENT_RETURN_IF_ERROR(bound("maximum", d > schema["maximum"].get<double>(), "<="));
  if (schema.contains("exclusiveMinimum"))
    BIOAGENT_RETURN_IF_ERROR(bound("exclusiveMinimum", d <= schema["exclusiveMinimum"].get<double>(), ">"));
  if (schema.contains("exclusiveMaximum"))
    BIOAGENT_RETURN_IF_ERROR(bound("exclusiveMaximum", d >= schema["exclusiveMaximum"].get<double>(), "<"));
  return {};
}

// minLength and maxLength (in characters), pattern.
Status validate_string(const Json& schema, const Json& v, const std::string& path) {
  const auto& s = v.get_ref<const std::string&>();
  size_t len = utf8_length(s);
  if (schema.contains("minLength") && len < schema["minLength"].get<size_t>())
    return fail(path, "minLength", "must have at least " + json_text(schema["minLength"]) + " characters");
  if (schema.contains("maxLength") && len > schema["maxLength"].get<size_t>())
    return fail(path, "maxLength",
                "must have at most " + json_text(schema["maxLength"]) + " characters, got " + std::to_string(len));
  if (schema.contains("pattern")) {
    RE2 re(schema["pattern"].get<std::string>(), RE2::Quiet);
    if (!RE2::PartialMatch(s, re)) return fail(path, "pattern", "must match " + json_text(schema["pattern"]));
  }
  return {};
}

// minItems, maxItems, every item against items.
Status validate_array(const Json& schema, const Json& v, const std::string& path) {
  if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>())
    return fail(path, "minItems", "must have at least " + json_text(schema["minItems"]) + " items");
  if (schema.contains("maxItems") && v.size() > schema["maxItems"].get<size_t>())
    return fail(path, "maxItems", "must have at most " + json_text(schema["maxItems"]) + " items");
  if (schema.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i)
      BIOAGENT_RETURN_IF_ERROR(validate(schema["items"], v[i], path + "[" + std::to_string(i) + "]"));
  }
  return {};
}

// required, properties, additionalProperties (false: unknown keys refused, naming the known ones).
Status validate_object(const Json& schema, const Json& v, const std::string& path) {
  const Json empty = Json::object();
  const Json& props = schema.contains("properties") ? schema["properties"] : empty;
  if (schema.contains("required")) {
    for (auto& r : schema["required"]) {
      const auto& key = r.get_ref<const std::string&>();
      if (!v.contains(key)) return fail(child_path(path, key), "required", "is required but missing");
    }
  }
  for (auto& [key, val] : v.items()) {
    if (props.contains(key)) {
      BIOAGENT_RETURN_IF_ERROR(validate(props[key], val, child_path(path, key)));
      continue;
    }
    if (schema.contains("additionalProperties")) {
      const Json& ap = schema["additionalProperties"];
      if (ap == Json(false)) {
        std::string known;
        for (auto& [k, _] : props.items()) known += (known.empty() ? "" : ", ") + k;
        return fail(child_path(path, key), "additionalProperties", "unknown parameter (known: " + known + ")");
      }
      if (ap.is_object()) BIOAGENT_RETURN_IF_ERROR(validate(ap, val, child_path(path, key)));
    }
  }
  return {};
}

}  // namespace

Status validate(const Json& schema, const Json& v, const std::string& path) {
  if (schema.contains("type")) BIOAGENT_RETURN_IF_ERROR(validate_type(schema, v, path));
  if (schema.contains("anyOf")) {
    bool any = false;
    for (auto& sub : schema["anyOf"]) any = any || validate(sub, v, path).is_ok();
    if (!any) return fail(path, "anyOf", "matches none of the allowed forms");
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (auto& e : schema["enum"]) found = found || e == v;
    if (!found) {
      Status s = fail(path, "enum", "must be one of " + json_text(schema["enum"]) + ", got " + json_text(v));
      s.with("allowed", schema["enum"]);
      return s;
    }
  }
  if (schema.contains("const") && schema["const"] != v)
    return fail(path, "const", "must equal " + json_text(schema["const"]));
  if (v.is_number()) BIOAGENT_RETURN_IF_ERROR(validate_number(schema, v, path));
  if (v.is_string()) BIOAGENT_RETURN_IF_ERROR(validate_string(schema, v, path));
  if (v.is_array()) BIOAGENT_RETURN_IF_ERROR(validate_array(schema, v, path));
  if (v.is_object()) BIOAGENT_RETURN_IF_ERROR(validate_object(schema, v, path));
  return {};
}

Json apply_defaults(const Json& schema, Json value) {
  if (!value.is_object() || !schema.contains("properties")) return value;
  for (auto& [key, sub] : schema["properties"].items()) {
    if (!value.contains(key)) {
      if (sub.contains("default")) value[key] = sub["default"];
    } else if (value[key].is_object()) {
      value[key] = apply_defaults(sub, std::move(value[key]));
    }
  }
  return value;
}

}  // namespace bioagent
