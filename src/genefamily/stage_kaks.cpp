// The Ka/Ks stage: duplicated pairs (tandem clusters, and mutual best matches
// among the members by global protein alignment), codon alignments (the
// protein alignment laid back onto the CDS), Ka, Ks and Ka/Ks by PAML yn00
// (Yang & Nielsen 2000), and divergence times T = Ks / 2r.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "genefamily/align.h"
#include "genefamily/figures.h"
#include "genefamily/stage_common.h"

namespace bioagent::gf {
namespace {

struct Pair {
  std::string a, b, kind;
  double identity = 0;
};

Result<std::vector<Pair>> find_pairs(const StageContext& ctx) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!pep) return pep.status();
  std::vector<Pair> pairs;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](std::string a, std::string b, const std::string& kind, double id) {
    if (a > b) std::swap(a, b);
    if (seen.insert({a, b}).second) pairs.push_back({a, b, kind, id});
  };
  // Tandem clusters from the chromosome stage: consecutive members in a cluster.
  if (auto t = read_text(ctx.input.at("chromosome") / final_name(ctx, "chromosome_positions.tsv"))) {
    std::istringstream in(*t);
    std::string line, prev_gene, prev_cluster;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream row(line);
      for (std::string x; std::getline(row, x, '\t');) f.push_back(x);
      std::string cluster = f.size() > 4 ? f[4] : "";
      if (!cluster.empty() && cluster == prev_cluster) add(prev_gene, f[0], "tandem", 0);
      prev_gene = f.empty() ? "" : f[0];
      prev_cluster = cluster;
    }
  }
  // Mutual best matches by identity of global alignments.
  const auto& v = *pep;
  std::vector<std::vector<double>> id(v.size(), std::vector<double>(v.size(), 0));
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i + 1; j < v.size(); ++j) id[i][j] = id[j][i] = align_proteins(v[i].seq, v[j].seq).identity;
  std::vector<size_t> best(v.size(), SIZE_MAX);
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = 0; j < v.size(); ++j)
      if (j != i && (best[i] == SIZE_MAX || id[i][j] > id[i][best[i]])) best[i] = j;
  for (size_t i = 0; i < v.size(); ++i)
    if (best[i] != SIZE_MAX && best[best[i]] == i && id[i][best[i]] >= ctx.params["min_identity"].get<double>())
      add(v[i].id, v[best[i]].id, "mutual best", id[i][best[i]]);
  return pairs;
}

Status prepare(const StageContext& ctx, const std::vector<Pair>& pairs) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  auto cds = read_fasta(ctx.input.at("identify") / final_name(ctx, "cds.fasta"));
  if (!pep || !cds) return pep ? cds.status() : pep.status();
  std::map<std::string, std::string> p, c;
  for (auto& r : *pep) p[r.id] = r.seq;
  for (auto& r : *cds) c[r.id] = r.seq;
  std::ostringstream phy, list;
  list << "gene_a\tgene_b\tkind\n";
  int n = 0;
  for (auto& pr : pairs) {
    std::string pa = p[pr.a], pb = p[pr.b], ca = c[pr.a], cb = c[pr.b];
    while (!pa.empty() && pa.back() == '*') pa.pop_back();
    while (!pb.empty() && pb.back() == '*') pb.pop_back();
    ca = ca.substr(0, pa.size() * 3);  // without the stop codon
    cb = cb.substr(0, pb.size() * 3);
    auto al = align_proteins(pa, pb);
    auto xa = codon_align(al.a, ca), xb = codon_align(al.b, cb);
    if (!xa || !xb) continue;  // a CDS that does not encode its protein: left out, listed below
    phy << "  2  " << xa->size() << "\n" << pr.a << "  " << *xa << "\n" << pr.b << "  " << *xb << "\n\n";
    list << pr.a << '\t' << pr.b << '\t' << pr.kind << '\n';
    ++n;
  }
  if (n == 0) {
    BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.tsv", list.str()));
    return write_text(ctx.work / "pairs.phy", "");
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.phy", phy.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.tsv", list.str()));
  return write_text(ctx.work / "yn00.ctl",
                    "seqfile = pairs.phy\noutfile = yn00.out\nverbose = 0\nicode = 0\n"
                    "weighting = 0\ncommonf3x4 = 0\nndata = " +
                        std::to_string(n) + "\n");
}

