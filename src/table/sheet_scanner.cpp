#include "table/sheet_scanner.h"

#include "table/xml_cursor.h"
#include "table/xml_text.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <thread>

namespace bioagent {
namespace {

using namespace xml_cursor;

struct RawRow {
  size_t index;
  std::vector<Cell> cells;
};

class Scanner : private XmlCursor {
 public:
  Scanner(const char* b, const char* e, const SheetContext& ctx, bool second_half)
      : XmlCursor(b, e), ctx_(ctx), second_half_(second_half) {}

  // Rows (and, for the whole sheet, merged ranges). `in_sheet_data` says the
  // range starts inside <sheetData>.
  Status run(bool in_sheet_data, std::vector<RawRow>* rows, std::vector<std::string>* merged) {
    bool in_data = in_sheet_data;
    Tag t;
    while (next_tag(&t)) {
      if (t.name == "sheetData") {
        if (t.closing)
          in_data = false;
        else if (!t.self_closing)
          in_data = true;
        continue;
      }
      if (in_data && t.name == "row" && !t.closing) {
        BIOAGENT_RETURN_IF_ERROR(row(t, rows));
        continue;
      }
      if (merged && t.name == "mergeCell" && !t.closing) {
        std::string ref = attr(t, "ref");
        if (!ref.empty()) merged->push_back(std::move(ref));
      }
    }
    return {};
  }

  bool needs_sequential() const { return needs_sequential_; }
  size_t cells() const { return cells_; }
  uint64_t text_bytes() const { return text_bytes_; }

 private:
  // A cell's r, t and s attributes, read in one pass over its tag (the first of
  // each name counts); views as attr_view's, in ref_buf_, type_buf_ and style_buf_.
  struct CellAttrs {
    std::string_view ref, type, style;
  };
  CellAttrs cell_attrs(const Tag& c) {
    CellAttrs a;
    bool has_ref = false, has_type = false, has_style = false;
    for_each_attr(c, [&](std::string_view an, const AttrValue& v) {
      if (named(an, "r") && !has_ref) {
        a.ref = v.view(ref_buf_);
        has_ref = true;
      } else if (named(an, "t") && !has_type) {
        a.type = v.view(type_buf_);
        has_type = true;
      } else if (named(an, "s") && !has_style) {
        a.style = v.view(style_buf_);
        has_style = true;
      }
      return true;
    });
    return a;
  }

  Status error(std::string_view ref_view, const std::string& what) {
    const std::string ref(ref_view);
    Status s = parse_error("'" + ctx_.label + "', sheet '" + ctx_.sheet + "', cell " + ref + ": " + what);
    s.with("path", ctx_.label).with("sheet", ctx_.sheet).with("cell", ref);
    return s;
  }

  // Counts a cell's text against limits.max_text_bytes (the whole sheet's text).
  Status charge_text(std::string_view ref_view, size_t bytes) {
    text_bytes_ += bytes;
    if (text_bytes_ <= ctx_.limits.max_text_bytes) return {};
    const std::string ref(ref_view);
    Status s = resource_exhausted("'" + ctx_.label + "', sheet '" + ctx_.sheet + "': the cells' text passes " +
                                  std::to_string(ctx_.limits.max_text_bytes >> 20) + " MiB at cell " + ref +
                                  " (shared strings repeated over many cells); the sheet is refused");
    s.with("limit", ctx_.limits.max_text_bytes).with("limit_text_bytes", ctx_.limits.max_text_bytes).with("cell", ref);
    return s;
  }

