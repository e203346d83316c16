// Fuzzes the expression stage's matrix reader (TSV/CSV as the bytes say):
// every value it returns is finite and non-negative, one per sample.
#include <cmath>
#include <cstdlib>

#include "fuzz_input_file.h"
#include "genefamily/stages/expression_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* suffix : {".tsv", ".csv"}) {
    auto m = bioagent::gf::read_expression_matrix(fuzz_input_file(data, size, suffix));
    if (!m) continue;
    if (m->ids.size() != m->values.size()) std::abort();
    for (auto& row : m->values) {
      if (row.size() != m->samples.size()) std::abort();
      for (double v : row)
        if (!std::isfinite(v) || v < 0) std::abort();
    }
  }
  return 0;
}
