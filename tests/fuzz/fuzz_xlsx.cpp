// Fuzzes the xlsx reader on arbitrary bytes (zip container, XML parts, cells)
// with small limits, so a hostile file can only ever produce a clean Status.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bioagent::TableLimits limits;
  limits.max_uncompressed_bytes = 8u << 20;
  limits.max_part_bytes = 4u << 20;
  limits.max_rows = 10000;
  limits.max_cells = 100000;
  auto r = bioagent::read_xlsx_bytes(bytes, "fuzz.xlsx", "", limits);
  if (r.is_ok()) (void)r->rows_json();
  (void)bioagent::read_xlsx_bytes(bytes, "fuzz.xlsx", "1", limits);
  return 0;
}