  Status row(const Tag& t, std::vector<RawRow>* rows) {
    size_t r = next_row_;
    std::string_view rr = attr_view(t, "r", ref_buf_);
    size_t v = 0;
    if (!rr.empty() && std::from_chars(rr.data(), rr.data() + rr.size(), v).ec == std::errc() && v >= 1) {
      r = v - 1;
    } else if (second_half_) {
      needs_sequential_ = true;  // a row without a number cannot be placed from the middle
      return {};
    }
    if (r < next_row_) r = next_row_;  // rows must ascend; a bad number is appended
    if (r >= kExcelMaxRows) {
      Status s = parse_error("'" + ctx_.label + "', sheet '" + ctx_.sheet + "': row " + std::to_string(r + 1) +
                             " is beyond Excel's last row (1,048,576)");
      s.with("path", ctx_.label).with("sheet", ctx_.sheet).with("limit", kExcelMaxRows);
      return s;
    }
    next_row_ = r + 1;
    RawRow out{r, {}};
    if (!t.self_closing) {
      out.cells.reserve(row_width_);
      size_t next_col = 0;
      Tag c;
      CellAttrs a;
      for (;;) {
        if (plain_cell_tag(&c, &a)) {
          BIOAGENT_RETURN_IF_ERROR(cell(c, a, r, &next_col, &out.cells));
          continue;
        }
        if (!next_tag(&c) || (c.closing && named(c.name, "row"))) break;
        if (c.closing) continue;
        if (!named(c.name, "c")) {
          if (!c.self_closing) skip_element();
          continue;
        }
        BIOAGENT_RETURN_IF_ERROR(cell(c, cell_attrs(c), r, &next_col, &out.cells));
      }
    }
    // A row of formatting only (a style, a height, empty styled cells) is no data: not kept, not counted.
    if (out.cells.empty()) return {};
    // The table ends at its last row holding a value: that row's number is bounded, not the formatting's.
    if (r >= ctx_.limits.max_rows) {
      Status s = resource_exhausted("'" + ctx_.label + "', sheet '" + ctx_.sheet + "' has values in more than " +
                                    std::to_string(ctx_.limits.max_rows) + " rows (row " + std::to_string(r + 1) +
                                    " holds one)");
      s.with("limit", ctx_.limits.max_rows).with("limit_rows", ctx_.limits.max_rows);
      return s;
    }
    row_width_ = std::max(row_width_, out.cells.size());
    rows->push_back(std::move(out));
    return {};
  }

  Status cell(const Tag& c, const CellAttrs& a, size_t r, size_t* next_col, std::vector<Cell>* cells) {
    std::string_view ref = a.ref;
    size_t col = *next_col, rr = r;
    if (!ref.empty() && !parse_cell_ref(ref, &rr, &col))  // "XFE1", "A1048577", "1A": no cell Excel can hold
      return error(ref, "no cell reference within Excel's last column XFD (16,384) and last row (1,048,576)");
    if (ref.empty()) {
      col = *next_col;
      ref_buf_ = column_name(col) + std::to_string(r + 1);
      ref = ref_buf_;
    }
    if (col >= kExcelMaxCols) return error(ref, "column beyond Excel's last column XFD (16,384)");
    *next_col = col + 1;
    const std::string_view type = a.type;
    std::string_view value;
    bool inline_string = false;
    if (c.self_closing || !cell_value(&value, &inline_string)) return {};  // formatting only: no data
    if (type != "inlineStr" && value.empty()) return {};                   // a formula without a cached value
    if (col >= ctx_.limits.max_cols)
      return error(ref, "a value beyond the limit of " + std::to_string(ctx_.limits.max_cols) + " columns");
    if (++cells_ > ctx_.limits.max_cells) {
      Status s = resource_exhausted("'" + ctx_.label + "', sheet '" + ctx_.sheet + "' has more than " +
                                    std::to_string(ctx_.limits.max_cells) + " cells");
      s.with("limit", ctx_.limits.max_cells).with("limit_cells", ctx_.limits.max_cells);
      return s;
    }
    Cell out;
    BIOAGENT_RETURN_IF_ERROR(typed_cell(ref, type, a.style, value, inline_string, &out));
    if (out.text.size() > ctx_.limits.max_string_bytes)
      return error(ref, "text longer than " + std::to_string(ctx_.limits.max_string_bytes) + " bytes");
    if (!named(type, "s")) BIOAGENT_RETURN_IF_ERROR(charge_text(ref, out.text.size()));
    if (cells->size() == col)
      cells->push_back(std::move(out));
    else {
      if (cells->size() < col) cells->resize(col + 1);
      (*cells)[col] = std::move(out);
    }
    return {};
  }

