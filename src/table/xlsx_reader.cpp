// The .xlsx reader: package relationships → workbook (sheets, date system) →
// styles (which cells are dates) → shared strings → one sheet's cells.
// XML is parsed in place with pugixml; zip parts come from ZipArchive, which
// bounds what may be inflated.
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "bioagent/table.h"
#include "table/sheet_scanner.h"
#include "table/table_bounds.h"
#include "table/zip_archive.h"

namespace bioagent {
namespace {

constexpr unsigned kParseFlags = pugi::parse_default | pugi::parse_ws_pcdata_single;

struct Xml {
  std::string buffer;  // pugixml parses in place: the buffer must outlive the document
  pugi::xml_document doc;
};

Result<std::unique_ptr<Xml>> load_xml(ZipArchive& zip, const std::string& part) {
  auto text = zip.read(part);
  if (!text) return text.status();
  auto x = std::make_unique<Xml>();
  x->buffer = std::move(*text);
  pugi::xml_parse_result r = x->doc.load_buffer_inplace(x->buffer.data(), x->buffer.size(), kParseFlags);
  if (!r) {
    Status s = parse_error("'" + zip.label() + "': part '" + part + "' is not well-formed XML (" + r.description() +
                           " at byte " + std::to_string(r.offset) + ")");
    s.with("path", zip.label()).with("part", part);
    return s;
  }
  return x;
}

// Local name of an element or attribute ("x:sheet" → "sheet").
std::string_view local(const char* name) {
  std::string_view n(name);
  size_t colon = n.find(':');
  return colon == std::string_view::npos ? n : n.substr(colon + 1);
}

pugi::xml_node child(pugi::xml_node n, std::string_view name) {
  for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element && local(c.name()) == name) return c;
  }
  return {};
}

// Attribute by local name ("r:id" matches "id" only when `prefixed` is set).
const char* attr(pugi::xml_node n, std::string_view name, bool prefixed = false) {
  for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
    std::string_view full(a.name());
    if (prefixed ? (full.find(':') != std::string_view::npos && local(a.name()) == name) : full == name)
      return a.value();
  }
  return nullptr;
}

// Resolves a relationship target against the folder of the part that owns it.
std::string resolve_target(const std::string& base_dir, std::string target) {
  if (!target.empty() && target[0] == '/') return target.substr(1);
  std::string path = base_dir;
  while (target.rfind("../", 0) == 0) {
    target.erase(0, 3);
    size_t slash = path.find_last_of('/', path.size() > 1 ? path.size() - 2 : 0);
    path = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  }
  return path + target;
}

// OOXML escapes control characters in strings as _xHHHH_.
std::string unescape_ooxml(std::string s) {
  if (s.find("_x") == std::string::npos) return s;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_' && i + 6 < s.size() && s[i + 1] == 'x' && s[i + 6] == '_' &&
        std::all_of(s.begin() + i + 2, s.begin() + i + 6,
                    [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
      unsigned v = std::stoul(s.substr(i + 2, 4), nullptr, 16);
      if (v < 0x80) {
        out += static_cast<char>(v);
      } else if (v < 0x800) {
        out += static_cast<char>(0xC0 | (v >> 6));
        out += static_cast<char>(0x80 | (v & 0x3F));
      } else {
        out += static_cast<char>(0xE0 | (v >> 12));
        out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (v & 0x3F));
      }
      i += 6;
      continue;
    }
    out += s[i];
  }
  return out;
}

// Text of a shared or inline string: <t> directly, or the <t> of each rich
// text run <r>; phonetic runs (<rPh>) are not part of the value.
std::string string_item_text(pugi::xml_node si) {
  std::string out;
  for (pugi::xml_node c = si.first_child(); c; c = c.next_sibling()) {
    std::string_view n = local(c.name());
    if (n == "t")
      out += c.text().get();
    else if (n == "r")
      out += child(c, "t").text().get();
  }
  return unescape_ooxml(std::move(out));
}

// Whether a number format shows a date and/or a time.
struct DateKind {
  bool date = false, time = false;
  bool any() const { return date || time; }
};

DateKind builtin_format(int id) {
  if ((id >= 14 && id <= 17) || (id >= 27 && id <= 31) || (id >= 34 && id <= 36) || (id >= 50 && id <= 58))
    return {true, false};
  if ((id >= 18 && id <= 21) || (id >= 32 && id <= 33) || (id >= 45 && id <= 47)) return {false, true};
  if (id == 22) return {true, true};
  return {};
}

