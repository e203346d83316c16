// Global protein alignment (Needleman-Wunsch with affine gaps, BLOSUM62) and
// codon alignments: the protein alignment laid back onto the CDS.
#include "genefamily/algo/align.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace bioagent {
namespace {

constexpr const char* kOrder = "ARNDCQEGHILKMFPSTWYV";
// BLOSUM62 (Henikoff & Henikoff 1992), rows and columns in kOrder.
constexpr int kBlosum62[20][20] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0},       // A
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3},       // R
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3},           // N
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3},      // D
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1},   // C
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2},          // Q
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2},         // E
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3},     // G
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3},       // H
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3},      // I
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1},      // L
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2},       // K
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1},       // M
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1},       // F
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2},  // P
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2},          // S
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0},      // T
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3},   // W
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1},     // Y
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4},       // V
};

// Residue letter (either case) → its row in kBlosum62; every other byte
// (X, *, B, Z, NUL, ...) → kUnknown, which scores -1 against anything.
constexpr int kUnknown = 20;
constexpr std::array<uint8_t, 256> make_residue_index() {
  std::array<uint8_t, 256> index{};
  for (auto& v : index) v = kUnknown;
  for (int k = 0; kOrder[k]; ++k) {
    index[static_cast<unsigned char>(kOrder[k])] = uint8_t(k);
    index[static_cast<unsigned char>(kOrder[k] - 'A' + 'a')] = uint8_t(k);
  }
  return index;
}
constexpr auto kResidueIndex = make_residue_index();

// kBlosum62 with a 21st row and column of -1 for unknown residues.
constexpr std::array<std::array<int, 21>, 21> make_scores() {
  std::array<std::array<int, 21>, 21> t{};
  for (int i = 0; i < 21; ++i)
    for (int j = 0; j < 21; ++j) t[i][j] = (i < 20 && j < 20) ? kBlosum62[i][j] : -1;
  return t;
}
constexpr auto kScores = make_scores();

std::vector<uint8_t> residue_indices(std::string_view s) {
  std::vector<uint8_t> out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = kResidueIndex[static_cast<unsigned char>(s[i])];
  return out;
}

}  // namespace

ProteinAlignment align_proteins(std::string_view a, std::string_view b, int gap_open, int gap_extend) {
  const size_t n = a.size(), m = b.size();
  constexpr int kNeg = std::numeric_limits<int>::min() / 4;
  // Gotoh: M (match), X (gap in b), Y (gap in a); traceback by matrix.
  std::vector<int> M((n + 1) * (m + 1), kNeg), X = M, Y = M;
  auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
  const std::vector<uint8_t> ai = residue_indices(a), bi = residue_indices(b);
  auto sub = [&](size_t i, size_t j) { return kScores[ai[i]][bi[j]]; };  // 0-based residues
  M[at(0, 0)] = 0;
  for (size_t i = 1; i <= n; ++i) X[at(i, 0)] = -gap_open - int(i - 1) * gap_extend;
  for (size_t j = 1; j <= m; ++j) Y[at(0, j)] = -gap_open - int(j - 1) * gap_extend;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      int best_prev = std::max({M[at(i - 1, j - 1)], X[at(i - 1, j - 1)], Y[at(i - 1, j - 1)]});
      M[at(i, j)] = best_prev + sub(i - 1, j - 1);
      X[at(i, j)] = std::max(M[at(i - 1, j)] - gap_open, X[at(i - 1, j)] - gap_extend);
      Y[at(i, j)] = std::max(M[at(i, j - 1)] - gap_open, Y[at(i, j - 1)] - gap_extend);
    }
  ProteinAlignment out;
  size_t i = n, j = m;
  int state = 0;  // 0 M, 1 X, 2 Y
  int end = std::max({M[at(n, m)], X[at(n, m)], Y[at(n, m)]});
  out.score = end;
  state = end == M[at(n, m)] ? 0 : end == X[at(n, m)] ? 1 : 2;
  std::string ra, rb;
  while (i > 0 || j > 0) {
    if (i == 0) state = 2;
    if (j == 0) state = 1;
    if (state == 0) {
      int prev = M[at(i, j)] - sub(i - 1, j - 1);
      ra += a[i - 1];
      rb += b[j - 1];
      --i;
      --j;
      state = prev == M[at(i, j)] ? 0 : prev == X[at(i, j)] ? 1 : 2;
    } else if (state == 1) {
      ra += a[i - 1];
      rb += '-';
      state = (X[at(i, j)] == M[at(i - 1, j)] - gap_open) ? 0 : 1;
      --i;
    } else {
      ra += '-';
      rb += b[j - 1];
      state = (Y[at(i, j)] == M[at(i, j - 1)] - gap_open) ? 0 : 2;
      --j;
    }
  }
  out.a.assign(ra.rbegin(), ra.rend());
  out.b.assign(rb.rbegin(), rb.rend());
  size_t same = 0, cols = 0;
  for (size_t k = 0; k < out.a.size(); ++k)
    if (out.a[k] != '-' && out.b[k] != '-') {
      ++cols;
      same += out.a[k] == out.b[k];
    }
  out.identity = cols ? double(same) / double(std::max(n, m)) : 0;
  return out;
}

Result<std::string> codon_align(std::string_view aligned_protein, std::string_view cds) {
  std::string out;
  size_t c = 0;
  for (char aa : aligned_protein) {
    if (aa == '-') {
      out += "---";
      continue;
    }
    if (c + 3 > cds.size())
      return invalid_argument("the CDS is shorter than its protein (" + std::to_string(cds.size()) + " bases)");
    out += cds.substr(c, 3);
    c += 3;
  }
  return out;
}

}  // namespace bioagent
