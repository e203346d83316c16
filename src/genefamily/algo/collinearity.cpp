// Collinear block detection and duplicate classification (see collinearity.h).
#include "genefamily/algo/collinearity.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace bioagent {
namespace {

struct Point {
  int x, y;  // gene ranks on the two chromosomes
  size_t hit;
};

// Best chain by DP over the remaining points (sorted by x, then y for plus, -y
// for minus). Ties as MCScanX's chaining breaks them: the nearest predecessor,
// and among equal chains the one ending furthest along both chromosomes.
std::vector<size_t> best_chain(const std::vector<Point>& pts, const std::vector<bool>& used, bool plus,
                               const CollinearityParams& p, double& score_out) {
  const size_t n = pts.size();
  std::vector<double> score(n, -1);
  std::vector<long> prev(n, -1);
  size_t lo = 0;
  double best = -1;
  long best_end = -1;
  auto reach = [&](size_t k) { return plus ? pts[k].x + pts[k].y : pts[k].x - pts[k].y; };
  for (size_t j = 0; j < n; ++j) {
    if (used[j]) continue;
    while (pts[j].x - pts[lo].x - 1 > p.max_gaps) ++lo;
    score[j] = p.match_score;
    for (size_t i = j; i-- > lo;) {
      if (used[i] || score[i] < 0) continue;
      int dx = pts[j].x - pts[i].x - 1, dy = plus ? pts[j].y - pts[i].y - 1 : pts[i].y - pts[j].y - 1;
      if (dx < 0 || dy < 0 || dx > p.max_gaps || dy > p.max_gaps) continue;
      double s = score[i] + p.match_score + p.gap_penalty * std::max(dx, dy);
      if (s > score[j]) {
        score[j] = s;
        prev[j] = long(i);
      }
    }
    if (score[j] > best || (score[j] == best && reach(j) > reach(size_t(best_end)))) {
      best = score[j];
      best_end = long(j);
    }
  }
  std::vector<size_t> chain;
  for (long k = best_end; k >= 0; k = prev[size_t(k)]) chain.push_back(size_t(k));
  std::reverse(chain.begin(), chain.end());
  score_out = best;
  return chain;
}

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

// Genes as indices: chromosome ids numbered in name order, ranks along each.
struct GeneIndex {
  std::unordered_map<std::string_view, int> id;
  std::vector<const GenePos*> gene;
  std::vector<int> chr, rank;
  std::vector<std::string> chr_name;
  std::vector<int> chr_len;
  uint64_t order_key(int g) const { return (uint64_t(uint32_t(chr[size_t(g)])) << 32) | uint32_t(rank[size_t(g)]); }
};

GeneIndex index_genes(const std::vector<GenePos>& genes) {
  GeneIndex ix;
  std::map<std::string, std::vector<const GenePos*>> by_chr;
  for (auto& g : genes) by_chr[g.chr].push_back(&g);
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end(),
              [](auto* a, auto* b) { return std::tie(a->start, a->id) < std::tie(b->start, b->id); });
    int cid = int(ix.chr_name.size());
    ix.chr_name.push_back(c);
    ix.chr_len.push_back(int(v.size()));
    for (size_t i = 0; i < v.size(); ++i) {
      auto [it, fresh] = ix.id.emplace(v[i]->id, int(ix.gene.size()));
      if (!fresh) {  // a gene listed twice keeps its last position, as a map assignment would
        ix.chr[size_t(it->second)] = cid;
        ix.rank[size_t(it->second)] = int(i);
        continue;
      }
      ix.gene.push_back(v[i]);
      ix.chr.push_back(cid);
      ix.rank.push_back(int(i));
    }
  }
  return ix;
}

