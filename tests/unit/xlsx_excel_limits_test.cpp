// Spreadsheets as Excel sees them: a sheet whose formatting runs to Excel's
// last row and column (as LibreOffice and POI's 60384.xlsx save them) reads its
// values; the row limit counts rows holding values; a row or column beyond
// Excel's own limits is a malformed file; an encrypted workbook (an OLE compound
// file with EncryptionInfo) is named as encrypted, an Excel 97-2003 .xls as one.
#include <gtest/gtest.h>
#include <zip.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bioagent/table.h"
#include "table/office_container.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A one-sheet workbook whose sheet XML body (inside <worksheet>) is `body`, with one date-free style.
void write_workbook(const fs::path& file, const std::string& body) {
  const std::map<std::string, std::string> parts = {
      {"[Content_Types].xml",
       R"(<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">)"
       R"(<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>)"
       R"(<Default Extension="xml" ContentType="application/xml"/></Types>)"},
      {"_rels/.rels",
       R"(<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">)"
       R"(<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/)"
       R"(officeDocument" Target="xl/workbook.xml"/></Relationships>)"},
      {"xl/workbook.xml",
       R"(<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" )"
       R"(xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>)"
       R"(<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>)"},
      {"xl/_rels/workbook.xml.rels",
       R"(<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">)"
       R"(<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/)"
       R"(worksheet" Target="worksheets/sheet1.xml"/></Relationships>)"},
      {"xl/worksheets/sheet1.xml",
       R"(<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">)" + body +
           "</worksheet>"}};
  int err = 0;
  zip_t* za = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(za, nullptr);
  std::vector<std::string> keep;  // libzip reads the buffers at close
  keep.reserve(parts.size());
  for (auto& [name, text] : parts) {
    keep.push_back(text);
    zip_source_t* src = zip_source_buffer(za, keep.back().data(), keep.back().size(), 0);
    ASSERT_GE(zip_file_add(za, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(za), 0);
}

// Ten values in A1:B5, styled empty cells beside them, formatting on whole columns, and styled
// empty rows down to Excel's last row with a styled empty cell in its last column.
std::string formatted_to_the_last_row() {
  std::string rows;
  for (int r = 1; r <= 5; ++r)
    rows += "<row r=\"" + std::to_string(r) + "\"><c r=\"A" + std::to_string(r) + "\"><v>" + std::to_string(r) +
            "</v></c><c r=\"B" + std::to_string(r) + "\" t=\"inlineStr\"><is><t>v" + std::to_string(r) +
            "</t></is></c><c r=\"C" + std::to_string(r) + "\" s=\"1\"/></row>";
  for (int r = 6; r <= 40; ++r)
    rows += "<row r=\"" + std::to_string(r) + "\" s=\"1\" customFormat=\"1\"><c r=\"A" + std::to_string(r) +
            "\" s=\"1\"/></row>";
  rows += R"(<row r="1000001" s="1" customFormat="1" ht="20" customHeight="1"/>)";
  rows += R"(<row r="1048576" s="1" customFormat="1"><c r="XFD1048576" s="1"/></row>)";
  return R"(<dimension ref="A1:XFD1048576"/><cols><col min="1" max="16384" width="9" style="1"/></cols>)"
         "<sheetData>" +
         rows + "</sheetData>";
}

// A minimal OLE compound file (512-byte sectors): a FAT sector, one directory sector naming `streams`.
std::string ole_file(const std::vector<std::string>& streams) {
  std::string f(512 * 3, '\0');
  const unsigned char magic[8] = {0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1};
  std::memcpy(f.data(), magic, 8);
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(f.data() + at, &v, 4); };
  auto put16 = [&](size_t at, uint16_t v) { std::memcpy(f.data() + at, &v, 2); };
  put16(24, 0x3E);
  put16(26, 3);
  put16(28, 0xFFFE);
  put16(30, 9);  // 512-byte sectors
  put16(32, 6);  // 64-byte mini sectors
  put32(44, 1);  // one FAT sector
  put32(48, 1);  // the directory starts at sector 1
  put32(60, 0xFFFFFFFE);
  put32(68, 0xFFFFFFFE);
  put32(76, 0);  // the FAT is sector 0
  for (size_t i = 1; i < 109; ++i) put32(76 + 4 * i, 0xFFFFFFFF);
  const size_t fat = 512, dir = 1024;
  for (size_t i = 0; i < 128; ++i) put32(fat + 4 * i, 0xFFFFFFFF);
  put32(fat, 0xFFFFFFFD);      // sector 0: the FAT itself
  put32(fat + 4, 0xFFFFFFFE);  // sector 1: the directory, one sector long
  std::vector<std::string> names = {"Root Entry"};
  names.insert(names.end(), streams.begin(), streams.end());
  for (size_t e = 0; e < names.size() && e < 4; ++e) {
    const size_t at = dir + 128 * e;
    for (size_t i = 0; i < names[e].size(); ++i) put16(at + 2 * i, static_cast<uint16_t>(names[e][i]));
    put16(at + 64, static_cast<uint16_t>(2 * (names[e].size() + 1)));
    f[at + 66] = e == 0 ? 5 : 2;  // root storage, then streams
  }
  return f;
}

}  // namespace

