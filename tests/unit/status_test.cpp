#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bioagent/digest.h"
#include "bioagent/status.h"
#include "test_util.h"

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

// SHA-256 (OpenSSL) gives the standard digests, of bytes and of files alike.
TEST(Digest, Sha256KnownValues) {
  EXPECT_EQ(bioagent::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(bioagent::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  bioagent::testing::TempDir dir;
  std::string big(3u << 20, 'x');  // several read buffers
  auto p = dir.write("f.bin", big);
  auto f = bioagent::file_sha256(p);
  ASSERT_TRUE(f.is_ok());
  EXPECT_EQ(*f, bioagent::sha256_hex(big));
  EXPECT_EQ(bioagent::file_sha256(dir.path() / "missing").status().code(), bioagent::ErrorCode::kNotFound);
}
