// Reading spreadsheets: .xlsx (zip + XML, our own reader) and CSV/TSV
// (RFC 4180). Cells keep their column positions (sparse rows are padded with
// empty cells); numbers keep their shortest exact text (0.1 stays 0.1);
// dates become ISO 8601 in the workbook's date system. Hostile files are
// bounded by TableLimits (zip bombs, huge sheets, huge strings) and every error
// names the file and the problem. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct Cell {
  enum class Kind { kEmpty, kNumber, kString, kBool, kError, kDate };
  Kind kind = Kind::kEmpty;
  double number = 0;  // kNumber; kBool as 0/1
  std::string text;   // kString, kError ("#N/A"), kDate (ISO 8601)

  static Cell of_number(double v) { return {Kind::kNumber, v, {}}; }
  static Cell of_string(std::string s) { return {Kind::kString, 0, std::move(s)}; }
  static Cell of_bool(bool b) { return {Kind::kBool, b ? 1.0 : 0.0, {}}; }
  bool empty() const { return kind == Kind::kEmpty; }
  // JSON value: null, an integer when the number is integral, a float, a string or a bool.
  Json to_json() const;
  // Text as a person reads it ("" for empty, "TRUE", "0.1", "2024-03-01").
  std::string to_text() const;
};

struct Sheet {
  std::string name;
  std::vector<std::vector<Cell>> rows;  // rectangular: every row has n_cols cells
  size_t n_cols = 0;
  std::vector<std::string> merged;  // merged ranges as "A1:B2"

  // Rows as JSON arrays of cell values.
  Json rows_json() const;
};

struct TableLimits {
  uint64_t max_uncompressed_bytes = 1ull << 30;  // all parts read from one xlsx
  uint64_t max_part_bytes = 512ull << 20;        // one part (a sheet's XML)
  double max_ratio = 200;                        // uncompressed / compressed, per part over 1 MiB
  size_t max_rows = 2'000'000;
  size_t max_cols = 16'384;  // Excel's own limit (XFD)
  size_t max_cells = 50'000'000;
  size_t max_string_bytes = 1u << 20;  // one cell's text
  // All cells' text of one sheet (a shared string counts once per cell that uses
  // it): 12,000 cells naming one 1 MiB string are refused, not built.
  uint64_t max_text_bytes = 256ull << 20;
  uint64_t max_csv_bytes = 2ull << 30;
};

// Sheet names of a workbook, in workbook order.
Result<std::vector<std::string>> list_xlsx_sheets(const std::filesystem::path& path, const TableLimits& limits = {});

// Reads one sheet: `sheet` is a name (case-insensitive) or, when it is all
// digits, a 0-based index; empty means the first sheet.
Result<Sheet> read_xlsx(const std::filesystem::path& path, const std::string& sheet = "",
                        const TableLimits& limits = {});

// The same from a workbook held in memory; `label` names it in errors.
Result<Sheet> read_xlsx_bytes(std::string_view bytes, const std::string& label, const std::string& sheet = "",
                              const TableLimits& limits = {});

struct CsvOptions {
  char delimiter = 0;           // 0: sniff among , \t ; |
  bool convert_numbers = true;  // fields that are whole numbers become numbers
};

Result<Sheet> read_csv(const std::filesystem::path& path, const CsvOptions& options = {},
                       const TableLimits& limits = {});
Result<Sheet> parse_csv(std::string_view text, const std::string& label, const CsvOptions& options = {},
                        const TableLimits& limits = {});

// By extension: .xlsx/.xlsm → read_xlsx; .csv/.tsv/.txt → read_csv.
Result<Sheet> read_table(const std::filesystem::path& path, const std::string& sheet = "",
                         const TableLimits& limits = {});

// "C7" → (row 6, col 2); false if malformed.
bool parse_cell_ref(std::string_view ref, size_t* row, size_t* col);
std::string column_name(size_t col);  // 0 → "A", 26 → "AA"

// Excel serial date → ISO 8601 ("2024-03-01", "2024-03-01T12:30:00", or
// "12:30:00" for a time of day); `date1904` selects the 1904 date system.
std::string excel_serial_to_iso(double serial, bool date1904, bool has_date, bool has_time);

}  // namespace bioagent