  // The children of a <c> up to its end: the <v> value or the <is> inline string; false when it has neither.
  // `value` views the XML when it is one plain <v>, else value_buf_ (valid until the next cell).
  bool cell_value(std::string_view* value, bool* inline_string) {
    if (plain_value(value)) return true;
    bool has_value = false;
    Tag t;
    while (next_tag(&t)) {
      if (t.closing && named(t.name, "c")) break;
      if (t.closing) continue;
      if (named(t.name, "v") && !t.self_closing) {
        if (!has_value) {
          *value = element_text();
        } else {
          buffer_value(value);
          text_until_close(value_buf_);
          *value = value_buf_;
        }
        has_value = true;
      } else if (named(t.name, "is") && !t.self_closing) {
        buffer_value(has_value ? value : nullptr);
        inline_text(&value_buf_);
        *value = value_buf_;
        has_value = *inline_string = true;
      } else if (!t.self_closing) {
        skip_element();  // <f>, <extLst>, ...
      }
    }
    return has_value;
  }

  // The common cell's rest, "<v>text</v></c>" with no prefix, entity, CR or CDATA, read
  // as the general loop would read it but without it; false leaves the position as it was.
  bool plain_value(std::string_view* value) {
    if (end_ - p_ < 11 || std::memcmp(p_, "<v>", 3) != 0) return false;
    const char* b = p_ + 3;
    const char* q = b;
    while (q < end_ && *q != '<' && *q != '&' && *q != '\r') ++q;
    if (end_ - q < 8 || std::memcmp(q, "</v></c>", 8) != 0) return false;
    *value = std::string_view(b, static_cast<size_t>(q - b));
    p_ = q + 8;
    return true;
  }

  // The common cell start tag, "<c" and double-quoted attributes with lower-case names and no
  // entity or CR (as Excel and libxlsxwriter write it), read with its r, t and s in one pass as
  // next_tag and cell_attrs would read it; false leaves the position as it was.
  bool plain_cell_tag(Tag* t, CellAttrs* a) {
    const char* p = p_;
    if (end_ - p < 4 || p[0] != '<' || p[1] != 'c' || p[2] != ' ') return false;
    *a = {};
    for (p += 2; p < end_ && *p != '>'; ++p) {
      if (*p != ' ') return false;
      const char* n = ++p;
      while (p < end_ && *p >= 'a' && *p <= 'z') ++p;
      if (p == n || end_ - p < 2 || p[0] != '=' || p[1] != '"') return false;
      const std::string_view name(n, static_cast<size_t>(p - n));
      const char* v = p += 2;
      while (p < end_ && *p != '"' && *p != '&' && *p != '\r') ++p;
      if (p >= end_ || *p != '"') return false;
      const std::string_view value(v, static_cast<size_t>(p - v));
      if (named(name, "r") && !a->ref.data())
        a->ref = value;
      else if (named(name, "t") && !a->type.data())
        a->type = value;
      else if (named(name, "s") && !a->style.data())
        a->style = value;
    }
    if (p >= end_) return false;
    *t = Tag{std::string_view(p_ + 1, 1), false, false, p_ + 2, p};
    p_ = p + 1;
    return true;
  }

