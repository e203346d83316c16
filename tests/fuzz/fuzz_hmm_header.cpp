// Fuzzes the HMMER3 profile header reader (NAME, ACC, LENG, GA, "//") used to
// choose thresholds and to tell a family's profile from a domain set.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "genefamily/classify/classify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto models = bioagent::gf::read_hmm_models(text, "x.hmm");
  if (models)
    (void)bioagent::gf::hmmsearch_threshold_args(*models, 1e-5);
  else
    (void)models.status().to_json().dump();
  return 0;
}
