// Fuzzes the FASTA readers as files (plain or gzip, as the bytes say): records
// with the default and with small limits, and a genome's lengths (the same
// records when both read the file); every message must be valid UTF-8.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "bioagent/seqio.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto p = fuzz_input_file(data, size, ".pep.fasta");
  for (const bioagent::InputLimits& l : {bioagent::InputLimits{}, fuzz_small_limits()}) {
    auto r = bioagent::read_fasta(p, l);
    if (!r && bioagent::valid_utf8(r.status().message()) != r.status().message()) std::abort();
    auto n = bioagent::fasta_lengths(p, l);
    if (n && r && n->size() != r->size()) std::abort();  // both readers see the same records
    (void)r.status().to_json().dump();
  }
  return 0;
}
