// In-process timing of our PubMed EFetch parser. Usage: pubmed_parse FILE REPEATS [OUT.tsv]
// Prints the median milliseconds; optionally writes pmid, doi, title, authors per record.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "bioagent/literature.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: pubmed_parse FILE REPEATS [OUT.tsv]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string xml = ss.str();
  std::vector<double> ms;
  std::vector<bioagent::Evidence> last;
  for (int i = 0; i < std::stoi(argv[2]); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = bioagent::parse_pubmed_efetch(xml);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!r) {
      std::cerr << r.status().to_string() << "\n";
      return 1;
    }
    last = std::move(*r);
  }
  if (argc > 3) {
    std::ofstream out(argv[3]);
    for (auto& e : last)
      out << e.citation.pmid << "\t" << e.citation.doi << "\t" << e.citation.title << "\t" << e.citation.authors.size()
          << "\t" << e.content.size() << "\n";
  }
  std::sort(ms.begin(), ms.end());
  std::cout << ms[ms.size() / 2] << "\n";
  return 0;
}
