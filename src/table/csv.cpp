// CSV/TSV per RFC 4180: quoted fields with "" escapes and embedded newlines,
// CRLF/LF/CR line ends, a UTF-8 byte-order mark skipped, the delimiter sniffed
// from the first lines when not given. A quote that never closes is an error
// that names the line where the field began.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "bioagent/table.h"
#include "table/table_bounds.h"

namespace bioagent {
namespace {

// Counts fields per line for the first lines of `text` with delimiter `d`.
std::vector<size_t> field_counts(std::string_view text, char d, size_t max_lines) {
  std::vector<size_t> counts;
  size_t fields = 1;
  bool quoted = false;
  for (size_t i = 0; i < text.size() && counts.size() < max_lines; ++i) {
    char c = text[i];
    if (c == '"')
      quoted = !quoted;
    else if (!quoted && c == d)
      ++fields;
    else if (!quoted && (c == '\n' || c == '\r')) {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      counts.push_back(fields);
      fields = 1;
    }
  }
  return counts;
}

// The candidate whose per-line field count is most consistent (and above one).
char sniff_delimiter(std::string_view text) {
  char best = ',';
  double best_score = 0;
  for (char d : {',', '\t', ';', '|'}) {
    auto counts = field_counts(text.substr(0, 64 * 1024), d, 50);
    if (counts.empty()) continue;
    size_t mode = counts[0];
    size_t agree = static_cast<size_t>(std::count(counts.begin(), counts.end(), mode));
    if (mode < 2) continue;
    double score = static_cast<double>(agree) / static_cast<double>(counts.size()) + 0.001 * static_cast<double>(mode);
    if (score > best_score) {
      best_score = score;
      best = d;
    }
  }
  return best;
}

// A plain decimal number (no leading zeros except "0" and "0.x", so IDs such
// as "007" stay text).
bool looks_numeric(std::string_view s, double* out) {
  if (s.empty() || s.size() > 64) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i + 1 < s.size() && s[i] == '0' && std::isdigit(static_cast<unsigned char>(s[i + 1]))) return false;
  if (s[0] == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace

Result<Sheet> parse_csv(std::string_view text, const std::string& label, const CsvOptions& options,
                        const TableLimits& limits) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const char d = options.delimiter ? options.delimiter : sniff_delimiter(text);
  Sheet sheet;
  sheet.name = label;
  std::vector<Cell> row;
  std::string field;
  bool quoted_field = false;
  size_t line = 1, field_start_line = 1, cells = 0;
  uint64_t text_bytes = 0;
  auto end_field = [&]() -> Status {
    if (field.size() > limits.max_string_bytes) {
      Status s = resource_exhausted("'" + label + "', line " + std::to_string(field_start_line) +
                                    ": a field is longer than " + std::to_string(limits.max_string_bytes) + " bytes");
      s.with("path", label).with("line", field_start_line);
      return s;
    }
    if ((text_bytes += field.size()) > limits.max_text_bytes) {
      Status s = resource_exhausted("refused: the cells of '" + label + "' hold more than " +
                                    std::to_string(limits.max_text_bytes >> 20) + " MiB of text (at line " +
                                    std::to_string(field_start_line) + ")");
      s.with("path", label).with("limit_text_bytes", limits.max_text_bytes);
      return s;
    }
    if (row.size() >= limits.max_cols || ++cells > limits.max_cells) {
      Status s = resource_exhausted("refused: '" + label + "' has more than " + std::to_string(limits.max_cols) +
                                    " columns or " + std::to_string(limits.max_cells) + " cells");
      s.with("path", label).with("limit_cells", limits.max_cells).with("limit_cols", limits.max_cols);
      return s;
    }
    double v;
    if (field.empty() && !quoted_field)
      row.emplace_back();
    else if (!quoted_field && options.convert_numbers && looks_numeric(field, &v))
      row.push_back(Cell::of_number(v));
    else
      row.push_back(Cell::of_string(field));
    field.clear();
    quoted_field = false;
    return {};
  };
  auto end_row = [&]() -> Status {
    BIOAGENT_RETURN_IF_ERROR(end_field());
    if (sheet.rows.size() >= limits.max_rows) {
      Status s =
          resource_exhausted("refused: '" + label + "' has more than " + std::to_string(limits.max_rows) + " rows");
      s.with("path", label).with("limit_rows", limits.max_rows);
      return s;
    }
    sheet.n_cols = std::max(sheet.n_cols, row.size());
    sheet.rows.push_back(std::move(row));
    row.clear();
    return {};
  };
  size_t i = 0;
  const size_t n = text.size();
  bool at_row_start = true;
  while (i < n) {
    char c = text[i];
    if (at_row_start) field_start_line = line;
    at_row_start = false;
    if (c == '"' && field.empty() && !quoted_field) {
      // Quoted field: runs to the next lone quote.
      quoted_field = true;
      field_start_line = line;
      ++i;
      bool closed = false;
      while (i < n) {
        char q = text[i];
        if (q == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        if (q == '\n') ++line;
        field += q;
        ++i;
      }
      if (!closed) {
        Status s = parse_error("'" + label + "': unbalanced quotes: the quoted field that starts on line " +
                               std::to_string(field_start_line) + " never ends");
        s.with("path", label).with("line", field_start_line);
        return s;
      }
      continue;
    }
    if (c == d) {
      BIOAGENT_RETURN_IF_ERROR(end_field());
      field_start_line = line;
      ++i;
    } else if (c == '\n' || c == '\r') {
      BIOAGENT_RETURN_IF_ERROR(end_row());
      if (c == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
      ++i;
      ++line;
      at_row_start = true;
    } else {
      field += c;  // a quote inside an unquoted field is kept literally
      ++i;
    }
  }
  if (!field.empty() || quoted_field || !row.empty()) BIOAGENT_RETURN_IF_ERROR(end_row());
  // Padding to a rectangle multiplies short rows by the widest one: bounded before it is done.
  BIOAGENT_RETURN_IF_ERROR(check_rectangle(sheet, label, limits));
  for (auto& r : sheet.rows) r.resize(sheet.n_cols);
  return sheet;
}

Result<Sheet> read_csv(const std::filesystem::path& path, const CsvOptions& options, const TableLimits& limits) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    Status s = not_found("cannot read '" + path.string() + "': " + ec.message());
    s.with("path", path.string());
    return s;
  }
  if (size > limits.max_csv_bytes)
    return resource_exhausted("'" + path.string() + "' is " + std::to_string(size) + " bytes, over the limit of " +
                              std::to_string(limits.max_csv_bytes));
  std::ifstream in(path, std::ios::binary);
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<size_t>(in.gcount()));
  CsvOptions o = options;
  if (!o.delimiter && path.extension() == ".tsv") o.delimiter = '\t';
  return parse_csv(text, path.string(), o, limits);
}

Result<Sheet> read_table(const std::filesystem::path& path, const std::string& sheet, const TableLimits& limits) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".xlsx" || ext == ".xlsm") return read_xlsx(path, sheet, limits);
  if (ext == ".csv" || ext == ".tsv" || ext == ".txt" || ext == ".tab") return read_csv(path, {}, limits);
  if (ext == ".xls")
    return unsupported("'" + path.string() + "' is a legacy .xls (BIFF) workbook; save it as .xlsx or .csv");
  Status s = unsupported("'" + path.string() + "' is not a table bioagent reads (.xlsx, .xlsm, .csv, .tsv, .txt)");
  s.with("path", path.string());
  return s;
}

}  // namespace bioagent
