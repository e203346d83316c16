// Collinear block detection and duplicate classification (see collinearity.h).
#include "genefamily/collinearity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <unordered_map>

namespace bioagent {
namespace {

struct Point {
  int x, y;  // gene ranks on the two chromosomes
  size_t hit;
};

// Best chain by DP over the remaining points (sorted by x, then y for plus, -y for minus).
std::vector<size_t> best_chain(const std::vector<Point>& pts, const std::vector<bool>& used, bool plus,
                               const CollinearityParams& p, double& score_out) {
  const size_t n = pts.size();
  std::vector<double> score(n, -1);
  std::vector<long> prev(n, -1);
  size_t lo = 0;
  double best = -1;
  long best_end = -1;
  for (size_t j = 0; j < n; ++j) {
    if (used[j]) continue;
    while (pts[j].x - pts[lo].x - 1 > p.max_gaps) ++lo;
    score[j] = p.match_score;
    for (size_t i = lo; i < j; ++i) {
      if (used[i] || score[i] < 0) continue;
      int dx = pts[j].x - pts[i].x - 1, dy = plus ? pts[j].y - pts[i].y - 1 : pts[i].y - pts[j].y - 1;
      if (dx < 0 || dy < 0 || dx > p.max_gaps || dy > p.max_gaps) continue;
      double s = score[i] + p.match_score + p.gap_penalty * std::max(dx, dy);
      if (s > score[j]) {
        score[j] = s;
        prev[j] = long(i);
      }
    }
    if (score[j] > best) {
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

}  // namespace

Result<std::vector<GenePos>> parse_mcscanx_gff(std::string_view text) {
  std::vector<GenePos> out;
  std::istringstream in{std::string(text)};
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    GenePos g;
    if (!(f >> g.chr >> g.id >> g.start >> g.end))
      return parse_error("line " + std::to_string(n) + ": expected 'chromosome gene start end'");
    out.push_back(g);
  }
  return out;
}

Result<std::vector<HomologHit>> parse_blast_m8(std::string_view text) {
  std::vector<HomologHit> out;
  std::istringstream in{std::string(text)};
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string x; row >> x;) f.push_back(x);
    if (f.size() < 11) return parse_error("line " + std::to_string(n) + ": a BLAST -m 8 row has 12 columns");
    char* end = nullptr;
    double e = std::strtod(f[10].c_str(), &end);
    if (end == f[10].c_str()) return parse_error("line " + std::to_string(n) + ": the E-value is not a number");
    out.push_back({f[0], f[1], e});
  }
  return out;
}

CollinearityResult find_collinearity(const std::vector<GenePos>& genes, const std::vector<HomologHit>& hits,
                                     const CollinearityParams& p) {
  CollinearityResult r;
  // Ranks along each chromosome.
  std::map<std::string, std::vector<const GenePos*>> by_chr;
  for (auto& g : genes) by_chr[g.chr].push_back(&g);
  std::unordered_map<std::string, std::pair<std::string, int>> where;  // gene -> (chr, rank)
  std::map<std::string, int> chr_len;
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end(),
              [](auto* a, auto* b) { return std::tie(a->start, a->id) < std::tie(b->start, b->id); });
    for (size_t i = 0; i < v.size(); ++i) where[v[i]->id] = {c, int(i)};
    chr_len[c] = int(v.size());
  }
  r.genes = where.size();
  // Homologous pairs: known genes, E-value cut, one per unordered pair.
  std::map<std::pair<std::string, std::string>, double> pairs;
  std::unordered_map<std::string, std::vector<std::string>> partners;
  for (auto& h : hits) {
    if (h.a == h.b || h.evalue > p.evalue || !where.count(h.a) || !where.count(h.b)) continue;
    auto key = h.a < h.b ? std::make_pair(h.a, h.b) : std::make_pair(h.b, h.a);
    auto it = pairs.find(key);
    if (it == pairs.end()) {
      pairs[key] = h.evalue;
      partners[h.a].push_back(h.b);
      partners[h.b].push_back(h.a);
    } else {
      it->second = std::min(it->second, h.evalue);
    }
  }
  // Tandem collapse: a gene's partners that sit within the overlap window of
  // each other on one chromosome count once (the best hit).
  std::set<std::pair<std::string, std::string>> dropped;
  for (auto& entry : partners) {
    const std::string& g = entry.first;  // (not a structured binding: lambdas below capture it)
    std::vector<std::string> sorted = entry.second;
    std::sort(sorted.begin(), sorted.end(), [&](auto& a, auto& b) { return where[a] < where[b]; });
    for (size_t i = 0; i < sorted.size();) {
      size_t j = i + 1;
      while (j < sorted.size() && where[sorted[j]].first == where[sorted[i]].first &&
             where[sorted[j]].second - where[sorted[j - 1]].second <= p.overlap_window)
        ++j;
      if (j - i > 1) {
        size_t keep = i;
        auto ev = [&](const std::string& o) { return pairs[g < o ? std::make_pair(g, o) : std::make_pair(o, g)]; };
        for (size_t k = i; k < j; ++k)
          if (ev(sorted[k]) < ev(sorted[keep])) keep = k;
        for (size_t k = i; k < j; ++k)
          if (k != keep) dropped.insert(g < sorted[k] ? std::make_pair(g, sorted[k]) : std::make_pair(sorted[k], g));
      }
      i = j;
    }
  }
  // Anchors grouped by chromosome pair.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<Point, std::pair<std::string, std::string>>>>
      groups;
  for (auto& [key, ev] : pairs) {
    if (dropped.count(key)) continue;
    auto [ca, ra] = where[key.first];
    auto [cb, rb] = where[key.second];
    std::string ga = key.first, gb = key.second;
    // Pairs of nearby genes on one chromosome are local duplicates, not
    // collinearity: they would chain along the diagonal.
    if (ca == cb && std::abs(ra - rb) <= p.max_gaps) continue;
    if (cb < ca || (ca == cb && rb < ra)) {
      std::swap(ca, cb);
      std::swap(ra, rb);
      std::swap(ga, gb);
    }
    groups[{ca, cb}].push_back({{ra, rb, 0}, {ga, gb}});
  }
  std::set<std::string> collinear;
  std::set<std::pair<std::string, std::string>> anchored;
  const double comparisons = double(std::max<size_t>(1, groups.size()));
  for (auto& [chrs, items] : groups) {
    for (bool plus : {true, false}) {
      std::vector<Point> pts;
      for (size_t i = 0; i < items.size(); ++i) pts.push_back({items[i].first.x, items[i].first.y, i});
      std::sort(pts.begin(), pts.end(), [plus](const Point& a, const Point& b) {
        return a.x != b.x ? a.x < b.x : (plus ? a.y < b.y : a.y > b.y);
      });
      std::vector<bool> used(pts.size(), false);
      for (size_t k = 0; k < pts.size(); ++k)  // anchors of the other orientation's blocks are taken
        used[k] = anchored.count(items[pts[k].hit].second) > 0;
      while (true) {
        double score = 0;
        auto chain = best_chain(pts, used, plus, p, score);
        // A block needs match_size anchors' worth of score, not just match_size anchors.
        if (chain.size() < size_t(p.match_size) || score < double(p.match_score * p.match_size)) break;
        Block b{chrs.first, chrs.second, plus, score, 1, {}};
        for (size_t k : chain) {
          used[k] = true;
          const auto& names = items[pts[k].hit].second;
          auto key = names.first < names.second ? names : std::make_pair(names.second, names.first);
          b.anchors.push_back({names.first, names.second, pairs[key]});
          anchored.insert(names);
          collinear.insert(names.first);
          collinear.insert(names.second);
        }
        // E-value: each anchor after the first is a chance event of finding a
        // homologous pair within the gap to the previous one, at the pair
        // density of these two chromosomes; times the comparisons made.
        double density = double(items.size()) / (double(chr_len[chrs.first]) * double(chr_len[chrs.second]));
        double log_e = std::log(comparisons);
        for (size_t k = 1; k < chain.size(); ++k) {
          double dx = std::abs(pts[chain[k]].x - pts[chain[k - 1]].x),
                 dy = std::abs(pts[chain[k]].y - pts[chain[k - 1]].y);
          log_e += std::log(std::min(1.0, density * dx * dy));
        }
        b.evalue = std::exp(log_e);
        if (b.evalue <= p.evalue) r.blocks.push_back(std::move(b));  // as MCScanX: blocks must pass the E-value cut
      }
    }
  }
  std::stable_sort(r.blocks.begin(), r.blocks.end(), [](const Block& a, const Block& b) {
    return std::tie(a.chr_a, a.chr_b) < std::tie(b.chr_a, b.chr_b);
  });
  r.collinear_genes = collinear.size();
  // Duplicate classes, in MCScanX's order of precedence.
  for (auto& [g, wr] : where) {
    auto it = partners.find(g);
    std::string cls = "singleton";
    if (it != partners.end() && !it->second.empty()) {
      cls = "dispersed";
      for (auto& o : it->second) {
        auto [oc, orank] = where[o];
        if (oc != wr.first) continue;
        int d = std::abs(orank - wr.second);
        if (d == 1)
          cls = "tandem";
        else if (d < p.proximal_distance && cls != "tandem")
          cls = "proximal";
      }
      if (collinear.count(g)) cls = "segmental";
    }
    r.duplicate_class[g] = cls;
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