  // The text of the element whose start tag was just read, to its end tag: a view of
  // the XML when it is plain (no entity, CR, CDATA or child), else decoded into value_buf_.
  std::string_view element_text() {
    const char* b = p_;
    const char* q = p_;
    while (q < end_ && *q != '<' && *q != '&' && *q != '\r') ++q;
    if (end_ - q > 1 && q[0] == '<' && q[1] == '/') {
      p_ = q;
      Tag t;
      next_tag(&t);  // the end tag
      return {b, static_cast<size_t>(q - b)};
    }
    value_buf_.clear();
    text_until_close(value_buf_);
    return value_buf_;
  }

  // Makes value_buf_ hold `value` (empty when null) so more text can be appended to it.
  void buffer_value(const std::string_view* value) {
    if (!value)
      value_buf_.clear();
    else if (value->data() != value_buf_.data())
      value_buf_.assign(*value);
  }

  // The cell from its value by its type: inline or shared string, string, boolean, error, date, or number
  // (a date when its style is a date format).
  Status typed_cell(std::string_view ref, std::string_view type, std::string_view style, std::string_view value,
                    bool inline_string, Cell* out) {
    if (inline_string || type == "inlineStr" || type == "str") {
      std::string text(value);
      unescape_ooxml(text);
      *out = Cell::of_string(std::move(text));
    } else if (named(type, "s")) {
      size_t idx = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), idx);
      if (!ctx_.shared) return error(ref, "refers to a shared string, but the workbook has no shared-strings part");
      if (ec != std::errc() || idx >= ctx_.shared->size())
        return error(ref, "shared string index '" + std::string(value) + "' is out of range (" +
                              std::to_string(ctx_.shared->size()) + " strings)");
      // One shared string may be referenced by every cell: the sheet's text is
      // bounded before the copy is made, not after.
      BIOAGENT_RETURN_IF_ERROR(charge_text(ref, (*ctx_.shared)[idx].size()));
      *out = Cell::of_string((*ctx_.shared)[idx]);
    } else if (named(type, "b")) {
      *out = Cell::of_bool(value == "1" || value == "true");
    } else if (named(type, "e") || named(type, "d")) {
      out->kind = named(type, "e") ? Cell::Kind::kError : Cell::Kind::kDate;
      out->text = std::string(value);
    } else {
      return number_cell(ref, style, value, out);
    }
    return {};
  }

  Status number_cell(std::string_view ref, std::string_view style, std::string_view value, Cell* out) {
    std::string_view sv(value);
    while (!sv.empty() && sv.front() == ' ') sv.remove_prefix(1);
    while (!sv.empty() && sv.back() == ' ') sv.remove_suffix(1);
    double d = 0;
    auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), d);
    if (ec != std::errc() || p != sv.data() + sv.size())
      return error(ref, "number '" + std::string(value) + "' is not a number");
    *out = Cell::of_number(d);
    size_t s = 0;
    if (!style.empty() && std::from_chars(style.data(), style.data() + style.size(), s).ec == std::errc() &&
        s < ctx_.date_styles.size() && ctx_.date_styles[s]) {
      out->kind = Cell::Kind::kDate;
      out->text = excel_serial_to_iso(d, ctx_.date1904, ctx_.date_styles[s] & 1, ctx_.date_styles[s] & 2);
    }
    return {};
  }

  // <is>: the <t> of the element or of each rich-text run; phonetic runs skipped.
  void inline_text(std::string* out) {
    Tag t;
    while (next_tag(&t)) {
      if (t.closing && t.name == "is") return;
      if (t.closing || t.self_closing) continue;
      if (t.name == "t")
        text_until_close(*out);
      else if (t.name == "rPh")
        skip_element();
    }
  }

  const SheetContext& ctx_;
  bool second_half_;
  bool needs_sequential_ = false;
  size_t next_row_ = 0;
  size_t cells_ = 0;
  size_t row_width_ = 0;                        // the widest row so far: each row's cells are reserved at once
  std::string ref_buf_, type_buf_, style_buf_;  // attr_view's scratch for a cell's r, t and s
  std::string value_buf_;                       // a cell's value when it is not one plain <v>
  uint64_t text_bytes_ = 0;
};

