#include <gtest/gtest.h>

#include "bioagent/schema.h"

using namespace bioagent;

namespace {

Json params() {
  return Json::parse(R"({
    "type": "object",
    "properties": {
      "query": {"type": "string", "minLength": 1, "maxLength": 20},
      "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
      "mode": {"type": "string", "enum": ["fast", "exact"], "default": "fast"},
      "path": {"type": ["string", "null"]},
      "ids": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
      "opts": {"type": "object", "properties": {"deep": {"type": "boolean", "default": false}},
               "additionalProperties": false}
    },
    "required": ["query"],
    "additionalProperties": false
  })");
}

std::string field_of(const Status& s) { return s.details().value("field", ""); }
std::string rule_of(const Status& s) { return s.details().value("rule", ""); }

}  // namespace

TEST(Schema, AcceptsAStrictParameterSchema) { EXPECT_TRUE(check_schema(params(), "t", true).is_ok()); }

TEST(Schema, RejectsUnknownKeywordsAndLooseTopLevel) {
  Json typo = params();
  typo["properties"]["limit"]["maximun"] = 3;
  Status s = check_schema(typo, "t", true);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("maximun"), std::string::npos);

  Json loose = params();
  loose.erase("additionalProperties");
  EXPECT_FALSE(check_schema(loose, "t", true).is_ok());

  Json req = params();
  req["required"] = "query";
  EXPECT_NE(check_schema(req, "t", true).message().find("array"), std::string::npos);

  Json undeclared = params();
  undeclared["required"] = Json::array({"nope"});
  EXPECT_FALSE(check_schema(undeclared, "t", true).is_ok());

  Json bad_default = params();
  bad_default["properties"]["limit"]["default"] = 500;
  EXPECT_FALSE(check_schema(bad_default, "t", true).is_ok());
}

TEST(Schema, ValidArgumentsPass) {
  EXPECT_TRUE(validate(params(), Json::parse(R"({"query":"spl","limit":10,"path":null,"ids":[1,2]})")).is_ok());
  EXPECT_TRUE(validate(params(), Json::parse(R"({"query":"spl","limit":3.0})")).is_ok()) << "3.0 is an integer";
}

TEST(Schema, EachRuleNamesTheFieldAndTheRule) {
  struct Case {
    const char* args;
    const char* field;
    const char* rule;
  } cases[] = {
      {R"({})", "args.query", "required"},
      {R"({"query": 5})", "args.query", "type"},
      {R"({"query": ""})", "args.query", "minLength"},
      {R"({"query": "aaaaaaaaaaaaaaaaaaaaaaaaa"})", "args.query", "maxLength"},
      {R"({"query": "x", "limit": 0})", "args.limit", "minimum"},
      {R"({"query": "x", "limit": 51})", "args.limit", "maximum"},
      {R"({"query": "x", "limit": 2.5})", "args.limit", "type"},
      {R"({"query": "x", "mode": "slow"})", "args.mode", "enum"},
      {R"({"query": "x", "extra": 1})", "args.extra", "additionalProperties"},
      {R"({"query": "x", "ids": [1, "a"]})", "args.ids[1]", "type"},
      {R"({"query": "x", "ids": [1, 2, 3, 4]})", "args.ids", "maxItems"},
      {R"({"query": "x", "opts": {"deeep": true}})", "args.opts.deeep", "additionalProperties"},
      {R"({"query": "x", "path": 3})", "args.path", "type"},
  };
  for (const auto& c : cases) {
    Status s = validate(params(), Json::parse(c.args));
    ASSERT_FALSE(s.is_ok()) << c.args;
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(field_of(s), c.field) << c.args << " -> " << s.message();
    EXPECT_EQ(rule_of(s), c.rule) << c.args << " -> " << s.message();
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s.message();
  }
}

TEST(Schema, UnknownParameterListsTheKnownOnes) {
  Status s = validate(params(), Json::parse(R"({"query": "x", "qeury": "y"})"));
  EXPECT_NE(s.message().find("known: query, limit"), std::string::npos) << s.message();
}

TEST(Schema, DefaultsAreApplied) {
  Json out = apply_defaults(params(), Json::parse(R"({"query":"x","opts":{}})"));
  EXPECT_EQ(out["limit"], 5);
  EXPECT_EQ(out["mode"], "fast");
  EXPECT_EQ(out["opts"]["deep"], false);
  EXPECT_FALSE(out.contains("path"));
  Json kept = apply_defaults(params(), Json::parse(R"({"query":"x","limit":9})"));
  EXPECT_EQ(kept["limit"], 9);
}

TEST(Schema, PatternAndAnyOf) {
  Json s = Json::parse(R"({"type":"object","properties":{
      "id": {"type":"string","pattern":"^PF[0-9]{5}$"},
      "v": {"anyOf":[{"type":"integer"},{"type":"string","enum":["auto"]}]}},
      "required":[],"additionalProperties":false})");
  ASSERT_TRUE(check_schema(s, "t", true).is_ok());
  EXPECT_TRUE(validate(s, Json::parse(R"({"id":"PF03110","v":"auto"})")).is_ok());
  EXPECT_EQ(rule_of(validate(s, Json::parse(R"({"id":"PF3110"})"))), "pattern");
  EXPECT_EQ(rule_of(validate(s, Json::parse(R"({"v":"manual"})"))), "anyOf");
  Json bad = s;
  bad["properties"]["id"]["pattern"] = "([";
  EXPECT_FALSE(check_schema(bad, "t", true).is_ok());
}
