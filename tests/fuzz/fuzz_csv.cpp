// Fuzzes the CSV parser: sniffed and fixed delimiters, small limits.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bioagent::TableLimits limits;
  limits.max_rows = 5000;
  limits.max_cells = 50000;
  limits.max_string_bytes = 4096;
  auto r = bioagent::parse_csv(text, "fuzz.csv", {}, limits);
  if (r.is_ok()) (void)r->rows_json();
  bioagent::CsvOptions tab;
  tab.delimiter = '\t';
  tab.convert_numbers = false;
  (void)bioagent::parse_csv(text, "fuzz.tsv", tab, limits);
  return 0;
}
