// What the gene-family stages share: file names of the seed's final outputs,
// reading an upstream stage's files, and small TSV/JSON writers.
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bioagent/genefamily.h"
#include "bioagent/http.h"
#include "bioagent/seqio.h"

namespace bioagent::gf {

// "final/<Prefix>.<Family>.<suffix>", e.g. final/Lchi.SPL.pep.fasta.
inline std::string final_name(const StageContext& ctx, const std::string& suffix) {
  return "final/" + ctx.run.value("species", std::string()) + "." + ctx.run.value("family", std::string()) + "." +
         suffix;
}

inline Status write_text(const fs::path& p, const std::string& text) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  return out ? Status::ok() : Status(ErrorCode::kInternal, "cannot write " + p.string());
}

inline Result<std::string> read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return not_found("cannot read " + p.string());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A stage's parser when its summary is a JSON file it wrote.
inline std::function<Result<Json>(const StageContext&)> summary_file(std::string name) {
  return [name](const StageContext& ctx) -> Result<Json> {
    auto t = read_text(ctx.work / name);
    if (!t) return t.status();
    Json j = Json::parse(*t, nullptr, false);
    if (j.is_discarded()) return parse_error(name + " is not JSON");
    return j;
  };
}

// The product's HTTP client as the run's network settings ask (run["network"]:
// offline, cache_dir, allow_private_urls), with a cache TTL for `source`.
Result<std::unique_ptr<HttpClient>> http_for_run(const StageContext& ctx, const std::string& source,
                                                 std::chrono::hours ttl);

// The identified members: one row per gene (members.tsv of the identify stage).
struct Member {
  std::string gene, protein, seqid;
  char strand = '+';
  int64_t start = 0, end = 0, length = 0;
  double evalue = 0, score = 0, coverage = 0;
};
Result<std::vector<Member>> read_members(const fs::path& identify_folder);

// Stage entries, one function per stage (stage_*.cpp).
StageSpec check_stage();
StageSpec identify_stage();
StageSpec phylogeny_stage();
StageSpec domain_stage();
StageSpec properties_stage();
StageSpec structure_stage();
StageSpec chromosome_stage();
StageSpec promoter_stage();
StageSpec kaks_stage();
StageSpec expression_stage();
StageSpec motif_stage();
StageSpec synteny_stage();
StageSpec ppi_stage();
StageSpec report_stage();

}  // namespace bioagent::gf
