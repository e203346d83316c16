// Our side of the ViewImage benchmark: ingest one PDF, then render one page
// (and a clip of it) through the ViewImage path REPEATS times; prints the
// median milliseconds for the page and for the clip.
// Usage: view_image_bench FILE.pdf PAGE REPEATS
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bioagent/papers.h"

using namespace bioagent;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: view_image_bench FILE.pdf PAGE REPEATS\n";
    return 2;
  }
  int page = std::atoi(argv[2]), repeats = std::atoi(argv[3]);
  fs::path dir = fs::temp_directory_path() / ("view-bench-" + std::to_string(::getpid()));
  std::string db = (dir / "papers.duckdb").string();
  std::string id;
  {
    auto lib = PaperLibrary::open(db);
    if (!lib) return std::cerr << lib.status().to_string() << "\n", 1;
    auto rep = (*lib)->add(argv[1]);
    if (!rep) return std::cerr << rep.status().to_string() << "\n", 1;
    id = rep->paper_id;
  }
  auto time = [&](const std::vector<double>& box) {
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto img = view_image(db, id, page, box);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!img) return std::cerr << img.status().to_string() << "\n", -1.0;
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  double full = time({}), clip = time({50, 50, 300, 200});
  fs::remove_all(dir);
  if (full < 0 || clip < 0) return 1;
  std::printf("%.2f %.2f\n", full, clip);
}
