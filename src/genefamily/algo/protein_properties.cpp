// Protein properties (ProtParam-style, standard formulas): length, average
// molecular weight, isoelectric point (ExPASy or EMBOSS pK values), instability
// index, aliphatic index and GRAVY.
#include "genefamily/algo/protein_properties.h"

#include <cctype>
#include <cmath>
#include <cstring>

namespace bioagent {
namespace {

constexpr const char* kOrder = "ACDEFGHIKLMNPQRSTVWY";

int index_of(char c) {
  const char* p = std::strchr(kOrder, c);
  return (p && c) ? int(p - kOrder) : -1;
}

// Average residue masses (Da), in kOrder.
constexpr double kMass[20] = {71.0788,  103.1388, 115.0886, 129.1155, 147.1766, 57.0519, 137.1411,
                              113.1594, 128.1741, 113.1594, 131.1926, 114.1038, 97.1167, 128.1307,
                              156.1875, 87.0782,  101.1051, 99.1326,  186.2132, 163.1760};
// Kyte & Doolittle (1982) hydropathy, in kOrder.
constexpr double kHydropathy[20] = {1.8, 2.5,  -3.5, -3.5, 2.8,  -0.4, -3.2, 4.5, -3.9, 3.8,
                                    1.9, -3.5, -1.6, -3.5, -4.5, -0.8, -0.7, 4.2, -0.9, -1.3};
// Dipeptide instability weight values, Guruprasad, Reddy & Pandit (1990),
// Protein Eng. 4:155-161; row = first residue, column = second, in kOrder.
constexpr double kDiwv[20][20] = {
    {1, 44.94, -7.49, 1, 1, 1, -7.49, 1, 1, 1, 1, 1, 20.26, 1, 1, 1, 1, 1, 1, 1},                                  // A
    {1, 1, 20.26, 1, 1, 1, 33.6, 1, 1, 20.26, 33.6, 1, 20.26, -6.54, 1, 1, 33.6, -6.54, 24.68, 1},                 // C
    {1, 1, 1, 1, -6.54, 1, 1, 1, -7.49, 1, 1, 1, 1, 1, -6.54, 20.26, -14.03, 1, 1, 1},                             // D
    {1, 44.94, 20.26, 33.6, 1, 1, -6.54, 20.26, 1, 1, 1, 1, 20.26, 20.26, 1, 20.26, 1, 1, -14.03, 1},              // E
    {1, 1, 13.34, 1, 1, 1, 1, 1, -14.03, 1, 1, 1, 20.26, 1, 1, 1, 1, 1, 1, 33.601},                                // F
    {-7.49, 1, 1, -6.54, 1, 13.34, 1, -7.49, -7.49, 1, 1, -7.49, 1, 1, 1, 1, -7.49, 1, 13.34, -7.49},              // G
    {1, 1, 1, 1, -9.37, -9.37, 1, 44.94, 24.68, 1, 1, 24.68, -1.88, 1, 1, 1, -6.54, 1, -1.88, 44.94},              // H
    {1, 1, 1, 44.94, 1, 1, 13.34, 1, -7.49, 20.26, 1, 1, -1.88, 1, 1, 1, 1, -7.49, 1, 1},                          // I
    {1, 1, 1, 1, 1, -7.49, 1, -7.49, 1, -7.49, 33.6, 1, -6.54, 24.64, 33.6, 1, 1, -7.49, 1, 1},                    // K
    {1, 1, 1, 1, 1, 1, 1, 1, -7.49, 1, 1, 1, 20.26, 33.6, 20.26, 1, 1, 1, 24.68, 1},                               // L
    {13.34, 1, 1, 1, 1, 1, 58.28, 1, 1, 1, -1.88, 1, 44.94, -6.54, -6.54, 44.94, -1.88, 1, 1, 24.68},              // M
    {1, -1.88, 1, 1, -14.03, -14.03, 1, 44.94, 24.68, 1, 1, 1, -1.88, -6.54, 1, 1, -7.49, 1, -9.37, 1},            // N
    {20.26, -6.54, -6.54, 18.38, 20.26, 1, 1, 1, 1, 1, -6.54, 1, 20.26, 20.26, -6.54, 20.26, 1, 20.26, -1.88, 1},  // P
    {1, -6.54, 20.26, 20.26, -6.54, 1, 1, 1, 1, 1, 1, 1, 20.26, 20.26, 1, 44.94, 1, -6.54, 1, -6.54},              // Q
    {1, 1, 1, 1, 1, -7.49, 20.26, 1, 1, 1, 1, 13.34, 20.26, 20.26, 58.28, 44.94, 1, 1, 58.28, -6.54},              // R
    {1, 33.6, 1, 20.26, 1, 1, 1, 1, 1, 1, 1, 1, 44.94, 20.26, 20.26, 20.26, 1, 1, 1, 1},                           // S
    {1, 1, 1, 20.26, 13.34, -7.49, 1, 1, 1, 1, 1, -14.03, 1, -6.54, 1, 1, 1, 1, -14.03, 1},                        // T
    {1, 1, -14.03, 1, 1, -7.49, 1, 1, -1.88, 1, 1, 1, 20.26, 1, 1, 1, -7.49, 1, 1, -6.54},                         // V
    {-14.03, 1, 1, 1, 1, -9.37, 24.68, 1, 1, 13.34, 24.68, 13.34, 1, 1, 1, 1, -14.03, -7.49, 1, 1},                // W
    {24.68, 1, 24.68, -6.54, 1, -7.49, 13.34, 1, 1, 1, 44.94, 1, 13.34, 1, -15.91, 1, -7.49, 1, -9.37, 13.34},     // Y
};

struct PkTable {
  double n_term, c_term, k, r, h, d, e, c, y;
};
// EMBOSS iep (Epk.dat).
constexpr PkTable kEmboss = {8.6, 3.6, 10.8, 12.5, 6.5, 3.9, 4.1, 8.5, 10.1};
// ExPASy ProtParam: Bjellqvist et al. (1993) Electrophoresis 14:1023 and (1994) 15:529.
constexpr PkTable kExpasy = {7.5, 3.55, 10.0, 12.0, 5.98, 4.05, 4.45, 9.0, 10.0};

// ExPASy's terminal pK values that depend on the terminal residue.
double expasy_n_term(char first) {
  switch (first) {
    case 'A':
      return 7.59;
    case 'M':
      return 7.0;
    case 'S':
      return 6.93;
    case 'P':
      return 8.36;
    case 'T':
      return 6.82;
    case 'V':
      return 7.44;
    case 'E':
      return 7.7;
    default:
      return kExpasy.n_term;
  }
}
double expasy_c_term(char last) { return last == 'D' ? 4.55 : last == 'E' ? 4.75 : kExpasy.c_term; }

struct Ionizable {
  int counts[20] = {0};
  char first = 0, last = 0;  // terminal residues (0: none known)
};

double charge_at(const Ionizable& a, double ph, PkScale scale) {
  const PkTable& t = scale == PkScale::kEmboss ? kEmboss : kExpasy;
  double n_pk = scale == PkScale::kEmboss ? t.n_term : expasy_n_term(a.first);
  double c_pk = scale == PkScale::kEmboss ? t.c_term : expasy_c_term(a.last);
  auto pos = [&](double pk, double n) { return n / (1 + std::pow(10.0, ph - pk)); };
  auto neg = [&](double pk, double n) { return -n / (1 + std::pow(10.0, pk - ph)); };
  const int* c = a.counts;
  return pos(n_pk, 1) + pos(t.k, c[index_of('K')]) + pos(t.r, c[index_of('R')]) + pos(t.h, c[index_of('H')]) +
         neg(c_pk, 1) + neg(t.d, c[index_of('D')]) + neg(t.e, c[index_of('E')]) + neg(t.c, c[index_of('C')]) +
         neg(t.y, c[index_of('Y')]);
}

Ionizable ionizable(std::string_view seq) {
  Ionizable a;
  for (char raw : seq) {
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(raw)));
    if (c == '*') continue;
    if (!a.first) a.first = c;
    a.last = c;
    if (int i = index_of(c); i >= 0) ++a.counts[i];
  }
  return a;
}

}  // namespace