inline uint64_t pair_key(int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

// Unordered pair key in name order (the smaller name first).
inline uint64_t name_pair_key(const GeneIndex& ix, int a, int b) {
  return ix.gene[size_t(a)]->id < ix.gene[size_t(b)]->id ? pair_key(a, b) : pair_key(b, a);
}

struct Candidate {
  int x, y;    // ranks of gene a and gene b
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

// Significance of a chain (Wang et al. 2006, as MCScanX): E = 2 P(N, m)
// prod(l1 l2 / (L1 L2)), N the candidate pairs inside the block's region, m
// its anchors, l the distances in bases between successive anchors, L the
// region's lengths.
double block_evalue(const GeneIndex& ix, const std::vector<Candidate>& items, const std::vector<bool>& used,
                    const std::vector<size_t>& chain, const std::vector<size_t>& order) {
  auto pos = [&](int g) { return double(ix.gene[size_t(g)]->start); };
  double a0 = 1e300, a1 = -1e300, b0 = 1e300, b1 = -1e300, sum = 0;
  for (size_t k = 0; k < chain.size(); ++k) {
    const Candidate& c = items[order[chain[k]]];
    a0 = std::min(a0, pos(c.ga)), a1 = std::max(a1, pos(c.ga));
    b0 = std::min(b0, pos(c.gb)), b1 = std::max(b1, pos(c.gb));
    if (k == 0) continue;
    const Candidate& prev = items[order[chain[k - 1]]];
    sum += std::log(std::fabs(pos(c.ga) - pos(prev.ga))) + std::log(std::fabs(pos(c.gb) - pos(prev.gb)));
  }
  size_t n = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const Candidate& c = items[order[k]];
    if (!used[k] && pos(c.ga) >= a0 && pos(c.ga) <= a1 && pos(c.gb) >= b0 && pos(c.gb) <= b1) ++n;
  }
  double m = double(chain.size());
  n = std::max(n, chain.size());
  double ln_perm = std::lgamma(double(n) + 1) - std::lgamma(double(n) - m + 1);
  return std::exp(std::log(2.0) + ln_perm + sum - (m - 1) * (std::log(a1 - a0) + std::log(b1 - b0)));
}

// Chains of one chromosome pair in both orientations, best first.
void chain_group(const GeneIndex& ix, std::pair<int, int> chrs, const std::vector<Candidate>& items,
                 const CollinearityParams& p, std::unordered_set<uint64_t>& anchored, std::vector<char>& collinear,
                 std::vector<Block>& blocks) {
  const bool self = chrs.first == chrs.second;
  for (bool plus : {true, false}) {
    std::vector<Point> pts;
    pts.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) pts.push_back({items[i].x, items[i].y, i});
    std::sort(pts.begin(), pts.end(), [plus](const Point& a, const Point& b) {
      return a.x != b.x ? a.x < b.x : (plus ? a.y < b.y : a.y > b.y);
    });
    std::vector<size_t> order(pts.size());
    std::vector<bool> used(pts.size(), false);
    for (size_t k = 0; k < pts.size(); ++k) {  // anchors of the other orientation's blocks are taken
      order[k] = pts[k].hit;
      used[k] = anchored.count(pair_key(items[order[k]].ga, items[order[k]].gb)) > 0;
    }
    while (true) {
      double score = 0;
      auto chain = best_chain(pts, used, plus, p, score);
      // A block needs match_size anchors' worth of score, not just match_size anchors.
      if (chain.size() < size_t(p.match_size) || score < double(p.match_score * p.match_size)) break;
      if (self) {  // on one chromosome, a chain whose two sides overlap is a tandem array, not a block
        int x0 = pts[chain.front()].x, x1 = pts[chain.back()].x, y0 = pts[chain.front()].y, y1 = y0;
        for (size_t k : chain) y0 = std::min(y0, pts[k].y), y1 = std::max(y1, pts[k].y);
        if (x0 <= y1 && y0 <= x1) {
          for (size_t k : chain) used[k] = true;
          continue;
        }
      }
      double evalue = block_evalue(ix, items, used, chain, order);
      Block b{ix.chr_name[size_t(chrs.first)], ix.chr_name[size_t(chrs.second)], plus, score, evalue, {}};
      for (size_t k : chain) {
        used[k] = true;
        const Candidate& c = items[order[k]];
        b.anchors.push_back({ix.gene[size_t(c.ga)]->id, ix.gene[size_t(c.gb)]->id, c.evalue});
        anchored.insert(pair_key(c.ga, c.gb));
        collinear[size_t(c.ga)] = collinear[size_t(c.gb)] = 1;
      }
      if (b.evalue <= p.evalue) blocks.push_back(std::move(b));  // as MCScanX: blocks must pass the E-value cut
    }
  }
}

}  // namespace

CollinearityResult find_collinearity(const std::vector<GenePos>& genes, const std::vector<HomologHit>& hits,
                                     const CollinearityParams& p) {
  CollinearityResult r;
  const GeneIndex ix = index_genes(genes);
  r.genes = ix.gene.size();
  // Homologous pairs: known genes, E-value cut, one per unordered pair.
  std::unordered_map<uint64_t, double> pairs;
  pairs.reserve(hits.size());
  std::vector<std::vector<int>> partners(ix.gene.size());
  for (auto& h : hits) {
    if (h.a == h.b || h.evalue > p.evalue) continue;
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
  // Anchors grouped by chromosome pair (ids in name order), gene a on the
  // first; on one chromosome gene a is the one further 5'.
  std::map<std::pair<int, int>, std::vector<Candidate>> groups;
  for (auto& [key, ev] : pairs) {
    int ga = int(key >> 32), gb = int(key & 0xffffffffu);
    int ca = ix.chr[size_t(ga)], ra = ix.rank[size_t(ga)], cb = ix.chr[size_t(gb)], rb = ix.rank[size_t(gb)];
    if (cb < ca || (ca == cb && rb < ra)) {
      std::swap(ca, cb);
      std::swap(ra, rb);
      std::swap(ga, gb);
    }
    groups[{ca, cb}].push_back({ra, rb, ga, gb, ev});
  }
  std::vector<char> collinear(ix.gene.size(), 0);
  std::unordered_set<uint64_t> anchored;
  for (auto& [chrs, raw] : groups) {
    if (raw.size() < size_t(p.match_size)) continue;
    std::vector<Candidate> items = collapse_tandem_hits(std::move(raw), p.overlap_window);
    chain_group(ix, chrs, items, p, anchored, collinear, r.blocks);
  }
  r.collinear_genes = size_t(std::count(collinear.begin(), collinear.end(), 1));
  // Duplicate classes, in MCScanX's order of precedence.
  for (size_t g = 0; g < ix.gene.size(); ++g) {
    std::string cls = "singleton";
    if (!partners[g].empty()) {
      cls = "dispersed";
      for (int o : partners[g]) {
        if (ix.chr[size_t(o)] != ix.chr[g]) continue;
        int d = std::abs(ix.rank[size_t(o)] - ix.rank[g]);
        if (d == 1)
          cls = "tandem";
        else if (d < p.proximal_distance && cls != "tandem")
          cls = "proximal";
      }
      if (collinear[g]) cls = "segmental";
    }
    r.duplicate_class.emplace(ix.gene[g]->id, cls);
  }
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
