// Fuzzes the notebook reader on arbitrary documents, with and without search,
// and checks the parallel parse against the sequential one: forced to cut even
// small inputs into pieces, it must give the same result or the same error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "bioagent/notebook.h"

namespace {

void same_in_pieces(std::string_view text, bioagent::NotebookQuery q) {
  q.threads = 1;
  auto seq = bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  q.threads = 3;
  q.parallel_min_bytes = 0;
  auto par = bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  bool same =
      seq.is_ok() == par.is_ok() && (seq.is_ok() ? *seq == *par : seq.status().to_string() == par.status().to_string());
  if (!same) {
    std::fprintf(stderr, "parallel parse differs from sequential:\n%s\nvs\n%s\n",
                 seq.is_ok() ? seq->dump().c_str() : seq.status().to_string().c_str(),
                 par.is_ok() ? par->dump().c_str() : par.status().to_string().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bioagent::NotebookQuery q;
  q.max_output_chars = 1 + (size % 64);
  same_in_pieces(text, q);
  q.search = "a,error";
  (void)bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  q.search = "(x+)+y";
  q.regex = true;
  (void)bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  (void)bioagent::strip_ansi(text);
  return 0;
}
