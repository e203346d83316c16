// ZOOPS motif discovery by EM (see motif_em.h).
#include "genefamily/algo/motif_em.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

namespace bioagent {
namespace {

using Seqs = std::vector<std::vector<int>>;  // letter indices; -1 unknown or masked

struct Model {
  std::vector<std::vector<double>> theta;  // W x A
  double lambda = 0.5;
  double ll = -1e300;
};

// log of each letter's ratio theta/background, per motif column.
std::vector<std::vector<double>> log_ratios(const Model& m, const std::vector<double>& bg) {
  std::vector<std::vector<double>> out(m.theta.size(), std::vector<double>(bg.size()));
  for (size_t k = 0; k < m.theta.size(); ++k)
    for (size_t a = 0; a < bg.size(); ++a) out[k][a] = std::log(m.theta[k][a] / bg[a]);
  return out;
}

// One E-step and M-step; returns the log likelihood (against the background) before the update.
double em_step(Model& m, const Seqs& seqs, const std::vector<double>& bg, std::vector<std::vector<double>>* z_out) {
  const size_t W = m.theta.size(), A = bg.size();
  auto lr = log_ratios(m, bg);
  std::vector<std::vector<double>> counts(W, std::vector<double>(A, 0));
  double ll = 0, total_z = 0;
  if (z_out) z_out->assign(seqs.size(), {});
  for (size_t i = 0; i < seqs.size(); ++i) {
    const auto& s = seqs[i];
    if (s.size() < W) continue;
    size_t positions = s.size() - W + 1;
    std::vector<double> r(positions, 0);
    double sum = 0;
    for (size_t j = 0; j < positions; ++j) {
      double l = 0;
      bool ok = true;
      for (size_t k = 0; k < W && ok; ++k) {
        int x = s[j + k];
        if (x < 0)
          ok = false;
        else
          l += lr[k][size_t(x)];
      }
      r[j] = ok ? std::exp(std::min(l, 700.0)) : 0;
      sum += r[j];
    }
    double prior = m.lambda / double(positions);
    double denom = 1 - m.lambda + prior * sum;
    ll += std::log(denom);
    std::vector<double> z(positions);
    for (size_t j = 0; j < positions; ++j) {
      z[j] = prior * r[j] / denom;
      if (z[j] < 1e-9) continue;
      total_z += z[j];
      for (size_t k = 0; k < W; ++k) counts[k][size_t(s[j + k])] += z[j];
    }
    if (z_out) (*z_out)[i] = std::move(z);
  }
  const double beta = 0.1;  // pseudocounts in proportion to the background
  for (size_t k = 0; k < W; ++k) {
    double col = 0;
    for (size_t a = 0; a < A; ++a) col += counts[k][a];
    for (size_t a = 0; a < A; ++a) m.theta[k][a] = (counts[k][a] + beta * bg[a]) / (col + beta);
  }
  m.lambda = std::clamp(total_z / double(std::max<size_t>(1, seqs.size())), 0.01, 0.99);
  m.ll = ll;
  return ll;
}

// log of the regularised upper incomplete gamma Q(a, x): the chi-square
// survival function is Q(df/2, x/2). Series below a+1, continued fraction above.
double log_gamma_q(double a, double x) {
  if (x <= 0) return 0;
  double lead = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 500 && std::fabs(term) > std::fabs(sum) * 1e-15; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    double p = std::exp(lead) * sum;
    return std::log(std::max(1e-300, 1 - p));
  }
  // Lentz's method for the continued fraction of Q.
  double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
  for (int i = 1; i < 500; ++i) {
    double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (std::fabs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return lead + std::log(h);
}

// log p-value of a motif's sites: each column's G statistic against the
// background is chi-square with A-1 degrees of freedom; columns multiply.
double log_site_pvalue(const std::vector<std::vector<double>>& counts, const std::vector<double>& bg) {
  double log_p = 0;
  for (auto& col : counts) {
    double n = 0, g = 0;
    for (double c : col) n += c;
    for (size_t a = 0; a < col.size(); ++a)
      if (col[a] > 0) g += 2 * col[a] * std::log(col[a] / n / bg[a]);
    log_p += log_gamma_q((double(bg.size()) - 1) / 2, g / 2);
  }
  return log_p;
}

Model start_from(const std::vector<int>& site, const std::vector<double>& bg) {
  Model m;
  m.theta.assign(site.size(), std::vector<double>(bg.size()));
  for (size_t k = 0; k < site.size(); ++k)
    for (size_t a = 0; a < bg.size(); ++a) m.theta[k][a] = (int(a) == site[k] ? 0.5 : 0.0) + 0.5 * bg[a];
  return m;
}

}  // namespace

std::vector<double> background_frequencies(const std::vector<FastaRecord>& seqs, const std::string& alphabet) {
  std::vector<double> f(alphabet.size(), 1.0);  // add-one
  for (auto& r : seqs)
    for (char c : r.seq)
      if (auto p = alphabet.find(char(std::toupper(static_cast<unsigned char>(c)))); p != std::string::npos) f[p] += 1;
  double total = 0;
  for (double v : f) total += v;
  for (double& v : f) v /= total;
  return f;
}

namespace {

// Letters as alphabet indices (-1: not in the alphabet).
Seqs encode(const std::vector<FastaRecord>& input, const std::string& alphabet) {
  Seqs seqs;
  for (auto& r : input) {
    std::vector<int> s;
    for (char c : r.seq) {
      auto p = alphabet.find(char(std::toupper(static_cast<unsigned char>(c))));
      s.push_back(p == std::string::npos ? -1 : int(p));
    }
    seqs.push_back(s);
  }
  return seqs;
}

// The motif widths tried: from min_width in steps of 1.4 times, max_width last.
std::vector<int> search_widths(const MotifOptions& o) {
  std::vector<int> widths;
  for (double w = o.min_width; w <= o.max_width + 0.5; w *= 1.4) widths.push_back(int(std::lround(w)));
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  if (widths.back() != o.max_width) widths.push_back(o.max_width);
  return widths;
}

// A candidate motif: model, score (log p-value of the site columns plus log of
// the ways to place the sites), posteriors.
struct Candidate {
  Model model;
  double score = 1e300;
  std::vector<std::vector<double>> z;
};

// The best candidate motif over all widths, from EM started at substrings of the data.
struct MotifSearch {
  const std::vector<double>& bg;
  const std::vector<int>& widths;
  const MotifOptions& o;
  std::mt19937& rng;

