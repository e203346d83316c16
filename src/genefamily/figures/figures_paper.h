// The figures a gene-family paper shows (SVG, pure functions of their inputs):
// a rooted tree (midpoint, or on reference outgroups) with subfamilies
// coloured; the combined panel of tree, conserved motifs, domain architecture
// and gene structure on shared rows; members renamed by chromosome order; a
// chromosome map whose labels never overlap; a dual-synteny plot between two
// species; a Ks distribution with its peaks marked. Titles set the figure's
// minimum width so they are never cut.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bioagent/status.h"
#include "genefamily/algo/newick.h"
#include "genefamily/figures/figures.h"

namespace bioagent::figures {

// Rooted at the midpoint of the longest leaf-to-leaf path. Support labels stay
// with their branches.
NewickTree midpoint_rooted(const NewickTree& t);
// Rooted on the branch above the smallest clade holding every outgroup leaf;
// an error when a name is missing or the outgroups are not one clade.
Result<NewickTree> outgroup_rooted(const NewickTree& t, const std::vector<std::string>& outgroup);
std::string newick_text(const NewickTree& t);
// The tree figure rooted as papers root it: on `outgroup` (reference members)
// when given, else at the midpoint; leaves coloured by subfamily.
Result<std::string> rooted_tree_figure(Lang lang, const NewickTree& t, const std::vector<std::string>& outgroup,
                                       const std::map<std::string, std::string>& subfamily, const std::string& title);

// Twelve colours that stay apart (Okabe-Ito first, then distinct hues).
const char* distinct_colour(size_t i);
// Width in pixels a title needs at `size` (DejaVu Sans advance, generous).
double text_width(const std::string& s, double size);

// Members renamed as papers do: <Prefix><Family>1..n in chromosome order
// (chromosomes in the given order, then by start).
struct Renamed {
  std::string gene, name, seqid;
  int64_t start = 0;
};
std::vector<Renamed> rename_by_chromosome_order(const std::vector<Placed>& genes,
                                                const std::vector<std::string>& chromosome_order,
                                                const std::string& prefix, const std::string& family);
std::string renaming_table(const std::vector<Renamed>& renamed);  // TSV: new_name gene seqid start

struct Span {
  int64_t start = 0, end = 0;  // 1-based inclusive
  std::string label;
};
struct PanelRow {
  int64_t protein_length = 0, gene_length = 0;
  std::vector<Span> motifs, domains;  // protein coordinates
  std::vector<Span> exons;            // gene coordinates (from the gene's start, 5' to 3')
};
// Tree, motif map, domain architecture and gene structure in four aligned columns.
std::string combined_panel(Lang lang, const NewickTree& rooted, const std::map<std::string, std::string>& subfamily,
                           const std::map<std::string, PanelRow>& rows, const std::string& title);

// Label positions near `wanted` (sorted or not), at least `gap` apart, inside [lo, hi].
std::vector<double> spread_labels(const std::vector<double>& wanted, double gap, double lo, double hi);
std::string chromosome_map_labelled(const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                                    const std::vector<Placed>& genes, const std::string& title);

struct Genome {
  std::string species;
  std::vector<std::pair<std::string, int64_t>> chromosomes;
};
struct SyntenyPair {
  std::string chr_a;
  int64_t pos_a = 0;
  std::string chr_b;
  int64_t pos_b = 0;
  bool family = false;  // a pair of family members (drawn on top, coloured)
};
std::string dual_synteny(Lang lang, const Genome& top, const Genome& bottom, const std::vector<SyntenyPair>& pairs,
                         const std::string& title);

struct KsPeak {
  double ks = 0, density = 0;
};
// A kernel density of fewer Ks values than this shows its bandwidth, not a
// duplication event: no peak is called below it (the figures and the report say so).
constexpr size_t kMinPairsForKsPeaks = 10;
// Local maxima of a Gaussian kernel density (bandwidth by Silverman's rule),
// above a tenth of the highest, over [0, max_ks]; values outside are ignored;
// none from fewer than kMinPairsForKsPeaks values in range.
std::vector<KsPeak> ks_peaks(const std::vector<double>& ks, double max_ks = 3.0);
// The histogram of `ks` (0..max_ks, values outside counted as left out) with its peaks; each value of
// `marked` (e.g. the family's pairs) is a red tick at the foot of the bars.
std::string ks_distribution(Lang lang, const std::vector<double>& ks, const std::string& title, double max_ks = 3.0,
                            const std::vector<double>& marked = {});

}  // namespace bioagent::figures
