// Our side of the BM25 benchmark: index the chunks into the entry store that
// backs text_bm25_en (Xapian), then time top-10 queries. Prints build seconds,
// p50 and p95 query milliseconds; writes the top-10 ids per query.
// Usage: bm25_search CHUNKS.tsv QUERIES.txt TOP10_OUT INDEX_DIR
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "index/entry_store.h"

using namespace bioagent;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: bm25_search CHUNKS.tsv QUERIES.txt TOP10_OUT INDEX_DIR\n";
    return 2;
  }
  std::vector<IndexEntry> entries;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    entries.push_back({"chunks", "text_content", line.substr(0, tab), "bench", 1, line.substr(tab + 1)});
  }
  auto t0 = Clock::now();
  auto store = EntryStore::open(argv[4], true);
  if (!store) return std::cerr << store.status().to_string() << "\n", 1;
  PreparedEntries prepared;
  EntryStore::make_documents(entries, prepared);
  auto t1 = Clock::now();
  auto ids = (*store)->replace_paper("bench", prepared);
  if (!ids) return std::cerr << ids.status().to_string() << "\n", 1;
  double build = std::chrono::duration<double>(Clock::now() - t0).count();
  // Where the build time goes (stderr): analysing text into documents, and Xapian's writing.
  std::cerr << "bm25_search: documents " << std::chrono::duration<double>(t1 - t0).count() << " s, Xapian write+commit "
            << std::chrono::duration<double>(Clock::now() - t1).count() << " s\n";
  auto none = FilterExpr::parse("", {});
  const std::set<std::string> visible = {"bench"};
  std::vector<double> times;
  std::ifstream qs(argv[2]);
  std::ofstream out(argv[3]);
  for (std::string q; std::getline(qs, q);) {
    auto t = Clock::now();
    auto hits = (*store)->bm25(q, "chunks", "text_content", *none, visible, 10);
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    if (!hits) return std::cerr << hits.status().to_string() << "\n", 1;
    for (size_t i = 0; i < hits->size(); ++i) out << (i ? " " : "") << (*hits)[i].entry.primary_key;
    out << "\n";
  }
  std::sort(times.begin(), times.end());
  std::printf("%.2f %.3f %.3f\n", build, times[times.size() / 2], times[size_t(double(times.size()) * 0.95)]);
}