  // Starting points: many substrings scored by one EM step; the best quarter
  // get three more steps; the best of those is returned (empty theta: none).
  Model best_start(int W, const Seqs& data) {
    std::vector<Model> starts;
    for (int t = 0; t < o.starts * 8; ++t) {
      const auto& s = data[rng() % data.size()];
      if (s.size() < size_t(W)) continue;
      size_t at = rng() % (s.size() - size_t(W) + 1);
      std::vector<int> site(s.begin() + long(at), s.begin() + long(at) + W);
      if (std::count(site.begin(), site.end(), -1)) continue;
      starts.push_back(start_from(site, bg));
      em_step(starts.back(), data, bg, nullptr);
    }
    std::sort(starts.begin(), starts.end(), [](const Model& x, const Model& y) { return x.ll > y.ll; });
    starts.resize(std::min(starts.size(), size_t(std::max(1, o.starts / 4))));
    Model chosen;
    for (auto& m : starts) {
      for (int it = 0; it < 3; ++it) em_step(m, data, bg, nullptr);
      if (m.ll > chosen.ll) chosen = m;
    }
    return chosen;
  }

  // The chosen start refined to convergence and scored; score 1e300 when it has fewer than two sites.
  Candidate refine(Model chosen, int W, const Seqs& data) {
    double prev = -1e300;
    for (int it = 0; it < o.em_iterations; ++it) {
      double ll = em_step(chosen, data, bg, nullptr);
      if (std::fabs(ll - prev) < 1e-6) break;
      prev = ll;
    }
    std::vector<std::vector<double>> z;
    em_step(chosen, data, bg, &z);
    double log_places = 0;
    size_t nsites = 0;
    std::vector<std::vector<double>> counts(size_t(W), std::vector<double>(bg.size(), 0));
    for (size_t i = 0; i < z.size(); ++i) {
      if (z[i].empty()) continue;
      size_t j = size_t(std::max_element(z[i].begin(), z[i].end()) - z[i].begin());
      if (z[i][j] < o.site_threshold) continue;
      ++nsites;
      for (size_t k = 0; k < size_t(W); ++k) counts[k][size_t(data[i][j + k])] += 1;
      log_places += std::log(double(z[i].size()));
    }
    if (nsites < 2) return {};
    return {chosen, log_site_pvalue(counts, bg) + log_places + std::log(double(widths.size())), z};
  }

