// Fuzzes the gene-family parsers: FASTA, GFF3, HMMER domain tables, Newick,
// and the naming-rule check of a file name.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/newick.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto f = bioagent::parse_fasta(text); f.is_ok())
    for (auto& r : *f) (void)bioagent::translate(r.seq);
  if (auto g = bioagent::parse_gff3(text); g.is_ok())
    for (auto& [id, t] : g->transcripts) (void)t.cds_length();
  (void)bioagent::parse_domtblout(text);
  if (auto t = bioagent::parse_newick(text); t.is_ok()) {
    (void)t->supports();
    auto leaves = t->leaves();
    if (leaves.size() >= 2) (void)t->distance(leaves.front(), leaves.back());
  }
  if (size < 300) (void)bioagent::check_file_name(text);
  return 0;
}