TEST(XlsxExcelLimits, FormattingToExcelsLastRowReadsTheValues) {
  TempDir dir;
  const fs::path file = dir.path() / "formatted.xlsx";
  write_workbook(file, formatted_to_the_last_row());
  TableLimits tool;  // as the data tools read: a million rows, a million cells
  tool.max_rows = 1'000'000;
  tool.max_cells = 1'000'000;
  auto sheet = read_xlsx(file, "", tool);
  ASSERT_TRUE(sheet.is_ok()) << sheet.status().message();
  ASSERT_EQ(sheet->rows.size(), 5u);
  EXPECT_EQ(sheet->n_cols, 2u);
  size_t values = 0;
  for (auto& row : sheet->rows)
    for (auto& c : row) values += c.empty() ? 0 : 1;
  EXPECT_EQ(values, 10u);
  EXPECT_EQ(sheet->rows[4][1].to_json(), "v5");
}

TEST(XlsxExcelLimits, TheRowLimitCountsRowsHoldingValues) {
  TempDir dir;
  const fs::path file = dir.path() / "far.xlsx";
  write_workbook(file, R"(<sheetData><row r="1"><c r="A1"><v>1</v></c></row>)"
                       R"(<row r="1000001"><c r="A1000001"><v>2</v></c></row></sheetData>)");
  TableLimits tool;
  tool.max_rows = 1'000'000;
  auto far = read_xlsx(file, "", tool);
  ASSERT_FALSE(far.is_ok());
  EXPECT_EQ(far.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(far.status().message().find("values in more than 1000000 rows (row 1000001"), std::string::npos)
      << far.status().message();
  EXPECT_EQ(far.status().details()["limit_rows"], 1'000'000);
}

TEST(XlsxExcelLimits, BeyondExcelsLastRowOrColumnIsMalformed) {
  TempDir dir;
  for (const char* body : {R"(<sheetData><row r="1048577"><c><v>1</v></c></row></sheetData>)",
                           R"(<sheetData><row r="1"><c r="XFE1" s="1"/></row></sheetData>)"}) {
    write_workbook(dir.path() / "beyond.xlsx", body);
    auto r = read_xlsx(dir.path() / "beyond.xlsx");
    ASSERT_FALSE(r.is_ok()) << body;
    EXPECT_EQ(r.status().code(), ErrorCode::kParseError) << r.status().message();
    EXPECT_NE(r.status().message().find("Excel's last"), std::string::npos) << r.status().message();
  }
}

TEST(XlsxExcelLimits, AnEncryptedWorkbookIsNamedEncrypted) {
  TempDir dir;
  const fs::path enc = dir.write("locked.xlsx", ole_file({"EncryptionInfo", "EncryptedPackage",
                                                          "\x06"
                                                          "DataSpaces"}));
  auto r = read_xlsx(enc);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("encrypted"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("not a valid xlsx"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().details()["encrypted"], true);
  std::string bytes;
  {
    std::ifstream in(enc, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto mem = read_xlsx_bytes(bytes, "locked.xlsx");
  ASSERT_FALSE(mem.is_ok());
  EXPECT_EQ(mem.status().details()["encrypted"], true) << mem.status().message();

  auto xls = read_xlsx(dir.write("old.xlsx", ole_file({"Workbook", "\x05SummaryInformation"})));
  ASSERT_FALSE(xls.is_ok());
  EXPECT_NE(xls.status().message().find("97-2003"), std::string::npos) << xls.status().message();

  // A directory cut short or looping is no evidence: the file is an OLE file, nothing more.
  std::string cut = ole_file({"EncryptionInfo"}).substr(0, 600);
  EXPECT_FALSE(ole_stream_names(cut).has_value());
  std::string loop = ole_file({"EncryptionInfo"});
  std::memcpy(loop.data() + 512 + 4, "\x01\x00\x00\x00", 4);  // sector 1 chains to itself
  EXPECT_FALSE(ole_stream_names(loop).has_value());
  EXPECT_FALSE(read_xlsx(dir.write("loop.xlsx", loop)).is_ok());
}
