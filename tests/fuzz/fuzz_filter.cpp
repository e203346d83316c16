// Fuzzes the filter-expression parser and evaluator.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/filter_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::set<std::string> kFields = {"pdf_id", "page_number", "bbox", "table_name"};
  auto f = bioagent::FilterExpr::parse(text, kFields);
  if (!f) return 0;
  bioagent::FieldLookup rec = [](std::string_view name) -> std::optional<bioagent::FilterValue> {
    if (name == "pdf_id") return bioagent::FilterValue{std::string("p1")};
    if (name == "page_number") return bioagent::FilterValue{int64_t(2)};
    if (name == "bbox")
      return bioagent::FilterValue{
          std::vector<bioagent::FilterValue>{bioagent::FilterValue{int64_t(1)}, bioagent::FilterValue{2.5}}};
    return std::nullopt;
  };
  (void)f->matches(rec);
  return 0;
}
