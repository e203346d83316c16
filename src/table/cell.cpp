// Cells, cell references and Excel dates.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bioagent/calc.h"
#include "bioagent/table.h"
#include "table/table_bounds.h"

namespace bioagent {

namespace {

// Largest integer a double holds exactly; beyond it a number stays a float.
constexpr double kExactInt = 9007199254740992.0;

// Days since 1970-01-01 → civil date (proleptic Gregorian), after the
// well-known era-based algorithm (400-year cycles of 146097 days).
void civil_from_days(int64_t z, int* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int>(yy + (*m <= 2));
}

}  // namespace

Json Cell::to_json() const {
  switch (kind) {
    case Kind::kEmpty:
      return nullptr;
    case Kind::kNumber:
      if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) < kExactInt)
        return static_cast<int64_t>(number);
      return number;
    case Kind::kBool:
      return number != 0;
    case Kind::kString:
    case Kind::kError:
    case Kind::kDate:
      return text;
  }
  return nullptr;
}

std::string Cell::to_text() const {
  switch (kind) {
    case Kind::kEmpty:
      return "";
    case Kind::kNumber: {
      if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) < kExactInt)
        return std::to_string(static_cast<int64_t>(number));
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number);
      return std::string(buf, end);
    }
    case Kind::kBool:
      return number != 0 ? "TRUE" : "FALSE";
    default:
      return text;
  }
}

Json Sheet::rows_json() const {
  Json out = Json::array();
  out.get_ref<Json::array_t&>().reserve(rows.size());
  for (const auto& row : rows) {
    Json r = Json::array();
    r.get_ref<Json::array_t&>().reserve(row.size());
    for (const auto& c : row) r.push_back(c.to_json());
    out.push_back(std::move(r));
  }
  return out;
}

Status check_rectangle(const Sheet& sheet, const std::string& label, const TableLimits& limits) {
  const uint64_t rows = sheet.rows.size(), cols = sheet.n_cols;
  if (cols == 0 || rows <= limits.max_cells / cols) return {};
  Status s = resource_exhausted("refused: '" + label + "' spans " + std::to_string(rows) + " rows x " +
                                std::to_string(cols) + " columns, more than " + std::to_string(limits.max_cells) +
                                " cells once its short rows are filled out");
  s.with("path", label).with("limit_cells", limits.max_cells);
  return s;
}

bool parse_cell_ref(std::string_view ref, size_t* row, size_t* col) {
  size_t i = 0, c = 0, r = 0;
  while (i < ref.size() && ref[i] >= 'A' && ref[i] <= 'Z') {
    c = c * 26 + static_cast<size_t>(ref[i] - 'A' + 1);
    if (c > 16384) return false;
    ++i;
  }
  if (i == 0 || i == ref.size()) return false;
  size_t digits = 0;
  for (; i < ref.size(); ++i, ++digits) {
    if (ref[i] < '0' || ref[i] > '9' || digits > 8) return false;
    r = r * 10 + static_cast<size_t>(ref[i] - '0');
  }
  if (r == 0) return false;
  *row = r - 1;
  *col = c - 1;
  return true;
}

std::string column_name(size_t col) {
  std::string s;
  for (size_t n = col + 1; n > 0; n = (n - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (n - 1) % 26));
  return s;
}

namespace {

// Writes `v` in decimal, zero-padded to at least `width` digits; returns the end.
char* put_digits(char* out, uint64_t v, int width) {
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (n < width) tmp[n++] = '0';
  while (n > 0) *out++ = tmp[--n];
  return out;
}

}  // namespace

std::string excel_serial_to_iso(double serial, bool date1904, bool has_date, bool has_time) {
  if (!std::isfinite(serial) || serial < 0 || serial > 2958465.99999)
    return python_float_repr(serial);  // past 9999-12-31
  int64_t days = static_cast<int64_t>(std::floor(serial));
  int64_t ms = std::llround((serial - static_cast<double>(days)) * 86400000.0);
  if (ms >= 86400000) {
    days += 1;
    ms -= 86400000;
  }
  // 1900 system: serial 1 is 1900-01-01 and Excel counts a 29 February 1900
  // that never was, so serials below 60 are shifted by a day (as openpyxl does).
  int64_t unix_days;
  if (date1904) {
    unix_days = days - 24107;  // 1904-01-01 is day -24107 from 1970-01-01
  } else {
    if (days < 60) days += 1;
    unix_days = days - 25569;  // 1899-12-30 is day -25569
  }
  int y;
  unsigned m, d;
  civil_from_days(unix_days, &y, &m, &d);
  // Formatted by hand: this runs once per date cell of a sheet.
  char date[16], time[24];
  char* q = put_digits(date, static_cast<uint64_t>(y), 4);  // 1900..10003: four digits or five
  *q++ = '-';
  q = put_digits(q, m, 2);
  *q++ = '-';
  q = put_digits(q, d, 2);
  *q = '\0';
  int64_t secs = ms / 1000, rem_ms = ms % 1000;
  q = put_digits(time, static_cast<uint64_t>(secs / 3600), 2);
  *q++ = ':';
  q = put_digits(q, static_cast<uint64_t>(secs / 60 % 60), 2);
  *q++ = ':';
  q = put_digits(q, static_cast<uint64_t>(secs % 60), 2);
  if (rem_ms) {
    *q++ = '.';
    q = put_digits(q, static_cast<uint64_t>(rem_ms), 3);
  }
  *q = '\0';
  if (!has_date && has_time && serial < 1) return time;
  if (has_time || ms != 0) return std::string(date) + "T" + time;
  return date;
}

}  // namespace bioagent
