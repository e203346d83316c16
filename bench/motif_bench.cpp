// Benchmark (issue 8): our motif finder on generated proteins with planted
// motifs (known truth): the fraction of planted sites recovered by the
// best-matching discovered motif, and the time. Usage: motif_bench [SEQS] [LEN]
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include "genefamily/algo/motif_em.h"

using namespace bioagent;

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 30, len = argc > 2 ? std::atoi(argv[2]) : 300;
  std::mt19937 rng(5);
  const std::string aa = "ACDEFGHIKLMNPQRSTVWY";
  const std::vector<std::string> planted = {"WHDGKPLRYCEMNV", "FYQCWTMRHP", "GDTRYLEKQIPW"};
  std::vector<FastaRecord> seqs;
  std::vector<std::map<size_t, size_t>> truth(static_cast<size_t>(n));  // motif -> position
  for (int i = 0; i < n; ++i) {
    std::string s;
    for (int k = 0; k < len; ++k) s += aa[rng() % 20];
    for (size_t m = 0; m < planted.size(); ++m) {
      if (rng() % 5 == 0) continue;  // zero or one site per sequence
      std::string site = planted[m];
      for (int mut = 0; mut < 2; ++mut) site[rng() % site.size()] = aa[rng() % 20];
      size_t pos = size_t(len) / 3 * m + rng() % (size_t(len) / 3 - site.size());
      s.replace(pos, site.size(), site);
      truth[size_t(i)][m] = pos;
    }
    seqs.push_back({"s" + std::to_string(i), "", s});
  }
  MotifOptions o;
  o.motifs = 5;
  o.max_width = 20;
  auto t0 = std::chrono::steady_clock::now();
  auto motifs = discover_motifs(seqs, aa, o);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("Motif discovery: %d proteins of %d aa, %zu planted motifs (2 substitutions per site)\n", n, len,
              planted.size());
  double sum = 0;
  for (size_t m = 0; m < planted.size(); ++m) {
    size_t total = 0, best = 0;
    for (auto& t : truth) total += t.count(m);
    for (auto& mo : motifs) {
      size_t hit = 0;
      for (auto& s : mo.sites) {
        auto it = truth[s.sequence].find(m);
        if (it != truth[s.sequence].end() && s.start + mo.width > it->second &&
            s.start < it->second + planted[m].size())
          ++hit;
      }
      best = std::max(best, hit);
    }
    std::printf("  %-16s recovered %zu of %zu sites\n", planted[m].c_str(), best, total);
    sum += double(best) / double(std::max<size_t>(1, total));
  }
  std::printf("%zu motifs reported; mean recovery %.0f%%; %.2f s\n", motifs.size(), 100 * sum / double(planted.size()),
              secs);
  return sum / double(planted.size()) >= 0.7 ? 0 : 1;
}