DateKind custom_format(std::string_view code) {
  DateKind k;
  bool in_quote = false;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '"') {
      in_quote = !in_quote;
      continue;
    }
    if (in_quote) continue;
    if (c == '\\' || c == '_' || c == '*') {  // escaped or padding character
      ++i;
      continue;
    }
    if (c == '[') {  // [Red], [$-409]; but [h] [mm] [ss] are elapsed time
      size_t end = code.find(']', i);
      std::string_view inner = code.substr(i + 1, end == std::string_view::npos ? 0 : end - i - 1);
      if (!inner.empty() && (inner[0] == 'h' || inner[0] == 'H' || inner[0] == 'm' || inner[0] == 's')) k.time = true;
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    switch (c) {
      case 'd':
      case 'D':
      case 'y':
      case 'Y':
        k.date = true;
        break;
      case 'h':
      case 'H':
      case 's':
      case 'S':
        k.time = true;
        break;
      case 'm':
      case 'M':
        k.date = k.date || !k.time;
        break;  // month unless it follows an hour
      default:
        break;
    }
  }
  return k;
}

struct Workbook {
  std::unique_ptr<ZipArchive> zip;
  struct SheetRef {
    std::string name, part;
  };
  std::vector<SheetRef> sheets;
  bool date1904 = false;
  std::string shared_strings_part, styles_part;
};

