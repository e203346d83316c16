// In-process timing of our xlsx reader. Usage: xlsx_read FILE REPEATS [OUT.jsonl]
// Prints the median milliseconds of reading the first sheet (all cells to
// values); optionally writes the rows as JSON lines for the equality check.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "bioagent/json_text.h"
#include "bioagent/table.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: xlsx_read FILE REPEATS [OUT.jsonl]\n";
    return 2;
  }
  std::vector<double> ms;
  bioagent::Sheet last;
  for (int i = 0; i < std::stoi(argv[2]); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = bioagent::read_xlsx(argv[1]);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!r) {
      std::cerr << r.status().to_string() << "\n";
      return 1;
    }
    last = std::move(*r);
  }
  if (argc > 3) {
    std::ofstream out(argv[3]);
    for (auto& row : last.rows) {
      bioagent::Json j = bioagent::Json::array();
      for (auto& c : row) j.push_back(c.to_json());
      out << bioagent::json_text(j) << "\n";
    }
  }
  std::sort(ms.begin(), ms.end());
  std::cout << ms[ms.size() / 2] << "\n";
  return 0;
}
