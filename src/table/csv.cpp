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

namespace {

// One CSV text read field by field into a sheet, every limit checked as it grows.
class CsvReader {
 public:
  CsvReader(std::string_view text, const std::string& label, const CsvOptions& options, const TableLimits& limits)
      : text_(text), label_(label), options_(options), limits_(limits) {
    sheet_.name = label;
  }
  Result<Sheet> read(char delimiter);

 private:
  Status end_field();
  Status end_row();
  Status quoted_field();

  std::string_view text_;
  const std::string& label_;
  const CsvOptions& options_;
  const TableLimits& limits_;
  Sheet sheet_;
  std::vector<Cell> row_;
  std::string field_;
  bool quoted_field_ = false;
  size_t line_ = 1, field_start_line_ = 1, cells_ = 0, i_ = 0;
  uint64_t text_bytes_ = 0;
};

Status CsvReader::end_field() {
  if (field_.size() > limits_.max_string_bytes) {
    Status s = resource_exhausted("'" + label_ + "', line " + std::to_string(field_start_line_) +
                                  ": a field is longer than " + std::to_string(limits_.max_string_bytes) + " bytes");
    s.with("path", label_).with("line", field_start_line_);
    return s;
  }
  if ((text_bytes_ += field_.size()) > limits_.max_text_bytes) {
    Status s = resource_exhausted("refused: the cells of '" + label_ + "' hold more than " +
                                  std::to_string(limits_.max_text_bytes >> 20) + " MiB of text (at line " +
                                  std::to_string(field_start_line_) + ")");
    s.with("path", label_).with("limit_text_bytes", limits_.max_text_bytes);
    return s;
  }
  if (row_.size() >= limits_.max_cols || ++cells_ > limits_.max_cells) {
    Status s = resource_exhausted("refused: '" + label_ + "' has more than " + std::to_string(limits_.max_cols) +
                                  " columns or " + std::to_string(limits_.max_cells) + " cells");
    s.with("path", label_).with("limit_cells", limits_.max_cells).with("limit_cols", limits_.max_cols);
    return s;
  }
  double v;
  if (field_.empty() && !quoted_field_)
    row_.emplace_back();
  else if (!quoted_field_ && options_.convert_numbers && looks_numeric(field_, &v))
    row_.push_back(Cell::of_number(v));
  else
    row_.push_back(Cell::of_string(field_));
  field_.clear();
  quoted_field_ = false;
  return {};
}

Status CsvReader::end_row() {
  BIOAGENT_RETURN_IF_ERROR(end_field());
  if (sheet_.rows.size() >= limits_.max_rows) {
    Status s =
        resource_exhausted("refused: '" + label_ + "' has more than " + std::to_string(limits_.max_rows) + " rows");
    s.with("path", label_).with("limit_rows", limits_.max_rows);
    return s;
  }
  sheet_.n_cols = std::max(sheet_.n_cols, row_.size());
  sheet_.rows.push_back(std::move(row_));
  row_.clear();
  return {};
}

// A quoted field from its opening quote: runs to the next lone quote ("" is a quote).
Status CsvReader::quoted_field() {
  const size_t n = text_.size();
  quoted_field_ = true;
  field_start_line_ = line_;
  ++i_;
  while (i_ < n) {
    char q = text_[i_];
    if (q == '"') {
      if (i_ + 1 < n && text_[i_ + 1] == '"') {
        field_ += '"';
        i_ += 2;
        continue;
      }
      ++i_;
      return {};
    }
    if (q == '\n') ++line_;
    field_ += q;
    ++i_;
  }
  Status s = parse_error("'" + label_ + "': unbalanced quotes: the quoted field that starts on line " +
                         std::to_string(field_start_line_) + " never ends");
  s.with("path", label_).with("line", field_start_line_);
  return s;
}

Result<Sheet> CsvReader::read(char d) {
  const size_t n = text_.size();
  bool at_row_start = true;
  while (i_ < n) {
    char c = text_[i_];
    if (at_row_start) field_start_line_ = line_;
    at_row_start = false;
    if (c == '"' && field_.empty() && !quoted_field_) {
      BIOAGENT_RETURN_IF_ERROR(quoted_field());
    } else if (c == d) {
      BIOAGENT_RETURN_IF_ERROR(end_field());
      field_start_line_ = line_;
      ++i_;
    } else if (c == '\n' || c == '\r') {
      BIOAGENT_RETURN_IF_ERROR(end_row());
      if (c == '\r' && i_ + 1 < n && text_[i_ + 1] == '\n') ++i_;
      ++i_;
      ++line_;
      at_row_start = true;
    } else {
      field_ += c;  // a quote inside an unquoted field is kept literally
      ++i_;
    }
  }
  if (!field_.empty() || quoted_field_ || !row_.empty()) BIOAGENT_RETURN_IF_ERROR(end_row());
  // Padding to a rectangle multiplies short rows by the widest one: bounded before it is done.
  BIOAGENT_RETURN_IF_ERROR(check_rectangle(sheet_, label_, limits_));
  for (auto& r : sheet_.rows) r.resize(sheet_.n_cols);
  return std::move(sheet_);
}

}  // namespace

Result<Sheet> parse_csv(std::string_view text, const std::string& label, const CsvOptions& options,
                        const TableLimits& limits) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const char d = options.delimiter ? options.delimiter : sniff_delimiter(text);
  return CsvReader(text, label, options, limits).read(d);
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
