// The gene-family figures (SVG), drawn for a journal page: sized to be printed
// 180 mm wide with no text under 7 pt (svg::min_font), no title inside (the
// caption carries it; the SVG's <title> names it), every colour in a legend,
// every axis titled, chromosomes in natural order (Chr2 before Chr10), and the
// elements that back a caption's claims marked (svg.h). Members are drawn
// under their one name (the identify stage's).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/motif_em.h"
#include "genefamily/algo/newick.h"

namespace bioagent::figures {

// A figure function taking a Lang writes its labels, axes and legends in it;
// names and numbers are drawn as given. `title` is the SVG's <title>.

// ---- trees ------------------------------------------------------------------

// Node depths (distance from the root) and rows (a leaf's position in order; an
// internal node's, the mean of its children's) of a rooted tree.
struct TreeLayout {
  std::vector<double> depth, pos;
  double max_depth = 0;     // at least 1
  std::vector<int> leaves;  // in order, top to bottom
};
TreeLayout tree_layout(const NewickTree& t);
// Leaf names in drawing order (top to bottom), for figures that follow the tree.
std::vector<std::string> leaf_order(const NewickTree& t);

// What a tree figure shows beside its branches.
struct TreeStyle {
  bool circular = false;
  // leaf -> subgroup, named from reference members; empty: no subgroup is drawn or claimed.
  std::map<std::string, std::string> group;
  // The supports' kind as the legend names it ("UFBoot", "SH-like"); empty: supports are not drawn.
  std::string support_kind;
};
// A rooted tree: branches to scale with a scale bar (substitutions per site); each support value placed where
// it touches no branch and no other text (else left out and counted under the tree; all stay in tree.nwk);
// reference leaves (REF_<id>) in grey under their id; subgroups as coloured leaf names and a strip beside them.
std::string tree(Lang lang, const NewickTree& rooted, const TreeStyle& style, const std::string& title);

// ---- the combined figure and its columns ------------------------------------

struct Span {
  int64_t start = 0, end = 0;  // 1-based inclusive
  std::string label;
};
struct PanelRow {
  int64_t protein_length = 0, gene_length = 0;
  std::vector<Span> motifs, domains;  // protein coordinates
  std::vector<Span> cds, utrs;        // gene coordinates (from the gene's 5' end)
};
// The rooted tree beside each member's motifs, domains and gene structure, on shared rows; each column with its
// own scale bar, every colour in a legend.
std::string combined_panel(Lang lang, const NewickTree& rooted, const std::map<std::string, std::string>& subgroup,
                           const std::map<std::string, PanelRow>& rows, const std::string& title);

// Exons, introns and UTRs of each gene's transcript, 5' on the left, on a kb axis.
std::string gene_structure(Lang lang, const std::vector<std::string>& genes,
                           const std::map<std::string, const GffTranscript*>& transcript, const std::string& title);

// "motif n" (1-based), the label every figure and table uses.
std::string motif_label(size_t n);
// Each motif's sites along each protein (the members' order), on an amino-acid axis.
struct MotifHit {
  size_t motif = 0, start = 0;  // 0-based
};
std::string motif_map(Lang lang, const std::vector<std::string>& genes, const std::map<std::string, size_t>& length,
                      const std::map<std::string, std::vector<MotifHit>>& hits, const std::vector<Motif>& motifs,
                      const std::string& title);
// One logo per motif: residues stacked by their information (bits) over numbered positions, with the motif's
// E-value and site count; residue colours by chemistry, in a legend.
std::string motif_logos(Lang lang, const std::vector<Motif>& motifs, const std::string& title);

// ---- the genome ---------------------------------------------------------------

struct Placed {
  std::string gene, seqid;  // gene: the member's name
  int64_t start = 0;
  int cluster = -1;  // tandem cluster index, -1 when alone
};
// The chromosomes holding members, to scale on a Mb ruler, in natural order (in rows when they are many);
// each member's name beside its position, tandem cluster members in their own colour with a bracket; legend.
std::string chromosome_map(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::string& title);

struct Link {
  std::string a, b, kind;  // members' names; kind: segmental or tandem
};
// A collinear block of the whole genome: the span of its anchors on each side.
struct BlockSpan {
  std::string chr_a;
  int64_t start_a = 0, end_a = 0;
  std::string chr_b;
  int64_t start_b = 0, end_b = 0;
};
struct Circos {
  std::vector<std::pair<std::string, int64_t>> chromosomes;
  std::vector<Placed> members;
  std::map<std::string, std::string> member_class;  // name -> duplicate class (singleton ... segmental)
  std::vector<Link> links;
  std::vector<BlockSpan> blocks;
  std::map<std::string, std::vector<int64_t>> gene_starts;  // every gene of the genome, for the density track
};
// Circos-style: chromosome ideograms in natural order with scale ticks, a gene-density track, the genome's
// collinear blocks as faint ribbons, the members' links coloured by duplication class, their names outside.
std::string synteny_circle(Lang lang, const Circos& c, const std::string& title);

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
  std::string name;     // the top genome's member name when `family`
};
std::string dual_synteny(Lang lang, const Genome& top, const Genome& bottom, const std::vector<SyntenyPair>& pairs,
                         const std::string& title);

// ---- plots -------------------------------------------------------------------

struct KaKs {
  std::string pair;
  double ka = 0, ks = 0;
  // The test of Ka = Ks from yn00's standard errors: "purifying", "positive", "neutral" (not rejected) or ""
  // (not tested: no standard errors).
  std::string selection;
};
// Ka against Ks on one round scale, Ka = Ks dashed; points coloured by the test's verdict only (no verdict: one
// colour); the pair names in a column beside the plot.
std::string kaks(Lang lang, const std::vector<KaKs>& pairs, const std::string& title);

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
// `marked` (e.g. the family's pairs) is a tick at the foot of the bars.
// `bars` names what the bars count in the legend (empty: "gene pairs").
std::string ks_distribution(Lang lang, const std::vector<double>& ks, const std::string& title, double max_ks = 3.0,
                            const std::vector<double>& marked = {}, const std::string& bars = "");

// Row z-scores of expression as a heatmap (rows: members, columns: samples), the colour bar titled.
std::string expression_heatmap(Lang lang, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                               const std::vector<std::vector<double>>& z, const std::string& title);

// Promoter elements grouped by function: sites per category (the number in each cell) beside the elements
// drawn (the most frequent `max_elements`, grouped under their category), each category's cells on its own
// colour ramp with its own colour bar.
struct PromoterElement {
  std::string name, category;
};
std::string promoter_figure(Lang lang, const std::vector<std::string>& genes,
                            const std::vector<PromoterElement>& elements,
                            const std::vector<std::pair<std::string, std::string>>& categories,
                            const std::vector<std::vector<double>>& counts, const std::string& title,
                            size_t max_elements = 30);

// Axis ticks 0, step, 2 step, ... reaching at least `max`; the step is 1, 2, 2.5 or 5 times a power of ten,
// chosen for about `intervals` intervals (0.05/0.10/0.15, never 0.05/0.11/0.16).
struct RoundTicks {
  double step = 1;
  int decimals = 0;  // enough to tell the ticks apart
  std::vector<double> values;
};
RoundTicks round_ticks(double max, int intervals = 5);
std::string tick_label(double v, int decimals);

}  // namespace bioagent::figures
