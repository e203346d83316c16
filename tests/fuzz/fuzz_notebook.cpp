// Fuzzes the notebook reader on arbitrary documents, with and without search.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bioagent/notebook.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bioagent::NotebookQuery q;
  q.max_output_chars = 1 + (size % 64);
  (void)bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  q.search = "a,error";
  (void)bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  q.search = "(x+)+y";
  q.regex = true;
  (void)bioagent::read_notebook_text(text, "fuzz.ipynb", q);
  (void)bioagent::strip_ansi(text);
  return 0;
}
