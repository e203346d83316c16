// Fuzzes the GFF3/GTF reader as a file (plain or gzip, as the bytes say) with
// the default and with small limits; every message must be valid UTF-8.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "bioagent/seqio.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto p = fuzz_input_file(data, size, ".gff3");
  for (const bioagent::InputLimits& l : {bioagent::InputLimits{}, fuzz_small_limits()}) {
    auto g = bioagent::read_gff3(p, l);
    if (!g) {
      if (bioagent::valid_utf8(g.status().message()) != g.status().message()) std::abort();
      (void)g.status().to_json().dump();
      continue;
    }
    for (auto& [id, t] : g->transcripts) (void)t.cds_length();
  }
  return 0;
}
