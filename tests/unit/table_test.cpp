#include <gtest/gtest.h>
#include <zip.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"
#include "bioagent/table.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Runs a command; true on exit status 0.
bool run(const std::string& cmd) { return std::system(cmd.c_str()) == 0; }

bool have_openpyxl() { return run("/usr/bin/python3 -c 'import openpyxl' 2>/dev/null"); }

std::string helper(const std::string& name) { return bioagent::testing::source_dir() + "/tests/helpers/" + name; }

Json cell(const Sheet& s, size_t r, size_t c) { return s.rows.at(r).at(c).to_json(); }
std::string json_text_of(const Json& j) { return json_text(j); }

// Copies `src` to `dst` without the zip entry `drop`.
void copy_without(const fs::path& src, const fs::path& dst, const std::string& drop) {
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  int err = 0;
  zip_t* za = zip_open(dst.c_str(), 0, &err);
  ASSERT_NE(za, nullptr);
  zip_int64_t idx = zip_name_locate(za, drop.c_str(), 0);
  ASSERT_GE(idx, 0) << drop;
  zip_delete(za, static_cast<zip_uint64_t>(idx));
  ASSERT_EQ(zip_close(za), 0);
}

// A zip whose one entry inflates to `bytes` zeros, streamed (never in memory).
struct Zeros {
  uint64_t total, done = 0;
};
zip_int64_t zeros_cb(void* state, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  auto* z = static_cast<Zeros*>(state);
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      z->done = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      zip_uint64_t n = std::min<zip_uint64_t>(len, z->total - z->done);
      std::memset(data, 0, n);
      z->done += n;
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto* st = static_cast<zip_stat_t*>(data);
      zip_stat_init(st);
      st->size = z->total;
      st->valid |= ZIP_STAT_SIZE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_FREE:
      return 0;
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                            ZIP_SOURCE_FREE, -1);
    default:
      return -1;
  }
}

void make_bomb(const fs::path& path, uint64_t bytes) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(za, nullptr);
  auto add = [&](const char* name, const std::string& text) {
    char* copy = static_cast<char*>(std::malloc(text.size()));
    std::memcpy(copy, text.data(), text.size());
    zip_source_t* src = zip_source_buffer(za, copy, text.size(), 1);
    zip_file_add(za, name, src, ZIP_FL_OVERWRITE);
  };
  add("[Content_Types].xml", "<Types/>");
  add("xl/workbook.xml",
      "<workbook xmlns:r=\"r\"><sheets><sheet name=\"Bomb\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>");
  add("xl/_rels/workbook.xml.rels",
      "<Relationships><Relationship Id=\"rId1\" Type=\"x/worksheet\" "
      "Target=\"worksheets/sheet1.xml\"/></Relationships>");
  static Zeros z{bytes};
  zip_source_t* src = zip_source_function(za, zeros_cb, &z);
  zip_file_add(za, "xl/worksheets/sheet1.xml", src, ZIP_FL_OVERWRITE);
  zip_set_file_compression(za, zip_name_locate(za, "xl/worksheets/sheet1.xml", 0), ZIP_CM_DEFLATE, 9);
  ASSERT_EQ(zip_close(za), 0) << "writing the bomb";
}

}  // namespace

