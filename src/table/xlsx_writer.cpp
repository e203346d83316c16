#include "table/xlsx_writer.h"

#include <zip.h>

#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/xml_escape.h"

namespace bioagent {
namespace {

std::string sheet_xml(const SheetToWrite& sheet) {
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
      "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>";
  for (size_t r = 0; r < sheet.rows.size(); ++r) {
    x += "<row r=\"" + std::to_string(r + 1) + "\">";
    for (size_t c = 0; c < sheet.rows[r].size(); ++c) {
      const Cell& cell = sheet.rows[r][c];
      const std::string ref = column_name(c) + std::to_string(r + 1);
      switch (cell.kind) {
        case Cell::Kind::kEmpty:
          break;
        case Cell::Kind::kNumber: {
          char buf[32];
          auto [end, ec] = std::to_chars(buf, buf + sizeof buf, cell.number);
          x += "<c r=\"" + ref + "\"><v>" + std::string(buf, end) + "</v></c>";
          break;
        }
        case Cell::Kind::kBool:
          x += "<c r=\"" + ref + "\" t=\"b\"><v>" + (cell.number != 0 ? "1" : "0") + "</v></c>";
          break;
        default:
          x += "<c r=\"" + ref + "\" t=\"inlineStr\"><is><t xml:space=\"preserve\">" + xml_escape(cell.text) +
               "</t></is></c>";
      }
    }
    x += "</row>";
  }
  return x + "</sheetData></worksheet>";
}

}  // namespace

Status write_xlsx(const std::filesystem::path& path, const std::vector<SheetToWrite>& sheets) {
  if (sheets.empty()) return invalid_argument("an xlsx needs at least one sheet");
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!za) return internal_error("cannot create '" + path.string() + "'");
  std::vector<std::pair<std::string, std::string>> parts;
  std::string types =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
      "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      "<Override PartName=\"/xl/workbook.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>";
  std::string workbook =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
      "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
      "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets>";
  std::string rels =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
      "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">";
  for (size_t i = 0; i < sheets.size(); ++i) {
    std::string n = std::to_string(i + 1);
    types += "<Override PartName=\"/xl/worksheets/sheet" + n +
             ".xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>";
    workbook += "<sheet name=\"" + xml_escape(sheets[i].name) + "\" sheetId=\"" + n + "\" r:id=\"rId" + n + "\"/>";
    rels += "<Relationship Id=\"rId" + n +
            "\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" "
            "Target=\"worksheets/sheet" +
            n + ".xml\"/>";
    parts.emplace_back("xl/worksheets/sheet" + n + ".xml", sheet_xml(sheets[i]));
  }
  parts.emplace_back("[Content_Types].xml", types + "</Types>");
  parts.emplace_back("xl/workbook.xml", workbook + "</sheets></workbook>");
  parts.emplace_back("xl/_rels/workbook.xml.rels", rels + "</Relationships>");
  parts.emplace_back("_rels/.rels",
                     "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                     "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
                     "<Relationship Id=\"rId1\" "
                     "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" "
                     "Target=\"xl/workbook.xml\"/></Relationships>");
  for (auto& [name, text] : parts) {
    void* copy = std::malloc(text.size());
    std::memcpy(copy, text.data(), text.size());
    zip_source_t* src = zip_source_buffer(za, copy, text.size(), 1);  // libzip frees the copy
    if (!src || zip_file_add(za, name.c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
      if (src) zip_source_free(src);
      zip_discard(za);
      return internal_error("cannot add '" + name + "' to '" + path.string() + "'");
    }
  }
  if (zip_close(za) != 0) {
    std::string why = zip_strerror(za);
    zip_discard(za);
    return internal_error("cannot write '" + path.string() + "': " + why);
  }
  return {};
}

}  // namespace bioagent
