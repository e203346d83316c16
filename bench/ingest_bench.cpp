// Our side of the ingestion benchmark: add PDFs to a fresh paper library
// (layout, captions, sections, references, chunks, DuckDB rows, BM25 and dense
// indexes) with `workers` extraction threads; prints the median seconds over
// `repeats` runs and the page count.
// WORKERS "extract" times the extraction alone (layout to rows, one core).
// Usage: ingest_bench WORKERS|extract REPEATS FILE.pdf...
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "bioagent/papers.h"
#include "papers/paper_extract.h"

using namespace bioagent;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: ingest_bench WORKERS REPEATS FILE.pdf...\n";
    return 2;
  }
  const bool extract_only = std::string(argv[1]) == "extract";
  unsigned workers = unsigned(std::atoi(argv[1]));
  int repeats = std::atoi(argv[2]);
  std::vector<fs::path> files(argv + 3, argv + argc);
  std::vector<double> secs;
  long pages = 0;
  for (int r = 0; r < repeats; ++r) {
    fs::path dir = fs::temp_directory_path() / ("ingest-bench-" + std::to_string(::getpid()) + "-" + std::to_string(r));
    fs::remove_all(dir);
    auto t0 = std::chrono::steady_clock::now();
    if (extract_only) {
      pages = 0;
      for (auto& f : files) {
        auto p = prepare_paper(f);
        if (!p) return std::cerr << f << ": " << p.status().to_string() << "\n", 1;
        pages += p->report.num_pages;
      }
    } else {
      auto lib = PaperLibrary::open((dir / "papers.duckdb").string());
      if (!lib) return std::cerr << lib.status().to_string() << "\n", 1;
      pages = 0;
      size_t failed = (*lib)->add_many(files, workers, [&](size_t i, const Result<IngestReport>& rep) {
        if (rep)
          pages += rep->num_pages;
        else
          std::cerr << files[i] << ": " << rep.status().to_string() << "\n";
      });
      if (failed) return 1;
    }
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    fs::remove_all(dir);
  }
  std::sort(secs.begin(), secs.end());
  std::printf("%.4f %ld\n", secs[secs.size() / 2], pages);
}