TEST(Xlsx, ValuesWrittenByOpenpyxl) {
  if (!have_openpyxl()) GTEST_SKIP() << "python3-openpyxl is not installed (scripts/setup.sh installs it)";
  TempDir dir;
  ASSERT_TRUE(run("/usr/bin/python3 " + helper("write_openpyxl_fixture.py") + " " + dir.path().string()));
  auto names = list_xlsx_sheets(dir.path() / "values.xlsx");
  ASSERT_TRUE(names.is_ok()) << names.status().to_string();
  EXPECT_EQ(*names, (std::vector<std::string>{"Values", "Merged"}));

  auto r = read_xlsx(dir.path() / "values.xlsx");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Sheet& s = *r;
  EXPECT_EQ(s.name, "Values");
  EXPECT_EQ(s.n_cols, 7u) << "column G holds a value";
  ASSERT_EQ(s.rows.size(), 8u);
  EXPECT_EQ(cell(s, 0, 0), "gene");
  EXPECT_EQ(json_text_of(cell(s, 1, 1)), "0.1") << "no float noise";
  EXPECT_EQ(cell(s, 1, 2), true);
  EXPECT_EQ(cell(s, 1, 3), "2024-03-01T00:00:00") << "a datetime format keeps its time, even at midnight";
  EXPECT_EQ(cell(s, 1, 4), "naïve 中文 😀");
  EXPECT_EQ(cell(s, 2, 1), -2.5);
  EXPECT_EQ(cell(s, 2, 2), false);
  EXPECT_EQ(cell(s, 2, 3), "2024-03-01T12:30:15");
  EXPECT_TRUE(cell(s, 2, 4).is_null());
  EXPECT_EQ(cell(s, 3, 1), 123456789012345) << "integers stay integers";
  EXPECT_TRUE(cell(s, 3, 1).is_number_integer());
  EXPECT_EQ(cell(s, 3, 3), "1999-12-31");
  EXPECT_EQ(cell(s, 3, 4), "a\nb");
  EXPECT_EQ(cell(s, 4, 1), 1e-10);
  EXPECT_EQ(cell(s, 4, 4), "  padded  ") << "whitespace kept";
  EXPECT_TRUE(cell(s, 5, 0).is_null()) << "row 6 is empty but keeps its place";
  EXPECT_EQ(cell(s, 6, 1), 3);
  EXPECT_EQ(cell(s, 6, 6), "sparse");
  EXPECT_TRUE(cell(s, 6, 5).is_null());
  EXPECT_TRUE(cell(s, 7, 0).is_null()) << "formula without cached value";
  EXPECT_EQ(cell(s, 7, 2), "06:15:00") << "a time of day";

  auto merged = read_xlsx(dir.path() / "values.xlsx", "merged");  // case-insensitive name
  ASSERT_TRUE(merged.is_ok());
  EXPECT_EQ(merged->merged, (std::vector<std::string>{"A1:C1"}));
  EXPECT_EQ(cell(*merged, 1, 0), 7);
  auto by_index = read_xlsx(dir.path() / "values.xlsx", "1");
  ASSERT_TRUE(by_index.is_ok());
  EXPECT_EQ(by_index->name, "Merged");

  auto mac = read_xlsx(dir.path() / "mac1904.xlsx");
  ASSERT_TRUE(mac.is_ok()) << mac.status().to_string();
  EXPECT_EQ(cell(*mac, 0, 0), "2020-01-02T00:00:00") << "1904 date system";
  EXPECT_EQ(cell(*mac, 0, 1), 42);
}

TEST(Xlsx, ValuesWrittenByLibxlsxwriter) {
  TempDir dir;
  ASSERT_TRUE(run(std::string(BIOAGENT_XLSXWRITER_FIXTURE) + " " + (dir.path() / "w.xlsx").string()));
  auto r = read_xlsx(dir.path() / "w.xlsx");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Sheet& s = *r;
  EXPECT_EQ(s.name, "Scores");
  EXPECT_EQ(cell(s, 1, 0), "RUNX3");
  // libxlsxwriter writes numbers with 16 significant digits: the file holds 0.3.
  EXPECT_EQ(json_text_of(cell(s, 1, 1)), "0.3");
  EXPECT_EQ(cell(s, 1, 2), true);
  EXPECT_EQ(cell(s, 1, 3), "2023-11-05");
  EXPECT_EQ(cell(s, 2, 0), "Ωmega");
  EXPECT_EQ(cell(s, 2, 1), 1e300);
  EXPECT_EQ(cell(s, 4, 4), -7);
  EXPECT_TRUE(cell(s, 3, 0).is_null());
  EXPECT_EQ(s.n_cols, 5u);
}

TEST(Xlsx, RealWorkbooksFromTheFixtures) {
  fs::path dir = bioagent::testing::fixtures_dir() / "tables/real_xlsx";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures not present at " << dir;
  size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".xlsx") continue;
    auto names = list_xlsx_sheets(e.path());
    ASSERT_TRUE(names.is_ok()) << e.path() << ": " << names.status().to_string();
    for (size_t i = 0; i < names->size(); ++i) {
      auto s = read_xlsx(e.path(), std::to_string(i));
      ASSERT_TRUE(s.is_ok()) << e.path() << " sheet " << i << ": " << s.status().to_string();
      EXPECT_GT(s->rows.size(), 0u) << e.path() << " sheet " << (*names)[i];
    }
    ++files;
  }
  EXPECT_GE(files, 2u);
}

