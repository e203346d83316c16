// The gene-family figures (SVG): tree (rectangular or circular, groups and
// supports), gene structure beside the tree order, chromosome map with tandem
// clusters, heatmaps, and the Ka/Ks plot.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/newick.h"

namespace bioagent::figures {

// A figure function taking a Lang writes its labels, axes and legends in it;
// names, numbers and the given title are drawn as given.

std::string tree(Lang lang, const NewickTree& t, const std::map<std::string, std::string>& group, bool circular,
                 const std::string& title);
// Leaf names in drawing order (top to bottom), for figures that follow the tree.
std::vector<std::string> leaf_order(const NewickTree& t);
// Node depths (distance from the root) and rows (a leaf's position in order; an
// internal node's, the mean of its children's) of a rooted tree.
struct TreeLayout {
  std::vector<double> depth, pos;
  double max_depth = 0;     // at least 1
  std::vector<int> leaves;  // in order, top to bottom
};
TreeLayout tree_layout(const NewickTree& t);

std::string gene_structure(Lang lang, const std::vector<std::string>& genes,
                           const std::map<std::string, const GffTranscript*>& transcript, const std::string& title);

struct Placed {
  std::string gene, seqid;
  int64_t start = 0;
  int cluster = -1;  // tandem cluster index, -1 when alone
};
std::string chromosome_map(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::string& title);

// values[row][col]; diverging (z-scores) or sequential (counts) colours.
std::string heatmap(const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                    const std::vector<std::vector<double>>& values, bool diverging, const std::string& title,
                    const std::string& scale_label);

// Promoter elements: sites per category (light, hormone, stress, development) beside the per-element heatmap.
struct PromoterElement {
  std::string name, category;
};
// counts[gene][element]; categories are (key, label in the run's language), in the order drawn.
std::string promoter_figure(Lang lang, const std::vector<std::string>& genes,
                            const std::vector<PromoterElement>& elements,
                            const std::vector<std::pair<std::string, std::string>>& categories,
                            const std::vector<std::vector<double>>& counts, const std::string& title);

struct Link {
  std::string a, b, kind;  // kind: segmental, tandem, ...
};
// A collinear block of the whole genome: the span of its anchors on each side.
struct BlockSpan {
  std::string chr_a;
  int64_t start_a = 0, end_a = 0;
  std::string chr_b;
  int64_t start_b = 0, end_b = 0;
};
// Chromosomes around a circle (labelled), members as ticks; the genome's collinear blocks as faint ribbons
// behind the family's links; segmental pairs as curves through the centre, tandem pairs (adjacent genes) as
// an arc on their chromosome.
std::string synteny_circle(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::vector<Link>& links, const std::string& title,
                           const std::vector<BlockSpan>& blocks = {});

struct KaKs {
  std::string pair;
  double ka = 0, ks = 0;
};
// Ka against Ks on one round scale, the pair names in a column beside the plot (never overlapping).
std::string kaks(Lang lang, const std::vector<KaKs>& pairs, const std::string& title);

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
