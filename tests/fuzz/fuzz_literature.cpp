// Fuzzes every literature parser and the HTML-to-text extractor with the same
// bytes: responses from the network are untrusted input.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/literature.h"
#include "bioagent/text_extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)bioagent::parse_esearch(text);
  (void)bioagent::parse_pubmed_efetch(text);
  (void)bioagent::parse_europepmc(text);
  (void)bioagent::parse_ctgov(text);
  (void)bioagent::parse_arxiv(text);
  if (auto r = bioagent::parse_semantic_scholar(text)) (void)bioagent::deduplicate(*r);
  (void)bioagent::html_to_text(text);
  (void)bioagent::sniff_content(text, "text/html");
  return 0;
}