// A "<row" or "<x:row" start tag at or after `from`, or npos.
size_t next_row_tag(std::string_view xml, size_t from) {
  for (size_t at = xml.find("row", from); at != std::string_view::npos; at = xml.find("row", at + 3)) {
    if (at + 3 >= xml.size()) break;
    char after = xml[at + 3];
    if (after != ' ' && after != '>' && after != '/' && after != '\t' && after != '\n') continue;
    size_t lt = at;
    while (lt > 0 && xml[lt - 1] != '<' && xml[lt - 1] != ' ' && xml[lt - 1] != '>' && at - lt < 16) --lt;
    if (lt > 0 && xml[lt - 1] == '<') {
      std::string_view prefix = xml.substr(lt, at - lt);
      if (prefix.empty() || prefix.back() == ':') return lt - 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Status scan_sheet(std::string_view xml, const SheetContext& ctx, Sheet* out) {
  std::vector<RawRow> first, second;
  std::vector<std::string> merged;
  // Large sheets: split at a row start inside <sheetData>, scan both halves at once.
  size_t data_begin = xml.find("sheetData");
  size_t data_end = xml.rfind("sheetData");
  size_t split = std::string_view::npos;
  if (xml.size() > (4u << 20) && data_begin != std::string_view::npos && data_end > data_begin &&
      std::thread::hardware_concurrency() > 1) {
    split = next_row_tag(xml, data_begin + (data_end - data_begin) / 2);
    if (split != std::string_view::npos && split >= data_end) split = std::string_view::npos;
  }
  bool sequential = split == std::string_view::npos;
  if (!sequential) {
    Scanner a(xml.data(), xml.data() + split, ctx, false);
    Scanner b(xml.data() + split, xml.data() + xml.size(), ctx, true);
    Status sa, sb;
    std::exception_ptr failure;
    std::thread helper([&] {
      try {
        sb = b.run(true, &second, &merged);
      } catch (...) {
        failure = std::current_exception();
      }
    });
    try {
      sa = a.run(false, &first, nullptr);
    } catch (...) {
      helper.join();
      throw;
    }
    helper.join();
    if (failure) std::rethrow_exception(failure);
    BIOAGENT_RETURN_IF_ERROR(sa);
    BIOAGENT_RETURN_IF_ERROR(sb);
    if (a.cells() + b.cells() > ctx.limits.max_cells)
      return resource_exhausted("'" + ctx.label + "', sheet '" + ctx.sheet + "' has more than " +
                                std::to_string(ctx.limits.max_cells) + " cells");
    if (a.text_bytes() + b.text_bytes() > ctx.limits.max_text_bytes)
      return resource_exhausted("'" + ctx.label + "', sheet '" + ctx.sheet + "': the cells' text passes " +
                                std::to_string(ctx.limits.max_text_bytes >> 20) + " MiB; the sheet is refused");
    if (b.needs_sequential() || (!first.empty() && !second.empty() && second.front().index <= first.back().index)) {
      sequential = true;  // rows without numbers, or out of order: read it in one pass
      first.clear();
      second.clear();
      merged.clear();
    }
  }
  if (sequential) {
    Scanner s(xml.data(), xml.data() + xml.size(), ctx, false);
    BIOAGENT_RETURN_IF_ERROR(s.run(false, &first, &merged));
  }
  size_t n_rows = 0;
  for (auto* part : {&first, &second}) {
    if (!part->empty()) n_rows = std::max(n_rows, part->back().index + 1);
  }
  out->rows.assign(n_rows, {});
  for (auto* part : {&first, &second}) {
    for (auto& r : *part) {
      out->n_cols = std::max(out->n_cols, r.cells.size());
      out->rows[r.index] = std::move(r.cells);
    }
  }
  out->merged = std::move(merged);
  return {};
}

}  // namespace bioagent