TEST(Xlsx, BadFilesGiveClearErrors) {
  TempDir dir;
  auto garbage = dir.write("garbage.xlsx", "this is not a zip file at all");
  auto g = read_xlsx(garbage);
  EXPECT_EQ(g.status().code(), ErrorCode::kParseError);
  EXPECT_NE(g.status().message().find("garbage.xlsx"), std::string::npos);
  EXPECT_NE(g.status().message().find("not a valid xlsx"), std::string::npos) << g.status().message();

  EXPECT_EQ(read_xlsx(dir.path() / "missing.xlsx").status().code(), ErrorCode::kNotFound);

  ASSERT_TRUE(run(std::string(BIOAGENT_XLSXWRITER_FIXTURE) + " " + (dir.path() / "ok.xlsx").string()));
  auto none = read_xlsx(dir.path() / "ok.xlsx", "NoSuchSheet");
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.status().message().find("sheets: 'Scores'"), std::string::npos) << none.status().message();
  EXPECT_EQ(read_xlsx(dir.path() / "ok.xlsx", "7").status().code(), ErrorCode::kNotFound);

  copy_without(dir.path() / "ok.xlsx", dir.path() / "nosst.xlsx", "xl/sharedStrings.xml");
  auto nosst = read_xlsx(dir.path() / "nosst.xlsx");
  EXPECT_EQ(nosst.status().code(), ErrorCode::kParseError);
  EXPECT_NE(nosst.status().message().find("no shared-strings part"), std::string::npos) << nosst.status().message();
  EXPECT_NE(nosst.status().message().find("nosst.xlsx"), std::string::npos);

  copy_without(dir.path() / "ok.xlsx", dir.path() / "nowb.xlsx", "xl/workbook.xml");
  EXPECT_EQ(read_xlsx(dir.path() / "nowb.xlsx").status().code(), ErrorCode::kParseError);

  // Truncated: the central directory is gone.
  std::string bytes;
  {
    std::ifstream in(dir.path() / "ok.xlsx", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto cut = dir.write("cut.xlsx", bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(read_xlsx(cut).status().code(), ErrorCode::kParseError);

  auto empty = dir.write("empty.xlsx", "");
  EXPECT_FALSE(read_xlsx(empty).is_ok());
}

TEST(Xlsx, ZipBombIsRefusedWithoutInflatingIt) {
  TempDir dir;
  make_bomb(dir.path() / "bomb.xlsx", 1ull << 30);  // 1 GiB of zeros, about 1 MB compressed
  EXPECT_LT(fs::file_size(dir.path() / "bomb.xlsx"), 4u << 20);
  auto t0 = std::chrono::steady_clock::now();
  auto r = read_xlsx(dir.path() / "bomb.xlsx");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("zip bomb"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("bomb.xlsx"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "refused up front, not after inflating";
}

TEST(Xlsx, SizeLimitsApply) {
  TempDir dir;
  ASSERT_TRUE(run(std::string(BIOAGENT_XLSXWRITER_FIXTURE) + " " + (dir.path() / "ok.xlsx").string()));
  TableLimits rows;
  rows.max_rows = 2;
  EXPECT_EQ(read_xlsx(dir.path() / "ok.xlsx", "", rows).status().code(), ErrorCode::kResourceExhausted);
  TableLimits part;
  part.max_part_bytes = 100;
  EXPECT_EQ(read_xlsx(dir.path() / "ok.xlsx", "", part).status().code(), ErrorCode::kResourceExhausted);
  TableLimits strings;
  strings.max_string_bytes = 3;
  EXPECT_EQ(read_xlsx(dir.path() / "ok.xlsx", "", strings).status().code(), ErrorCode::kParseError);
}

TEST(Csv, Rfc4180) {
  auto r = parse_csv(
      "\xEF\xBB\xBFgene,score,note\r\nTCF7,0.1,\"quoted, with comma\"\r\nBATF,-2,\"line1\nline2\"\r\n"
      "TOX,,\"she said \"\"hi\"\"\"\r\nID,007,1e3\r\n",
      "t.csv");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Sheet& s = *r;
  ASSERT_EQ(s.rows.size(), 5u);
  EXPECT_EQ(cell(s, 0, 0), "gene") << "BOM skipped";
  EXPECT_EQ(cell(s, 1, 1), 0.1);
  EXPECT_EQ(cell(s, 1, 2), "quoted, with comma");
  EXPECT_EQ(cell(s, 2, 2), "line1\nline2");
  EXPECT_EQ(cell(s, 2, 1), -2);
  EXPECT_TRUE(cell(s, 3, 1).is_null());
  EXPECT_EQ(cell(s, 3, 2), "she said \"hi\"");
  EXPECT_EQ(cell(s, 4, 1), "007") << "leading zeros keep an identifier as text";
  EXPECT_EQ(cell(s, 4, 2), 1000);
}

TEST(Csv, DelimiterSniffingAndRaggedRows) {
  auto tsv = parse_csv("a\tb\tc\n1\t2\t3\n4\t5\t6\n", "t.tsv");
  ASSERT_TRUE(tsv.is_ok());
  EXPECT_EQ(tsv->n_cols, 3u);
  auto semi = parse_csv("a;b\n1,5;2\n3;4\n", "s.csv");
  ASSERT_TRUE(semi.is_ok());
  EXPECT_EQ(semi->n_cols, 2u);
  EXPECT_EQ(cell(*semi, 1, 0), "1,5");
  auto ragged = parse_csv("a,b,c\n1\n2,3\n", "r.csv");
  ASSERT_TRUE(ragged.is_ok());
  EXPECT_EQ(ragged->rows[1].size(), 3u);
  EXPECT_TRUE(cell(*ragged, 1, 2).is_null());
  auto no_newline = parse_csv("x,y", "n.csv");
  ASSERT_EQ(no_newline->rows.size(), 1u);
  EXPECT_EQ(parse_csv("", "e.csv")->rows.size(), 0u);
}

TEST(Csv, UnbalancedQuotesNameTheLine) {
  auto r = parse_csv("a,b\n1,2\n3,\"never closed\n4,5\n", "bad.csv");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kParseError);
  EXPECT_NE(r.status().message().find("line 3"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("bad.csv"), std::string::npos);
  TableLimits small;
  small.max_rows = 1;
  EXPECT_EQ(parse_csv("a\nb\nc\n", "x.csv", {}, small).status().code(), ErrorCode::kResourceExhausted);
}

TEST(Table, CellRefsAndDates) {
  size_t r = 0, c = 0;
  ASSERT_TRUE(parse_cell_ref("C7", &r, &c));
  EXPECT_EQ(r, 6u);
  EXPECT_EQ(c, 2u);
  ASSERT_TRUE(parse_cell_ref("XFD1048576", &r, &c));
  EXPECT_EQ(c, 16383u);
  EXPECT_FALSE(parse_cell_ref("7C", &r, &c));
  EXPECT_FALSE(parse_cell_ref("A0", &r, &c));
  EXPECT_FALSE(parse_cell_ref("AAAAA1", &r, &c));
  EXPECT_EQ(column_name(0), "A");
  EXPECT_EQ(column_name(25), "Z");
  EXPECT_EQ(column_name(26), "AA");
  EXPECT_EQ(column_name(16383), "XFD");
  EXPECT_EQ(excel_serial_to_iso(45352, false, true, false), "2024-03-01");
  EXPECT_EQ(excel_serial_to_iso(1, false, true, false), "1900-01-01");
  EXPECT_EQ(excel_serial_to_iso(61, false, true, false), "1900-03-01");
  EXPECT_EQ(excel_serial_to_iso(45352.5, false, true, true), "2024-03-01T12:00:00");
  EXPECT_EQ(excel_serial_to_iso(0.25, false, false, true), "06:00:00");
  EXPECT_EQ(excel_serial_to_iso(0, true, true, false), "1904-01-01");
}
