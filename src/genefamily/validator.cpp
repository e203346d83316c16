// The gene-family stage table and the validator (seed 004's ValidatorAgent
// checks: required files present and non-empty, required stages done, gene
// count within bounds, median bootstrap, domain coverage).
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "genefamily/newick.h"
#include "genefamily/stage_common.h"

namespace bioagent {

const Pipeline& genefamily_pipeline() {
  static const Pipeline kPipeline({gf::check_stage(), gf::identify_stage(), gf::phylogeny_stage(), gf::domain_stage(),
                                   gf::properties_stage(), gf::motif_stage(), gf::structure_stage(),
                                   gf::chromosome_stage(), gf::promoter_stage(), gf::synteny_stage(), gf::kaks_stage(),
                                   gf::ppi_stage(), gf::expression_stage(), gf::report_stage()});
  return kPipeline;
}

Result<std::vector<StageStatus>> run_genefamily(const Json& config, Runner& runner, const PipelineOptions& o) {
  std::error_code ec;
  fs::create_directories(o.run_dir, ec);
  std::ofstream(o.run_dir / "run.json") << config.dump(2) << "\n";
  auto r = genefamily_pipeline().run(config, runner, o);
  if (!r) return r;
  Json stages = Json::array();
  for (auto& s : *r) stages.push_back(s.to_json());
  std::ofstream(o.run_dir / "status.json")
      << Json{{"run_dir", fs::absolute(o.run_dir).string()}, {"runner", runner.name()}, {"stages", stages}}.dump(2)
      << "\n";
  return r;
}

Result<Json> validate_run(const fs::path& run_dir, const ValidationThresholds& t) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return not_found("no run folder " + run_dir.string());
  Json run = Json::parse(std::ifstream(run_dir / "run.json"), nullptr, false);
  if (run.is_discarded()) return not_found("no run.json in " + run_dir.string() + " (is it a gene-family run?)");
  std::string base = run.value("species", std::string()) + "." + run.value("family", std::string());
  Json checks = Json::array();
  auto add = [&](const std::string& name, const std::string& status, const std::string& detail, Json value = nullptr) {
    checks.push_back({{"check", name}, {"status", status}, {"detail", detail}, {"value", value}});
  };
  // completeness: the seed's required files
  for (const char* suffix : {"pep.fasta", "cds.fasta", "geneID.txt", "domain.txt"}) {
    fs::path p = run_dir / "final" / (base + "." + suffix);
    bool ok = fs::exists(p, ec) && fs::file_size(p, ec) > 0;
    add("file final/" + base + "." + suffix, ok ? "pass" : "fail", ok ? "present" : "missing or empty");
  }
  // completeness: required stages finished (a .complete marker in a stage folder)
  for (const char* stage : {"identify", "phylogeny", "domain"}) {
    bool done = false;
    for (auto& e : fs::directory_iterator(run_dir / "stages", ec))
      if (e.path().filename().string().rfind(std::string(stage) + "-", 0) == 0 && fs::exists(e.path() / ".complete"))
        done = true;
    add(std::string("stage ") + stage, done ? "pass" : "fail", done ? "finished" : "not finished");
  }
  // quality: gene count
  std::ifstream ids(run_dir / "final" / (base + ".geneID.txt"));
  int genes = 0;
  for (std::string l; std::getline(ids, l);) genes += !l.empty();
  add("gene count", genes >= t.min_genes && genes <= t.max_genes ? "pass" : "warn",
      std::to_string(genes) + " genes (expected " + std::to_string(t.min_genes) + "-" + std::to_string(t.max_genes) +
          ")",
      genes);
  // quality: median bootstrap
  std::ifstream tf(run_dir / "final" / (base + ".tree.nwk"));
  std::string tree_text((std::istreambuf_iterator<char>(tf)), std::istreambuf_iterator<char>());
  if (tree_text.empty()) {
    add("median bootstrap", "fail", "no tree");
  } else if (auto tree = parse_newick(tree_text)) {
    auto sup = tree->supports();
    std::sort(sup.begin(), sup.end());
    double median = sup.empty() ? 0 : sup[sup.size() / 2];
    if (!sup.empty() && sup.back() <= 1.0) median *= 100;  // FastTree's 0-1 supports
    add("median bootstrap", median >= t.min_median_bootstrap ? "pass" : "warn",
        "median support " + std::to_string(int(median + 0.5)) + " (threshold " +
            std::to_string(int(t.min_median_bootstrap)) + ")",
        median);
  } else {
    add("median bootstrap", "fail", tree.status().message());
  }
  // quality: domain coverage (mean over members)
  std::ifstream da(run_dir / "final" / (base + ".domain_architecture.tsv"));
  double sum = 0;
  int n = 0;
  std::string line;
  std::getline(da, line);
  while (std::getline(da, line)) {
    auto tab = line.rfind('\t');
    if (tab == std::string::npos) continue;
    sum += std::atof(line.c_str() + tab + 1);
    ++n;
  }
  double cov = n ? sum / n : 0;
  add("domain coverage", n && cov >= t.min_domain_coverage ? "pass" : "warn",
      "mean HMM coverage " + std::to_string(cov).substr(0, 4) + " (threshold " +
          std::to_string(t.min_domain_coverage).substr(0, 4) + ")",
      cov);
  std::string status = "pass";
  for (auto& c : checks) {
    if (c["status"] == "fail") status = "fail";
    if (c["status"] == "warn" && status == "pass") status = "warn";
  }
  Json out = {{"run", run_dir.string()},
              {"status", status},
              {"checks", checks},
              {"thresholds",
               {{"min_genes", t.min_genes},
                {"max_genes", t.max_genes},
                {"phylogeny_bootstrap", t.min_median_bootstrap},
                {"domain_coverage", t.min_domain_coverage}}}};
  std::ofstream(run_dir / "validation.json") << out.dump(2) << "\n";
  return out;
}

}  // namespace bioagent
