// The works the methods cite: each program by its own paper, and the methods
// bioagent implements itself by the paper that describes them.
#include <algorithm>
#include <map>

#include "genefamily/stages/report_methods.h"

namespace bioagent::gf {
namespace {

struct Work {
  const char* key;
  const char* text;
};

// In the journals' usual form: authors, year, title, journal volume:pages.
const std::vector<Work>& works() {
  static const std::vector<Work> k = {
      {"hmmer", "Eddy SR (2011) Accelerated profile HMM searches. PLoS Comput Biol 7:e1002195."},
      {"pfam",
       "Mistry J, Chuguransky S, Williams L, et al. (2021) Pfam: the protein families database in 2021. Nucleic "
       "Acids Res 49:D412-D419."},
      {"diamond",
       "Buchfink B, Reuter K, Drost HG (2021) Sensitive protein alignments at tree-of-life scale using "
       "DIAMOND. Nat Methods 18:366-368."},
      {"blast",
       "Camacho C, Coulouris G, Avagyan V, et al. (2009) BLAST+: architecture and applications. BMC "
       "Bioinformatics 10:421."},
      {"mafft",
       "Katoh K, Standley DM (2013) MAFFT multiple sequence alignment software version 7: improvements in "
       "performance and usability. Mol Biol Evol 30:772-780."},
      {"iqtree",
       "Minh BQ, Schmidt HA, Chernomor O, et al. (2020) IQ-TREE 2: new models and efficient methods for "
       "phylogenetic inference in the genomic era. Mol Biol Evol 37:1530-1534."},
      {"modelfinder",
       "Kalyaanamoorthy S, Minh BQ, Wong TKF, von Haeseler A, Jermiin LS (2017) ModelFinder: fast "
       "model selection for accurate phylogenetic estimates. Nat Methods 14:587-589."},
      {"ufboot",
       "Hoang DT, Chernomor O, von Haeseler A, Minh BQ, Vinh LS (2018) UFBoot2: improving the ultrafast "
       "bootstrap approximation. Mol Biol Evol 35:518-522."},
      {"fasttree",
       "Price MN, Dehal PS, Arkin AP (2010) FastTree 2 - approximately maximum-likelihood trees for large "
       "alignments. PLoS ONE 5:e9490."},
      {"protparam",
       "Gasteiger E, Hoogland C, Gattiker A, et al. (2005) Protein identification and analysis tools on "
       "the ExPASy server. In: Walker JM (ed) The Proteomics Protocols Handbook. Humana Press, pp "
       "571-607."},
      {"meme",
       "Bailey TL, Elkan C (1994) Fitting a mixture model by expectation maximization to discover motifs in "
       "biopolymers. Proc Int Conf Intell Syst Mol Biol 2:28-36."},
      {"plantcare",
       "Lescot M, Dehais P, Thijs G, et al. (2002) PlantCARE, a database of plant cis-acting regulatory "
       "elements and a portal to tools for in silico analysis of promoter sequences. Nucleic Acids Res "
       "30:325-327."},
      {"place",
       "Higo K, Ugawa Y, Iwamoto M, Korenaga T (1999) Plant cis-acting regulatory DNA elements (PLACE) "
       "database: 1999. Nucleic Acids Res 27:297-300."},
      {"mcscanx",
       "Wang Y, Tang H, DeBarry JD, et al. (2012) MCScanX: a toolkit for detection and evolutionary "
       "analysis of gene synteny and collinearity. Nucleic Acids Res 40:e49."},
      {"paml", "Yang Z (2007) PAML 4: phylogenetic analysis by maximum likelihood. Mol Biol Evol 24:1586-1591."},
      {"yn00",
       "Yang Z, Nielsen R (2000) Estimating synonymous and nonsynonymous substitution rates under realistic "
       "evolutionary models. Mol Biol Evol 17:32-43."},
      {"salmon",
       "Patro R, Duggal G, Love MI, Irizarry RA, Kingsford C (2017) Salmon provides fast and bias-aware "
       "quantification of transcript expression. Nat Methods 14:417-419."},
      {"string",
       "Szklarczyk D, Kirsch R, Koutrouli M, et al. (2023) The STRING database in 2023. Nucleic Acids Res "
       "51:D638-D646."},
  };
  return k;
}

}  // namespace

std::vector<std::string> stage_citations(const std::string& stage, const std::set<std::string>& ran,
                                         const Json& summary) {
  std::vector<std::string> keys;
  auto cite = [&](const char* k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  auto has = [&](const char* p) { return ran.count(p) > 0; };
  if (has("hmmsearch") || has("hmmbuild") || has("hmmscan")) cite("hmmer");
  if (stage == "identify" || stage == "domain") cite("pfam");
  if (has("diamond")) cite("diamond");
  if (has("blastp") || has("makeblastdb")) cite("blast");
  if (has("mafft")) cite("mafft");
  if (has("iqtree2") || has("iqtree")) {
    cite("iqtree");
    if (summary.value("model_selection", std::string()).find("ModelFinder") != std::string::npos) cite("modelfinder");
    if (summary.value("support_kind", std::string()) == "ufboot") cite("ufboot");
  }
  if (has("fasttree")) cite("fasttree");
  if (has("yn00")) cite("paml"), cite("yn00");
  if (has("salmon")) cite("salmon");
  // The methods bioagent implements itself, by the paper each follows.
  if (stage == "properties") cite("protparam");
  if (stage == "motif") cite("meme");
  if (stage == "promoter") cite("plantcare"), cite("place");
  if (stage == "synteny") cite("mcscanx");
  if (stage == "ppi") cite("string");
  return keys;
}

std::string reference_text(const std::string& key) {
  for (auto& w : works())
    if (key == w.key) return w.text;
  return key;
}

}  // namespace bioagent::gf
