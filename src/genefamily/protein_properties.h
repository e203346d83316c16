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

ProteinProperties protein_properties(std::string_view sequence);

}  // namespace bioagent