// dN and dS of each data set, from the Yang & Nielsen (2000) table of yn00's output.
std::vector<std::pair<double, double>> parse_yn00(const std::string& out) {
  std::vector<std::pair<double, double>> r;
  size_t at = 0;
  while ((at = out.find("Yang & Nielsen (2000) method", at)) != std::string::npos) {
    size_t header = out.find("seq. seq.", at);
    if (header == std::string::npos) break;
    size_t line_start = out.find('\n', header) + 1;
    while (line_start < out.size() && out[line_start] == '\n') ++line_start;
    std::istringstream row(out.substr(line_start, out.find('\n', line_start) - line_start));
    std::vector<std::string> t;
    for (std::string x; row >> x;) t.push_back(x);
    double dn = NAN, ds = NAN;
    if (t.size() >= 11) {
      dn = std::atof(t[7].c_str());
      ds = std::atof(t[10].c_str());
    }
    r.push_back({dn, ds});
    at = line_start;
  }
  return r;
}

Status summarise(const StageContext& ctx) {
  auto list = read_text(ctx.work / "pairs.tsv");
  if (!list) return list.status();
  std::vector<std::array<std::string, 3>> pairs;
  std::istringstream in(*list);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::array<std::string, 3> f;
    std::istringstream row(line);
    std::getline(row, f[0], '\t');
    std::getline(row, f[1], '\t');
    std::getline(row, f[2], '\t');
    pairs.push_back(f);
  }
  auto out = read_text(ctx.work / "yn00.out");
  auto values = out ? parse_yn00(*out) : std::vector<std::pair<double, double>>{};
  const double rate = ctx.params["substitution_rate"];
  std::ostringstream tsv;
  tsv << "gene_a\tgene_b\tkind\tKa\tKs\tKa_Ks\tdivergence_mya\n";
  std::vector<figures::KaKs> points;
  Json rows = Json::array();
  for (size_t i = 0; i < pairs.size(); ++i) {
    double ka = i < values.size() ? values[i].first : NAN, ks = i < values.size() ? values[i].second : NAN;
    double ratio = ks > 0 ? ka / ks : NAN, mya = ks / (2 * rate) / 1e6;
    tsv << pairs[i][0] << '\t' << pairs[i][1] << '\t' << pairs[i][2] << '\t' << ka << '\t' << ks << '\t' << ratio
        << '\t' << mya << '\n';
    points.push_back({pairs[i][0] + "/" + pairs[i][1], ka, ks});
    rows.push_back({{"pair", pairs[i][0] + "/" + pairs[i][1]},
                    {"kind", pairs[i][2]},
                    {"ka", std::isfinite(ka) ? Json(ka) : Json()},
                    {"ks", std::isfinite(ks) ? Json(ks) : Json()},
                    {"ka_ks", std::isfinite(ratio) ? Json(ratio) : Json()}});
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "kaks.tsv"), tsv.str()));
  std::string title = ctx.run.value("species", std::string()) + " " + ctx.run.value("family", std::string()) +
                      " duplicated pairs: Ka vs Ks (yn00)";
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "kaks.svg"), figures::kaks(points, title)));
  size_t purifying = 0;
  for (auto& p : points)
    if (p.ks > 0 && p.ka / p.ks < 1) ++purifying;
  return write_text(
      ctx.work / "kaks.json",
      Json{{"pairs", pairs.size()}, {"purifying_selection", purifying}, {"substitution_rate", rate}, {"rows", rows}}
          .dump(2));
}

}  // namespace

StageSpec kaks_stage() {
  StageSpec s;
  s.name = "kaks";
  s.description = "Ka, Ks and Ka/Ks of duplicated pairs (codon alignments, PAML yn00), divergence times";
  s.after = {"identify", "chromosome"};
  s.programs = {"yn00"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "min_identity": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.3, "description": "mutual best pairs below this identity are not duplicates"},
      "substitution_rate": {"type": "number", "minimum": 1e-12, "maximum": 1e-6, "default": 1.5e-8, "description": "synonymous substitutions per site per year (Koch et al. 2000, Arabidopsis)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    auto pairs = find_pairs(ctx);  // yn00 runs only when there is a pair
    if (!pairs) return pairs.status();
    std::vector<Step> steps = {StageFn([pairs = *pairs](const StageContext& c) { return prepare(c, pairs); })};
    if (!pairs->empty()) steps.push_back(Command{{"yn00", "yn00.ctl"}, "yn00.stdout", ""});
    steps.push_back(StageFn(summarise));
    return steps;
  };
  s.outputs = {"kaks.json"};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    auto t = read_text(ctx.work / "kaks.json");
    if (!t) return t.status();
    Json j = Json::parse(*t);
    j.erase("rows");
    return j;
  };
  return s;
}

}  // namespace bioagent::gf
