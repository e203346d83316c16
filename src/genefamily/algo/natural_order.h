// Natural order of names with numbers in them, as people count: Chr_2 before
// Chr_10, scaffold_9 before scaffold_10; letters compare without case, runs of
// digits by their value (leading zeros only break ties: chr01 after chr1).
// Chromosomes are drawn and tabled in this order everywhere, and members are
// numbered by it.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bioagent {

// <0, 0 or >0 as a sorts before, with or after b.
inline int natural_compare(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  int zeros_tie = 0;  // fewer leading zeros first, when all else is equal
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t za = i, zb = j;
      while (za < a.size() && a[za] == '0') ++za;
      while (zb < b.size() && b[zb] == '0') ++zb;
      size_t ea = za, eb = zb;
      while (ea < a.size() && digit(a[ea])) ++ea;
      while (eb < b.size() && digit(b[eb])) ++eb;
      if (ea - za != eb - zb) return ea - za < eb - zb ? -1 : 1;  // more digits: a larger number
      if (int c = a.substr(za, ea - za).compare(b.substr(zb, eb - zb)); c != 0) return c < 0 ? -1 : 1;
      if (zeros_tie == 0 && (za - i) != (zb - j)) zeros_tie = (za - i) < (zb - j) ? -1 : 1;
      i = ea, j = eb;
      continue;
    }
    const int ca = std::tolower(static_cast<unsigned char>(a[i])), cb = std::tolower(static_cast<unsigned char>(b[j]));
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i, ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
  if (zeros_tie != 0) return zeros_tie;
  return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;  // case decides last
}

inline bool natural_less(std::string_view a, std::string_view b) { return natural_compare(a, b) < 0; }

// Chromosomes (name, length) in natural order of their names.
inline std::vector<std::pair<std::string, int64_t>> naturally_ordered(
    std::vector<std::pair<std::string, int64_t>> chromosomes) {
  std::stable_sort(chromosomes.begin(), chromosomes.end(),
                   [](const auto& x, const auto& y) { return natural_less(x.first, y.first); });
  return chromosomes;
}

}  // namespace bioagent
