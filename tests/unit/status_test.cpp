#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

using namespace bioagent;

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_EQ(s.to_string(), "ok");
  EXPECT_TRUE(s.details().empty());
}

TEST(Status, CarriesCodeMessageAndDetails) {
  Status s = invalid_argument("bad field");
  s.with("field", "args.x").with("rule", "type");
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  Json j = s.to_json();
  EXPECT_EQ(j["code"], "invalid_argument");
  EXPECT_EQ(j["message"], "bad field");
  EXPECT_EQ(j["details"]["field"], "args.x");
  EXPECT_EQ(j["details"]["rule"], "type");
}

TEST(Status, DetailsAreCopyOnWrite) {
  Status a = not_found("x");
  a.with("k", 1);
  Status b = a;
  b.with("k", 2);
  EXPECT_EQ(a.details()["k"], 1);
  EXPECT_EQ(b.details()["k"], 2);
}

TEST(Result, ValueOrStatus) {
  Result<int> good = 5;
  Result<int> bad = parse_error("nope");
  ASSERT_TRUE(good.is_ok());
  EXPECT_EQ(*good, 5);
  EXPECT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kParseError);
  EXPECT_EQ(error_code_name(ErrorCode::kResourceExhausted), "resource_exhausted");
}
