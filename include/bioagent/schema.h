// A strict JSON Schema subset used for tool parameters and return values:
// type (incl. unions like ["string","null"]), properties, required (array),
// additionalProperties, enum, const, default, minimum/maximum (+exclusive),
// minLength/maxLength, pattern, items, minItems/maxItems, anyOf, description.
// Unknown keywords are rejected when a schema is loaded so a typo never
// silently disables a check. Pure functions; thread-safe.
#pragma once

#include <string>

#include "bioagent/tool.h"

namespace bioagent {

// Checks that `schema` itself only uses supported keywords, well-typed.
// `top_level_parameters` additionally requires an object schema with
// additionalProperties:false and `required` as an array.
Status check_schema(const Json& schema, const std::string& where, bool top_level_parameters);

// Validates `value`. The error names the field (dotted path, "args.limit"),
// the rule broken and what was expected; details carry {field, rule, ...}.
Status validate(const Json& schema, const Json& value, const std::string& path = "args");

// Returns `value` with defaults from `schema` filled in for absent properties
// (recursively for nested objects).
Json apply_defaults(const Json& schema, Json value);

// "integer", "string", ... as JSON Schema names the type of a JSON value.
std::string json_type_name(const Json& value);

}  // namespace bioagent
