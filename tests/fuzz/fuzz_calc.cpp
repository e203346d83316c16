// Fuzzes the calculator: any input must give a value or a clean Status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bioagent/calc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = bioagent::evaluate_expression(text);
  if (r.is_ok())
    (void)r->repr();
  else
    (void)r.status().to_string();
  return 0;
}
