// The worksheet scanner reads a cell's value the same however the XML spells
// it: each spelling of the cell's start tag (attribute order, quotes, spaces,
// prefixes, entities, no reference) crossed with each spelling of its value
// (plain, entities, CR LF, CDATA, split over two <v>, prefixed, after a formula,
// around a comment, padded). A sheet large enough to be scanned on two threads
// repeats every combination and must read the same as a small one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bioagent/json_text.h"
#include "bioagent/table.h"
#include "table/sheet_scanner.h"

using namespace bioagent;

namespace {

// A start tag spelling for a cell in column B of row `row` with type `t` ("" for none).
using TagSpelling = std::string (*)(int row, const std::string& t);

std::string type_attr(const std::string& t, char q = '"') { return t.empty() ? "" : std::string(" t=") + q + t + q; }

const std::vector<TagSpelling>& tag_spellings() {
  static const std::vector<TagSpelling> all = {
      [](int r, const std::string& t) { return "<c r=\"B" + std::to_string(r) + "\"" + type_attr(t) + ">"; },
      [](int r, const std::string& t) {
        return "<c" + type_attr(t, '\'') + "   r = 'B" + std::to_string(r) + "' s='0'>";
      },
      [](int r, const std::string& t) {  // the row number's first digit as a character reference
        const std::string n = std::to_string(r);
        return "<c\n r=\"B&#" + std::to_string(static_cast<int>(n[0])) + ";" + n.substr(1) + "\"" + type_attr(t) + ">";
      },
      [](int r, const std::string& t) { return "<x:c x:r=\"B" + std::to_string(r) + "\"" + type_attr(t) + ">"; },
      [](int, const std::string& t) { return "<c" + type_attr(t) + ">"; },  // placed after A
      [](int r, const std::string& t) {                                     // a prefixed attribute after r and t
        return "<c r=\"B" + std::to_string(r) + "\"" + type_attr(t) + " cm=\"1\" xr:uid=\"{0}\">";
      },
      [](int r, const std::string& t) {  // the first r and t count
        return "<c r=\"B" + std::to_string(r) + "\"" + type_attr(t) + " r=\"C1\"" + (t.empty() ? "" : " t=\"b\"") + ">";
      },
  };
  return all;
}

struct ValueCase {
  std::string type;      // the cell's t attribute
  std::string xml;       // the children of <c>
  std::string expected;  // the value as JSON text
};

const std::vector<ValueCase>& value_cases() {
  static const std::vector<ValueCase> all = {
      {"", "<v>12.5</v>", "12.5"},
      {"", "<v>1&#50;.5</v>", "12.5"},
      {"", "<v><![CDATA[12.5]]></v>", "12.5"},
      {"", "<v>12</v><v>.5</v>", "12.5"},
      {"", "<x:v>12.5</x:v>", "12.5"},
      {"", "<f>A1*2</f><v>12.5</v>", "12.5"},
      {"", "<v>12.5<!-- cached --></v>", "12.5"},
      {"", "<v>12<!-- a comment -->.5</v>", "12.5"},
      {"str", "<v>a<?pi x?>b<!---->c</v>", "\"abc\""},
      {"", "<v> 12.5 </v>", "12.5"},
      {"", "<f>A1*2</f>", "null"},
      {"str", "<v>a&lt;b&amp;c</v>", "\"a<b&c\""},
      {"str", "<v>a\r\nb\rc</v>", "\"a\\nb\\nc\""},
      {"str", "<v>a&#13;b_x0009_c</v>", "\"a\\rb\\tc\""},
      {"str", "<v><![CDATA[<a>]]>b</v>", "\"<a>b\""},
      {"str", "<v>a</v><v>b</v>", "\"ab\""},
      {"b", "<v>1</v>", "true"},
      {"e", "<v>#N/A</v>", "\"#N/A\""},
      {"inlineStr", "<is><r><t>in</t></r><r><t> line</t></r><rPh><t>x</t></rPh></is>", "\"in line\""},
  };
  return all;
}

// Rows from 2 on: each combination of tag and value spelling, its value in column B after a 1 in A.
std::string rows_xml(int first_row, int copies, std::vector<std::string>* expected) {
  std::string xml;
  int r = first_row;
  for (int k = 0; k < copies; ++k) {
    for (auto spell : tag_spellings()) {
      for (const auto& v : value_cases()) {
        const std::string close = spell(r, "").rfind("<x:c", 0) == 0 ? "</x:c>" : "</c>";
        xml += "<row r=\"" + std::to_string(r) + "\"><c r=\"A" + std::to_string(r) + "\"><v>1</v></c>" +
               spell(r, v.type) + v.xml + close + "</row>";
        expected->push_back(v.expected);
        ++r;
      }
    }
  }
  return xml;
}

Sheet scan(const std::string& rows) {
  const std::string xml =
      "<?xml version=\"1.0\"?><worksheet xmlns=\"main\"><sheetData>" + rows + "</sheetData></worksheet>";
  SheetContext ctx;
  ctx.label = "test.xlsx";
  ctx.sheet = "S";
  Sheet sheet;
  Status st = scan_sheet(xml, ctx, &sheet);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return sheet;
}

void expect_values(const Sheet& sheet, int first_row, const std::vector<std::string>& expected) {
  ASSERT_GE(sheet.rows.size(), static_cast<size_t>(first_row) - 1 + expected.size());
  const size_t per_copy = tag_spellings().size() * value_cases().size();
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& row = sheet.rows[static_cast<size_t>(first_row) - 1 + i];
    const std::string got = row.size() > 1 ? json_text(row[1].to_json()) : "null";
    const size_t combo = i % per_copy;
    EXPECT_EQ(got, expected[i]) << "tag spelling " << combo / value_cases().size() << ", value "
                                << value_cases()[combo % value_cases().size()].xml;
    if (!row.empty()) {
      EXPECT_EQ(json_text(row[0].to_json()), "1");
    }
  }
}

}  // namespace

TEST(SheetScanner, EverySpellingOfACellReadsTheSameValue) {
  std::vector<std::string> expected;
  const std::string rows = rows_xml(2, 1, &expected);
  expect_values(scan(rows), 2, expected);
}

TEST(SheetScanner, TwoThreadScanOfALargeSheetReadsAsOne) {
  std::vector<std::string> expected;
  const std::string rows = rows_xml(2, 500, &expected);  // over 4 MiB: split at a row, scanned on two threads
  ASSERT_GT(rows.size(), 4u << 20);
  expect_values(scan(rows), 2, expected);
}