Result<Workbook> open_workbook(Result<std::unique_ptr<ZipArchive>> zip) {
  Workbook wb;
  if (!zip) return zip.status();
  wb.zip = std::move(*zip);
  const std::string label = wb.zip->label();
  if (!wb.zip->has("[Content_Types].xml") && !wb.zip->has("xl/workbook.xml"))
    return parse_error("'" + label + "' is a zip archive but not an xlsx workbook (no [Content_Types].xml)");

  std::string workbook_part = "xl/workbook.xml";
  if (wb.zip->has("_rels/.rels")) {
    auto rels = load_xml(*wb.zip, "_rels/.rels");
    if (!rels) return rels.status();
    for (pugi::xml_node r : child((*rels)->doc, "Relationships").children()) {
      const char* type = attr(r, "Type");
      if (type && std::string_view(type).ends_with("/officeDocument") && attr(r, "Target"))
        workbook_part = resolve_target("", attr(r, "Target"));
    }
  }
  if (!wb.zip->has(workbook_part)) return parse_error("'" + label + "' has no workbook part ('" + workbook_part + "')");
  const std::string dir = workbook_part.substr(0, workbook_part.find_last_of('/') + 1);
  const std::string rels_part = dir + "_rels/" + workbook_part.substr(dir.size()) + ".rels";

  std::unordered_map<std::string, std::string> targets;
  wb.shared_strings_part = dir + "sharedStrings.xml";
  wb.styles_part = dir + "styles.xml";
  if (wb.zip->has(rels_part)) {
    auto rels = load_xml(*wb.zip, rels_part);
    if (!rels) return rels.status();
    for (pugi::xml_node r : child((*rels)->doc, "Relationships").children()) {
      const char* id = attr(r, "Id");
      const char* target = attr(r, "Target");
      const char* type = attr(r, "Type");
      if (!id || !target) continue;
      std::string resolved = resolve_target(dir, target);
      targets[id] = resolved;
      if (type && std::string_view(type).ends_with("/sharedStrings")) wb.shared_strings_part = resolved;
      if (type && std::string_view(type).ends_with("/styles")) wb.styles_part = resolved;
    }
  }
  auto workbook = load_xml(*wb.zip, workbook_part);
  if (!workbook) return workbook.status();
  pugi::xml_node root = child((*workbook)->doc, "workbook");
  if (pugi::xml_node pr = child(root, "workbookPr")) {
    const char* d = attr(pr, "date1904");
    wb.date1904 = d && (std::string_view(d) == "1" || std::string_view(d) == "true");
  }
  size_t n = 0;
  for (pugi::xml_node s : child(root, "sheets").children()) {
    if (local(s.name()) != "sheet") continue;
    const char* name = attr(s, "name");
    const char* rid = attr(s, "id", true);
    std::string part =
        rid && targets.count(rid) ? targets[rid] : dir + "worksheets/sheet" + std::to_string(++n) + ".xml";
    wb.sheets.push_back({name ? name : "Sheet" + std::to_string(wb.sheets.size() + 1), part});
  }
  if (wb.sheets.empty()) return parse_error("'" + label + "' lists no sheets in its workbook");
  return wb;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Result<std::vector<std::string>> list_xlsx_sheets(const std::filesystem::path& path, const TableLimits& limits) {
  auto wb = open_workbook(ZipArchive::open(path, limits));
  if (!wb) return wb.status();
  std::vector<std::string> names;
  for (auto& s : wb->sheets) names.push_back(s.name);
  return names;
}

namespace {

Result<Sheet> read_sheet(Workbook& wb, const std::string& sheet_name, const TableLimits& limits);

}  // namespace

Result<Sheet> read_xlsx(const std::filesystem::path& path, const std::string& sheet_name, const TableLimits& limits) {
  auto wb = open_workbook(ZipArchive::open(path, limits));
  if (!wb) return wb.status();
  return read_sheet(*wb, sheet_name, limits);
}

Result<Sheet> read_xlsx_bytes(std::string_view bytes, const std::string& label, const std::string& sheet_name,
                              const TableLimits& limits) {
  auto wb = open_workbook(ZipArchive::open_memory(bytes, label, limits));
  if (!wb) return wb.status();
  return read_sheet(*wb, sheet_name, limits);
}

namespace {

Result<Sheet> read_sheet(Workbook& wb, const std::string& sheet_name, const TableLimits& limits) {
  const std::string label = wb.zip->label();

  // Pick the sheet.
  const Workbook::SheetRef* chosen = nullptr;
  if (sheet_name.empty()) {
    chosen = &wb.sheets.front();
  } else if (std::all_of(sheet_name.begin(), sheet_name.end(), ::isdigit) && sheet_name.size() < 6) {
    size_t idx = std::stoul(sheet_name);
    if (idx < wb.sheets.size()) chosen = &wb.sheets[idx];
  } else {
    for (auto& s : wb.sheets) {
      if (lower(s.name) == lower(sheet_name)) chosen = &s;
    }
  }
  if (!chosen) {
    std::string names;
    for (auto& s : wb.sheets) names += (names.empty() ? "'" : ", '") + s.name + "'";
    Status s = not_found("'" + label + "' has no sheet '" + sheet_name + "' (sheets: " + names + ")");
    s.with("path", label).with("sheet", sheet_name);
    return s;
  }

  // Styles: which cell formats are dates.
  std::vector<DateKind> xf_dates;
  if (wb.zip->has(wb.styles_part)) {
    auto styles = load_xml(*wb.zip, wb.styles_part);
    if (!styles) return styles.status();
    pugi::xml_node ss = child((*styles)->doc, "styleSheet");
    std::unordered_map<int, DateKind> custom;
    for (pugi::xml_node f : child(ss, "numFmts").children())
      custom[f.attribute("numFmtId").as_int()] = custom_format(f.attribute("formatCode").value());
    for (pugi::xml_node xf : child(ss, "cellXfs").children()) {
      int id = xf.attribute("numFmtId").as_int();
      auto it = custom.find(id);
      xf_dates.push_back(it != custom.end() ? it->second : builtin_format(id));
    }
  }

  // Shared strings (pugixml: the part is usually small next to the sheet).
  std::vector<std::string> shared;
  const bool has_shared = wb.zip->has(wb.shared_strings_part);
  if (has_shared) {
    auto sst = load_xml(*wb.zip, wb.shared_strings_part);
    if (!sst) return sst.status();
    for (pugi::xml_node si : child((*sst)->doc, "sst").children()) {
      if (local(si.name()) == "si") shared.push_back(string_item_text(si));
    }
  }
  auto sheet_xml = wb.zip->read(chosen->part);
  if (!sheet_xml) return sheet_xml.status();

  SheetContext ctx;
  ctx.label = label;
  ctx.sheet = chosen->name;
  ctx.shared = has_shared ? &shared : nullptr;
  ctx.date1904 = wb.date1904;
  ctx.limits = limits;
  for (auto& k : xf_dates) ctx.date_styles.push_back(static_cast<uint8_t>((k.date ? 1 : 0) | (k.time ? 2 : 0)));
  Sheet sheet;
  sheet.name = chosen->name;
  BIOAGENT_RETURN_IF_ERROR(scan_sheet(*sheet_xml, ctx, &sheet));
  // Trailing rows with no value at all are formatting artifacts.
  while (!sheet.rows.empty() &&
         std::all_of(sheet.rows.back().begin(), sheet.rows.back().end(), [](const Cell& c) { return c.empty(); }))
    sheet.rows.pop_back();
  // Padding to a rectangle multiplies short rows by the widest one: bounded before it is done.
  BIOAGENT_RETURN_IF_ERROR(check_rectangle(sheet, label, limits));
  for (auto& row : sheet.rows) row.resize(sheet.n_cols);
  return sheet;
}

}  // namespace

}  // namespace bioagent
