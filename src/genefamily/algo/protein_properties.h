// Per-protein physico-chemical properties (see protein_properties.cpp).
#pragma once

#include <string_view>

namespace bioagent {

struct ProteinProperties {
  int length = 0, unknown = 0;
  double molecular_weight = 0;   // Da, average masses
  double isoelectric_point = 0;  // pH of zero net charge
  double instability_index = 0;  // > 40: probably unstable
  double aliphatic_index = 0;
  double gravy = 0;  // grand average of hydropathy
};

// pK values for the isoelectric point. kExpasy: ExPASy ProtParam / Compute pI
// (Bjellqvist et al. 1993, 1994; the N- and C-terminal pK depend on the terminal
// residue), what gene-family papers report. kEmboss: the EMBOSS iep table.
enum class PkScale { kExpasy, kEmboss };

ProteinProperties protein_properties(std::string_view sequence, PkScale scale = PkScale::kExpasy);
// The net charge at `ph` (the function the isoelectric point is the zero of).
double protein_charge(std::string_view sequence, double ph, PkScale scale = PkScale::kExpasy);

}  // namespace bioagent
