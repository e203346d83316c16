// Fuzzes the calculator: any input must give a value or a clean Status.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bioagent/calc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = bioagent::evaluate_expression(text);
  if (r.is_ok() && r->kind == bioagent::CalcValue::Kind::kInt) {
    // Exact integers print and read back as the same number.
    const std::string text_form = r->repr();
    const bool negative = text_form[0] == '-';
    auto back = bioagent::BigInt::parse(std::string_view(text_form).substr(negative ? 1 : 0), 10);
    if (!back || (negative ? -*back : *back).compare(r->i) != 0) __builtin_trap();
  } else if (r.is_ok()) {
    (void)r->repr();
  } else
    (void)r.status().to_string();
  return 0;
}
