// Inside src/genefamily/io: the file kinds' names in Chinese, shared by the
// naming rules (file_names.cpp) and the folder check (species_data.cpp).
#pragma once

#include <string>

namespace bioagent {

// "基因组" for genome, ... (the rules' kinds: genome, gff3, cds, pep, hmm); other kinds as they are.
std::string kind_zh(const std::string& kind);

}  // namespace bioagent
