// In-process timing of the notebook reader. Usage:
//   notebook_bench NOTEBOOK REPEATS SEARCH MAX_CHARS [OUT.json]
// Prints the median milliseconds of read + extract; optionally writes the result.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <vector>

#include "bioagent/notebook.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: notebook_bench NOTEBOOK REPEATS SEARCH MAX_CHARS [OUT.json]\n";
    return 2;
  }
  bioagent::NotebookQuery q;
  q.search = argv[3];
  q.max_output_chars = std::stoul(argv[4]);
  int repeats = std::stoi(argv[2]);
  std::vector<double> ms;
  bioagent::Json last;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = bioagent::read_notebook(argv[1], q);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!r) {
      std::cerr << r.status().to_string() << "\n";
      return 1;
    }
    last = std::move(*r);
  }
  if (argc > 5) std::ofstream(argv[5]) << last.dump();
  std::sort(ms.begin(), ms.end());
  std::cout << ms[ms.size() / 2] << "\n";
  return 0;
}