  Candidate search(const Seqs& data) {
    Candidate best;
    for (int W : widths) {
      Model chosen = best_start(W, data);
      if (chosen.theta.empty()) continue;
      Candidate c = refine(chosen, W, data);
      if (c.score < best.score) best = std::move(c);
    }
    return best;
  }
};

// The candidate as a motif: its sites (masked in seqs for the next motif), log-likelihood ratio, consensus.
Motif take_motif(const Candidate& c, Seqs& seqs, const std::vector<double>& bg, const std::string& alphabet,
                 double site_threshold, double null_score) {
  const Model& best = c.model;
  const auto& best_z = c.z;
  Motif m;
  m.width = best.theta.size();
  m.pwm = best.theta;
  auto lr = log_ratios(best, bg);
  for (size_t i = 0; i < best_z.size(); ++i) {
    if (best_z[i].empty()) continue;
    size_t j = size_t(std::max_element(best_z[i].begin(), best_z[i].end()) - best_z[i].begin());
    if (best_z[i][j] < site_threshold) continue;
    m.sites.push_back({i, j, best_z[i][j]});
    for (size_t k = 0; k < m.width; ++k) {
      m.llr += lr[k][size_t(seqs[i][j + k])] / std::log(2.0);
      seqs[i][j + k] = -1;  // masked for the next motif
    }
  }
  for (auto& col : m.pwm) m.consensus += alphabet[size_t(std::max_element(col.begin(), col.end()) - col.begin())];
  m.evalue = std::exp(c.score - null_score);  // < 1: better than the best shuffled control
  return m;
}

}  // namespace

std::vector<Motif> discover_motifs(const std::vector<FastaRecord>& input, const std::string& alphabet,
                                   const MotifOptions& o) {
  std::vector<double> bg = background_frequencies(input, alphabet);
  Seqs seqs = encode(input, alphabet);
  std::vector<int> widths = search_widths(o);
  std::mt19937 rng(o.seed);
  MotifSearch searcher{bg, widths, o, rng};
  // The null: the same search on each sequence's letters shuffled (same
  // composition, no motif). A motif counts when it scores better than every control.
  double null_score = 1e300;
  for (int c = 0; c < 3; ++c) {
    Seqs shuffled = seqs;
    for (auto& s : shuffled) std::shuffle(s.begin(), s.end(), rng);
    null_score = std::min(null_score, searcher.search(shuffled).score);
  }
  std::vector<Motif> out;
  for (int n = 0; n < o.motifs; ++n) {
    Candidate c = searcher.search(seqs);
    if (c.model.theta.empty() || c.score >= null_score) break;  // no better than chance: stop
    out.push_back(take_motif(c, seqs, bg, alphabet, o.site_threshold, null_score));
  }
  return out;
}

std::string motifs_to_meme(const std::vector<Motif>& motifs, const std::string& alphabet,
                           const std::vector<double>& background) {
  std::ostringstream o;
  o << "MEME version 4\n\nALPHABET= " << alphabet << "\n\n";
  if (alphabet == "ACGT") o << "strands: + -\n\n";
  o << "Background letter frequencies\n";
  o.setf(std::ios::fixed);
  o.precision(4);
  for (size_t a = 0; a < alphabet.size(); ++a) o << alphabet[a] << ' ' << background[a] << ' ';
  o << "\n\n";
  for (size_t n = 0; n < motifs.size(); ++n) {
    const Motif& m = motifs[n];
    o << "MOTIF " << m.consensus << " motif_" << n + 1 << "\n\n";
    o.unsetf(std::ios::fixed);
    o << "letter-probability matrix: alength= " << alphabet.size() << " w= " << m.width << " nsites= " << m.sites.size()
      << " E= " << m.evalue << "\n";
    o.setf(std::ios::fixed);
    for (auto& col : m.pwm) {
      for (double p : col) o << ' ' << p;
      o << "\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace bioagent