double protein_charge(std::string_view seq, double ph, PkScale scale) { return charge_at(ionizable(seq), ph, scale); }

ProteinProperties protein_properties(std::string_view seq, PkScale scale) {
  ProteinProperties p;
  int counts[20] = {0};
  int n = 0;
  double mass = 18.01524, hyd = 0, instab = 0;
  int prev = -1;
  for (char raw : seq) {
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(raw)));
    if (c == '*') continue;
    int i = index_of(c);
    if (i < 0) {  // X, B, Z, U...: counted in the length, not in the composition
      ++p.unknown;
      ++n;
      prev = -1;
      continue;
    }
    ++counts[i];
    ++n;
    mass += kMass[i];
    hyd += kHydropathy[i];
    if (prev >= 0) instab += kDiwv[prev][i];
    prev = i;
  }
  p.length = n;
  if (n == 0) return p;
  p.molecular_weight = mass;
  p.gravy = hyd / (n - p.unknown > 0 ? n - p.unknown : 1);
  p.instability_index = 10.0 / n * instab;
  auto pct = [&](char c) { return 100.0 * counts[index_of(c)] / n; };
  p.aliphatic_index = pct('A') + 2.9 * pct('V') + 3.9 * (pct('I') + pct('L'));
  const Ionizable ion = ionizable(seq);
  double lo = 0, hi = 14;  // the charge falls with pH: bisect for zero
  for (int it = 0; it < 60; ++it) {
    double mid = (lo + hi) / 2;
    (charge_at(ion, mid, scale) > 0 ? lo : hi) = mid;
  }
  p.isoelectric_point = (lo + hi) / 2;
  return p;
}

}  // namespace bioagent
