// Collinear block detection and duplicate classification (see collinearity.h).
#include "genefamily/algo/collinearity.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace bioagent {
namespace {

// Whitespace-separated fields of one line, at most `max_fields`.
size_t split_fields(std::string_view line, std::string_view* out, size_t max_fields) {
  size_t n = 0, i = 0;
  while (n < max_fields) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    out[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

template <typename F>
Status for_each_line(std::string_view text, F&& f) {
  size_t n = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    if (line.empty() || line[0] == '#') continue;
    BIOAGENT_RETURN_IF_ERROR(f(line, n));
  }
  return Status::ok();
}

template <typename T>
bool parse_num(std::string_view s, T& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

Result<std::vector<GenePos>> parse_mcscanx_gff(std::string_view text) {
  std::vector<GenePos> out;
  auto st = for_each_line(text, [&](std::string_view line, size_t n) -> Status {
    std::string_view f[4];
    GenePos g;
    if (split_fields(line, f, 4) < 4 || !parse_num(f[2], g.start) || !parse_num(f[3], g.end))
      return parse_error("line " + std::to_string(n) + ": expected 'chromosome gene start end'");
    g.chr = std::string(f[0]);
    g.id = std::string(f[1]);
    out.push_back(std::move(g));
    return Status::ok();
  });
  if (!st) return st;
  return out;
}

Result<std::vector<HomologHit>> parse_blast_m8(std::string_view text) {
  std::vector<HomologHit> out;
  auto st = for_each_line(text, [&](std::string_view line, size_t n) -> Status {
    std::string_view f[12];
    if (split_fields(line, f, 12) < 11)
      return parse_error("line " + std::to_string(n) + ": a BLAST -m 8 row has 12 columns");
    double e = 0;
    std::string_view ev = f[10];
    if (!parse_num(ev, e)) {  // from_chars takes no leading '+'; strtod also reads forms like "1e-5x" as 1e-5
      std::string copy(ev);
      char* end = nullptr;
      e = std::strtod(copy.c_str(), &end);
      if (end == copy.c_str()) return parse_error("line " + std::to_string(n) + ": the E-value is not a number");
    }
    out.push_back({std::string(f[0]), std::string(f[1]), e});
    return Status::ok();
  });
  if (!st) return st;
  return out;
}

namespace {

// Genes as indices: chromosome ids numbered in name order, ranks along each, and a global order
// (chromosome by name, then position, then id) whose differences on one chromosome are rank differences.
struct GeneIndex {
  std::unordered_map<std::string_view, int> id;
  std::vector<const GenePos*> gene;
  std::vector<int> chr, rank, global;
  std::vector<std::string> chr_name;
};

GeneIndex index_genes(const std::vector<GenePos>& genes) {
  GeneIndex ix;
  std::map<std::string, std::vector<const GenePos*>> by_chr;
  std::unordered_map<std::string_view, const GenePos*> last;  // a gene listed twice keeps its last line
  for (auto& g : genes) last[g.id] = &g;
  for (auto& [id, g] : last) by_chr[g->chr].push_back(g);
  int offset = 0;
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end(),
              [](auto* a, auto* b) { return std::tie(a->start, a->id) < std::tie(b->start, b->id); });
    const int cid = int(ix.chr_name.size());
    ix.chr_name.push_back(c);
    for (size_t i = 0; i < v.size(); ++i) {
      ix.id.emplace(v[i]->id, int(ix.gene.size()));
      ix.gene.push_back(v[i]);
      ix.chr.push_back(cid);
      ix.rank.push_back(int(i));
      ix.global.push_back(offset + int(i));
    }
    offset += int(v.size());
  }
  return ix;
}

inline uint64_t pair_key(int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

// Unordered pair key in name order (the smaller name first).
inline uint64_t name_pair_key(const GeneIndex& ix, int a, int b) {
  return ix.gene[size_t(a)]->id < ix.gene[size_t(b)]->id ? pair_key(a, b) : pair_key(b, a);
}

struct Candidate {
  int x, y;    // global orders of gene a and gene b (y made 5'->3' reversed for the minus orientation)
  int ga, gb;  // gene indices
  double evalue;
};

// A gene's hits to a run of neighbouring genes count once: first along the
// first chromosome's genes, then along the second's, each run joined while the
// next hit lies within `window` genes of the previous one. The run keeps its
// first (5'-most) hit, as MCScanX does (its E-value comparison there sees the
// match score, equal for every hit).
std::vector<Candidate> collapse_tandem_hits(std::vector<Candidate> items, int window) {
  for (bool along_x : {true, false}) {
    auto key = [&](const Candidate& c) { return along_x ? std::make_pair(c.x, c.y) : std::make_pair(c.y, c.x); };
    std::sort(items.begin(), items.end(), [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
    std::vector<Candidate> kept;
    for (size_t i = 0; i < items.size();) {
      size_t j = i + 1;
      while (j < items.size() && key(items[j]).first == key(items[i]).first &&
             key(items[j]).second - key(items[j - 1]).second <= window)
        ++j;
      kept.push_back(items[i]);
      i = j;
    }
    items.swap(kept);
  }
  return items;
}

// ln(n!/(n-m)!).
double ln_perm(double n, double m) { return m > n || m <= 0 ? 0 : std::lgamma(n + 1) - std::lgamma(n - m + 1); }

// Significance of a chain (Wang et al. 2006, as MCScanX): E = 2 P(N, m)
// prod(l1 l2 / (L1 L2)), N the candidate pairs (still in play) inside the
// block's region, m its anchors, l the distances in bases between successive
// anchors, L the region's lengths.
double block_evalue(const GeneIndex& ix, const std::vector<Candidate>& items, const std::vector<int>& chain) {
  auto pos = [&](int g) { return double(ix.gene[size_t(g)]->start); };
  const Candidate &first = items[size_t(chain.front())], &last = items[size_t(chain.back())];
  const double a0 = pos(first.ga), a1 = pos(last.ga);
  double b0 = pos(first.gb), b1 = pos(last.gb);
  if (ix.global[size_t(last.gb)] < ix.global[size_t(first.gb)]) std::swap(b0, b1);
  double sum = 0;
  for (size_t k = 1; k < chain.size(); ++k) {
    const Candidate &c = items[size_t(chain[k])], &prev = items[size_t(chain[k - 1])];
    sum += std::log(std::fabs(pos(c.ga) - pos(prev.ga))) + std::log(std::fabs(pos(c.gb) - pos(prev.gb)));
  }
  size_t n = 0;
  for (auto& c : items)
    if (pos(c.ga) >= a0 && pos(c.ga) <= a1 && pos(c.gb) >= b0 && pos(c.gb) <= b1) ++n;
  const double m = double(chain.size());
  return std::exp(std::log(2.0) + ln_perm(double(n), m) + sum - (m - 1) * (std::log(a1 - a0) + std::log(b1 - b0)));
}

// One chaining pass over the pairs in play (sorted by x, then y): each pair's best chain score
// and predecessor (the nearest of equal ones), gaps as the larger skip on either side.
void chain_scores(const std::vector<Candidate>& items, const CollinearityParams& p, std::vector<double>& score,
                  std::vector<int>& from) {
  const size_t n = items.size();
  score.assign(n, double(p.match_score));
  from.assign(n, -1);
  for (size_t j = 1; j < n; ++j)
    for (size_t i = j; i-- > 0;) {
      const int dx = items[j].x - items[i].x - 1, dy = items[j].y - items[i].y - 1;
      if (dx < 0 || dy < 0) continue;
      if (dx > p.max_gaps) break;
      if (dy > p.max_gaps) continue;
      const double s = score[i] + p.match_score + p.gap_penalty * std::max(dx, dy);
      if (s > score[j]) score[j] = s, from[j] = int(i);
    }
}

// The chains of one chromosome pair in one orientation, best first: chain ends are taken in order of
// score (then the furthest along both chromosomes) while their chains do not run into a pair another
// chain took; when one does, the pass is made again without the taken pairs. Pairs taken in the last
// pass stay in `items` (the other orientation sees them, as MCScanX's does).
void chains_one_way(const GeneIndex& ix, bool self, bool plus, std::vector<Candidate>& items,
                    const CollinearityParams& p, std::vector<char>& collinear, std::vector<Block>& blocks) {
  const double cutoff = double(p.match_score) * p.match_size;
  std::vector<double> score;
  std::vector<int> from;
  for (bool again = true; again;) {
    again = false;
    std::stable_sort(items.begin(), items.end(),
                     [](const Candidate& a, const Candidate& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
    chain_scores(items, p, score, from);
    std::vector<int> ends;
    for (size_t i = 0; i < items.size(); ++i)
      if (score[i] >= cutoff) ends.push_back(int(i));
    std::stable_sort(ends.begin(), ends.end(), [&](int a, int b) {
      if (score[size_t(a)] != score[size_t(b)]) return score[size_t(a)] > score[size_t(b)];
      return items[size_t(a)].x + items[size_t(a)].y > items[size_t(b)].x + items[size_t(b)].y;
    });
    for (int end : ends) {
      if (from[size_t(end)] == -2) continue;
      std::vector<int> chain;
      int k = end;
      for (; from[size_t(k)] >= 0; k = from[size_t(k)]) chain.push_back(k);
      chain.push_back(k);
      if (from[size_t(k)] == -2) {  // runs into a taken pair: chain again without them
        again = true;
        break;
      }
      std::reverse(chain.begin(), chain.end());
      for (int c : chain) from[size_t(c)] = -2;
      if (self) {  // on one chromosome, a chain whose two sides overlap is a tandem array, not a block
        int x0 = INT32_MAX, x1 = INT32_MIN, y0 = INT32_MAX, y1 = INT32_MIN;
        for (int c : chain)
          x0 = std::min(x0, items[size_t(c)].x), x1 = std::max(x1, items[size_t(c)].x),
          y0 = std::min(y0, items[size_t(c)].y), y1 = std::max(y1, items[size_t(c)].y);
        if (x0 <= y1 && y0 <= x1) continue;
      }
      const double evalue = block_evalue(ix, items, chain);
      if (!(evalue < p.evalue)) continue;  // as MCScanX: a block must pass the E-value cut
      const Candidate& c0 = items[size_t(chain.front())];
      Block b{ix.chr_name[size_t(ix.chr[size_t(c0.ga)])],
              ix.chr_name[size_t(ix.chr[size_t(c0.gb)])],
              plus,
              score[size_t(end)],
              evalue,
              {}};
      for (int c : chain) {
        const Candidate& x = items[size_t(c)];
        b.anchors.push_back({ix.gene[size_t(x.ga)]->id, ix.gene[size_t(x.gb)]->id, x.evalue});
        collinear[size_t(x.ga)] = collinear[size_t(x.gb)] = 1;
      }
      blocks.push_back(std::move(b));
    }
    if (again) {
      std::vector<Candidate> left;
      for (size_t i = 0; i < items.size(); ++i)
        if (from[i] != -2) left.push_back(items[i]);
      items.swap(left);
    }
  }
}

// The chains of one chromosome pair, plus orientation first, then minus (the second chromosome's
// order reversed over the pairs' largest y).
void chain_group(const GeneIndex& ix, bool self, std::vector<Candidate> items, const CollinearityParams& p,
                 std::vector<char>& collinear, std::vector<Block>& blocks) {
  items = collapse_tandem_hits(std::move(items), p.overlap_window);
  if (items.empty()) return;
  int max_y = INT32_MIN;
  for (auto& c : items) max_y = std::max(max_y, c.y);
  chains_one_way(ix, self, true, items, p, collinear, blocks);
  for (auto& c : items) c.y = max_y - c.y + 1;
  chains_one_way(ix, self, false, items, p, collinear, blocks);
}

// MCScanX's classes: every gene with a hit is dispersed, one fewer than proximal_distance genes from a
// homolog on its chromosome proximal, next to one tandem, an anchor of a block kept segmental.
void classify_duplicates(const GeneIndex& ix, const std::vector<std::vector<int>>& partners,
                         const std::vector<char>& collinear, const CollinearityParams& p, CollinearityResult& r) {
  for (size_t g = 0; g < ix.gene.size(); ++g) {
    int level = partners[g].empty() ? 0 : 1;
    for (int o : partners[g]) {
      if (ix.chr[size_t(o)] != ix.chr[g]) continue;
      const int d = std::abs(ix.rank[size_t(o)] - ix.rank[g]);
      if (d == 1)
        level = std::max(level, 3);
      else if (d < p.proximal_distance)
        level = std::max(level, 2);
    }
    if (collinear[g]) level = 4;
    static const char* kClass[] = {"singleton", "dispersed", "proximal", "tandem", "segmental"};
    r.duplicate_class.emplace(ix.gene[g]->id, kClass[level]);
  }
}

}  // namespace

CollinearityResult find_collinearity(const std::vector<GenePos>& genes, const std::vector<HomologHit>& hits,
                                     const CollinearityParams& p) {
  CollinearityResult r;
  const GeneIndex ix = index_genes(genes);
  r.genes = ix.gene.size();
  // Homologous pairs: known genes, one per unordered pair with its best E-value.
  std::unordered_map<uint64_t, double> pairs;
  pairs.reserve(hits.size());
  std::vector<std::vector<int>> partners(ix.gene.size());
  for (auto& h : hits) {
    if (h.a == h.b || h.evalue > p.max_hit_evalue) continue;
    auto ia = ix.id.find(h.a), ib = ix.id.find(h.b);
    if (ia == ix.id.end() || ib == ix.id.end()) continue;
    auto [it, fresh] = pairs.emplace(name_pair_key(ix, ia->second, ib->second), h.evalue);
    if (fresh) {
      partners[size_t(ia->second)].push_back(ib->second);
      partners[size_t(ib->second)].push_back(ia->second);
    } else {
      it->second = std::min(it->second, h.evalue);
    }
  }
  // Pairs grouped by chromosome pair (ids in name order), gene a on the first; on one chromosome
  // gene a is the one further 5'.
  std::map<std::pair<int, int>, std::vector<Candidate>> groups;
  for (auto& [key, ev] : pairs) {
    int ga = int(key >> 32), gb = int(key & 0xffffffffu);
    if (ix.global[size_t(gb)] < ix.global[size_t(ga)]) std::swap(ga, gb);
    groups[{ix.chr[size_t(ga)], ix.chr[size_t(gb)]}].push_back(
        {ix.global[size_t(ga)], ix.global[size_t(gb)], ga, gb, ev});
  }
  std::vector<char> collinear(ix.gene.size(), 0);
  for (auto& [chrs, items] : groups)
    if (items.size() >= size_t(p.match_size))
      chain_group(ix, chrs.first == chrs.second, std::move(items), p, collinear, r.blocks);
  r.collinear_genes = size_t(std::count(collinear.begin(), collinear.end(), 1));
  classify_duplicates(ix, partners, collinear, p, r);
  return r;
}

std::string collinearity_text(const CollinearityResult& r, const CollinearityParams& p) {
  std::ostringstream o;
  char buf[256];
  o << "############### Parameters ###############\n"
    << "# MATCH_SCORE: " << p.match_score << "\n# MATCH_SIZE: " << p.match_size << "\n# GAP_PENALTY: " << p.gap_penalty
    << "\n# OVERLAP_WINDOW: " << p.overlap_window << "\n# E_VALUE: " << p.evalue << "\n# MAX GAPS: " << p.max_gaps
    << "\n############### Statistics ###############\n";
  std::snprintf(buf, sizeof buf, "# Number of collinear genes: %zu, Percentage: %.2f\n", r.collinear_genes,
                r.genes ? 100.0 * double(r.collinear_genes) / double(r.genes) : 0.0);
  o << buf << "# Number of all genes: " << r.genes << "\n##########################################\n";
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const Block& b = r.blocks[i];
    std::snprintf(buf, sizeof buf, "## Alignment %zu: score=%.1f e_value=%.2g N=%zu %s&%s %s\n", i, b.score, b.evalue,
                  b.anchors.size(), b.chr_a.c_str(), b.chr_b.c_str(), b.plus ? "plus" : "minus");
    o << buf;
    for (size_t k = 0; k < b.anchors.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%3zu-%3zu:\t%s\t%s\t%7.2g\n", i, k, b.anchors[k].a.c_str(),
                    b.anchors[k].b.c_str(), b.anchors[k].evalue);
      o << buf;
    }
  }
  return o.str();
}

}  // namespace bioagent
