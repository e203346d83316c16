#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"

using namespace bioagent;

TEST(JsonText, SameTextAsNlohmannForValidInput) {
  Json v = Json::parse(R"({"b": [1, -2, 3.5, 1e16, 0.1, true, false, null, "x\"y\\z\n\t\u0001é😀"],
                           "a": {"nested": {"empty_obj": {}, "empty_arr": []}}, "big": 18446744073709551615,
                           "neg": -9223372036854775808, "f": 2.0, "tiny": 5e-324})");
  EXPECT_EQ(json_text(v), v.dump());
  EXPECT_EQ(json_text(v, 2), v.dump(2));
  EXPECT_EQ(json_text(v, 0), v.dump(0));
  EXPECT_EQ(json_text(Json("plain")), "\"plain\"");
}

TEST(JsonText, RoundTripsThroughAParser) {
  Json v = {{"cells", Json::array()}, {"text", std::string(1000, 'a') + "\x1f" + "b"}};
  for (int i = 0; i < 50; ++i) v["cells"].push_back({{"idx", i}, {"v", i * 0.25}});
  EXPECT_EQ(Json::parse(json_text(v, 2)), v);
}

TEST(JsonText, InvalidUtf8IsReplacedNotThrown) {
  Json v = std::string("ok\xff\xfe then \xc3\x28 and \xed\xa0\x80 end");
  std::string out = json_text(v);
  EXPECT_EQ(out, "\"ok\xEF\xBF\xBD\xEF\xBF\xBD then \xEF\xBF\xBD( and \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD end\"");
  EXPECT_NO_THROW(Json::parse(out));
}

TEST(JsonText, NonFiniteNumbersBecomeNull) {
  Json v = Json::array({std::nan(""), INFINITY});
  EXPECT_EQ(json_text(v), "[null,null]");
}

// Every cut of text of 1-, 2-, 3- and 4-byte characters keeps whole characters: the prefix is valid UTF-8
// (nlohmann's dump does not throw on it) and as long as it can be within the limit.
TEST(Utf8Prefix, EveryCutKeepsWholeCharacters) {
  const std::string text = "a\xC3\xA9\xE5\x95\x8A\xF0\x9F\x8C\xB1z\xE5\x95\x8A\xE5\x95\x8A";  // a é 啊 🌱 z 啊 啊
  for (size_t n = 0; n <= text.size() + 2; ++n) {
    std::string_view cut = utf8_prefix(text, n);
    EXPECT_LE(cut.size(), n);
    EXPECT_EQ(text.compare(0, cut.size(), cut), 0);
    EXPECT_NO_THROW((void)Json(std::string(cut)).dump()) << "cut at " << n;
    EXPECT_GT(cut.size() + 4, std::min(n, text.size())) << "a cut drops at most one character";
  }
  EXPECT_EQ(utf8_prefix("", 5), "");
}

TEST(Utf8Suffix, EveryCutKeepsWholeCharacters) {
  const std::string text = "a\xC3\xA9\xE5\x95\x8A\xF0\x9F\x8C\xB1z\xE5\x95\x8A\xE5\x95\x8A";  // a é 啊 🌱 z 啊 啊
  for (size_t n = 0; n <= text.size() + 2; ++n) {
    std::string_view cut = utf8_suffix(text, n);
    EXPECT_LE(cut.size(), n);
    EXPECT_EQ(text.compare(text.size() - cut.size(), cut.size(), cut), 0);
    EXPECT_EQ(valid_utf8(cut), cut) << "cut at " << n;
    EXPECT_GT(cut.size() + 4, std::min(n, text.size())) << "a cut drops at most one character";
  }
  EXPECT_EQ(utf8_suffix("", 5), "");
}
