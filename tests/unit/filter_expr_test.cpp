// Filter expressions of the vector-store actions: the seed's use cases,
// operator semantics, and errors with positions.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "bioagent/filter_expr.h"

using namespace bioagent;

namespace {

const std::set<std::string> kFields = {"table_name", "column_name", "primary_key", "pdf_id", "page_number", "bbox"};

FilterValue S(const std::string& s) { return FilterValue{s}; }
FilterValue I(int64_t i) { return FilterValue{i}; }

FieldLookup record(std::map<std::string, FilterValue> fields) {
  return [fields](std::string_view name) -> std::optional<FilterValue> {
    auto it = fields.find(std::string(name));
    if (it == fields.end()) return std::nullopt;
    return it->second;
  };
}

bool passes(const std::string& filter, const FieldLookup& rec) {
  auto f = FilterExpr::parse(filter, kFields);
  EXPECT_TRUE(f.is_ok()) << filter << ": " << f.status().to_string();
  if (!f) return false;
  auto r = f->matches(rec);
  EXPECT_TRUE(r.is_ok()) << filter << ": " << r.status().to_string();
  return r.is_ok() && *r;
}

}  // namespace

TEST(FilterExpr, SeedUseCases) {
  auto chunk = record({{"table_name", S("chunks")},
                       {"column_name", S("text_content")},
                       {"primary_key", S("456")},
                       {"pdf_id", S("123456")},
                       {"page_number", I(1)},
                       {"bbox", FilterValue{std::vector<FilterValue>{I(10), I(20), I(80), I(200)}}}});
  EXPECT_TRUE(passes("table_name == 'chunks' and column_name == 'text_content'", chunk));
  EXPECT_TRUE(passes("table_name == 'chunks' and primary_key in ['123', '456', '789']", chunk));
  EXPECT_TRUE(passes(
      "bbox[0] + bbox[2] <= 100 and bbox[1] + bbox[3] <= 300 and pdf_id == '123456' and page_number == 1", chunk));
  EXPECT_FALSE(passes("pdf_id == '12345678' and page_number == 1", chunk));
  EXPECT_TRUE(passes("primary_key not in ['1', '2']", chunk));
  EXPECT_TRUE(passes("not (page_number > 1) and table_name like 'chu%'", chunk));
  EXPECT_TRUE(passes("column_name like 'text\\_%' or page_number >= 10", chunk));
  EXPECT_TRUE(passes("array_contains(bbox, 80) and array_length(bbox) == 4", chunk));
  EXPECT_TRUE(passes("page_number * 2 ** 3 % 5 == 3", chunk)) << "2**3=8, 1*8=8, 8%5=3";
  EXPECT_TRUE(passes("-page_number < 0 and page_number / 2 == 0.5", chunk));
  EXPECT_TRUE(passes("", chunk)) << "empty filter keeps everything";
  EXPECT_FALSE(passes("bbox[7] > 0", chunk)) << "out-of-range index is null, and null orders as false";
  EXPECT_TRUE(passes("table_name != null", chunk));
}

TEST(FilterExpr, ErrorsNameThePlace) {
  struct Case {
    const char* filter;
    const char* message;
    int position;
  } cases[] = {
      {"pdf_id = '1'", "use ==", 7},
      {"author == 'x'", "unknown field 'author'", 0},
      {"pdf_id == '1' and", "unexpected end", 17},
      {"page_number == (1", "expected ')'", 17},
      {"pdf_id == 'open", "unterminated string", 10},
      {"system('rm')", "unknown function 'system'", 0},
      {"page_number == 1 ; drop", "unexpected character ';'", 17},
      {"and pdf_id == '1'", "needs an operand", 0},
      {"page_number == 1 2", "unexpected '2'", 17},
  };
  for (auto& c : cases) {
    auto f = FilterExpr::parse(c.filter, kFields);
    ASSERT_FALSE(f.is_ok()) << c.filter;
    EXPECT_NE(f.status().message().find(c.message), std::string::npos) << c.filter << ": " << f.status().message();
    EXPECT_EQ(f.status().details().value("position", -1), c.position) << c.filter;
  }
  auto deep = FilterExpr::parse(std::string(500, '(') + "page_number == 1" + std::string(500, ')'), kFields);
  EXPECT_FALSE(deep.is_ok());
  EXPECT_NE(deep.status().message().find("nests too deeply"), std::string::npos);
}

TEST(FilterExpr, TypeErrorsAreErrorsNotSilentFalses) {
  auto rec = record({{"page_number", I(3)}, {"pdf_id", S("x")}});
  for (const char* bad : {"page_number == 'three'", "pdf_id < 3", "pdf_id in 'abc'", "page_number like '3%'",
                          "page_number + pdf_id > 1", "page_number", "page_number / 0 == 1"}) {
    auto f = FilterExpr::parse(bad, kFields);
    ASSERT_TRUE(f.is_ok()) << bad;
    auto r = f->matches(rec);
    EXPECT_FALSE(r.is_ok()) << bad;
  }
  auto f = FilterExpr::parse("pdf_id == 'x' and page_number == 3", kFields);
  EXPECT_EQ(f->fields(), (std::set<std::string>{"pdf_id", "page_number"}));
}

// Milvus's filter syntax, which the seed's collections come from, also spells
// the logical operators AND / OR / NOT (and IN, LIKE) in capitals and as && || !.
TEST(FilterExpr, MilvusSpellingsOfTheLogicalOperators) {
  auto rec = record({{"table_name", S("chunks")}, {"pdf_id", S("123")}, {"page_number", I(2)}});
  EXPECT_TRUE(passes("pdf_id == '123' AND page_number == 2", rec));
  EXPECT_TRUE(passes("pdf_id == '9' OR page_number == 2", rec));
  EXPECT_FALSE(passes("pdf_id == '9' OR NOT page_number == 2", rec));
  EXPECT_TRUE(passes("pdf_id == '123' && page_number > 1", rec));
  EXPECT_TRUE(passes("pdf_id == '9' || page_number == 2", rec));
  EXPECT_TRUE(passes("!(page_number == 3) && page_number != 3", rec));
  EXPECT_TRUE(passes("pdf_id IN ['123'] AND table_name LIKE 'chu%' AND pdf_id NOT IN ['1']", rec));
  EXPECT_TRUE(passes("TRUE && page_number == 2", rec));
  auto dangling = FilterExpr::parse("pdf_id == '1' &&", kFields);
  ASSERT_FALSE(dangling.is_ok());
  EXPECT_NE(dangling.status().message().find("unexpected end"), std::string::npos) << dangling.status().message();
  auto single = FilterExpr::parse("pdf_id == '1' & page_number == 1", kFields);
  EXPECT_FALSE(single.is_ok()) << "a single & is not an operator";
}
