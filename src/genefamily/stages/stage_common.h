// What the gene-family stages share: file names of the seed's final outputs,
// reading an upstream stage's files, and small TSV/JSON writers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/genefamily.h"
#include "bioagent/http.h"
#include "bioagent/json_text.h"
#include "bioagent/seqio.h"
#include "figures/svg.h"
#include "genefamily/algo/protein_properties.h"

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

// A JSON file's content, or an empty object when it is absent or not JSON
// (a stage that did not finish has no files).
inline Json read_json_or(const fs::path& p) {
  if (p.empty()) return Json::object();
  auto t = read_text(p);
  if (!t) return Json::object();
  Json j = Json::parse(*t, nullptr, false);
  return j.is_discarded() ? Json::object() : j;
}

// A number for the report: `digits` decimals, "NA" when it is not finite.
inline std::string fmt(double v, int digits = 2) {
  if (!std::isfinite(v)) return "NA";
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// The median: the middle value, or the mean of the two middle values of an even count; NaN for none.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// {"a": 1, "b": 2} as "a: 1, b: 2".
inline std::string join_counts(const Json& obj) {
  std::string out;
  for (auto& [k, v] : obj.items()) out += (out.empty() ? "" : ", ") + k + ": " + json_text(v);
  return out;
}

// "<Prefix>.<Family>." of the run's final file names.
inline std::string final_base(const StageContext& ctx) {
  return ctx.run.value("species", std::string()) + "." + ctx.run.value("family", std::string()) + ".";
}

// The language a stage draws its figures in: the run's "lang" (English when absent).
inline Lang run_lang(const StageContext& ctx) { return lang_or_en(ctx.run.value("lang", std::string())); }

// "<species> <family><what>" with `what` in the run's language.
inline std::string figure_title(const StageContext& ctx, BiText what) {
  return ctx.run.value("species", std::string()) + " " + ctx.run.value("family", std::string()) +
         what.in(run_lang(ctx));
}

// A stage's report section with its title in the report's language.
inline ReportSection section(const ReportContext& r, const char* id, BiText title) {
  ReportSection s;
  s.id = id;
  s.title = title.in(r.lang);
  return s;
}

// The product's HTTP client as the run's network settings ask (run["network"]:
// offline, cache_dir, allow_private_urls), with a cache TTL for `source`.
Result<std::unique_ptr<HttpClient>> http_for_run(const StageContext& ctx, const std::string& source,
                                                 std::chrono::hours ttl);

// The identified members: one row per gene (members.tsv of the identify stage). `name` is the member's one
// name in every figure, table and file of the run (<Prefix><Family>n, see name_members); `gene` and `protein`
// are the data's own ids, kept in the mapping table (names.tsv) and the members table's id columns, and used
// only to look a member up in the data (GFF3, genome, expression matrix).
struct Member {
  std::string name, gene, protein, seqid;
  std::string transcript;  // the GFF3 transcript the gene map led the protein to; "" when none
  char strand = '+';
  int64_t start = 0, end = 0, length = 0;
  double evalue = 0, score = 0, coverage = 0;
};
Result<std::vector<Member>> read_members(const fs::path& identify_folder);

// How the members were numbered, for the summary and the report: "chromosome" (every member placed),
// "chromosome_then_id" (the placed ones first, then the others by id), "id" (no positions: by id, natural
// order), "kept" (identify.names = "ids": each member keeps its id).
struct Naming {
  std::string basis;
  size_t placed = 0, unplaced = 0;
};
// Names the members <Prefix><Family>1..n (the family's letters and digits only): placed members by chromosome
// (natural order: Chr2 before Chr10), then start, then id; members without a position after them, by id in
// natural order. With `keep_ids` each member's name is its gene id. Sorts `members` into name order.
Naming name_members(std::vector<Member>& members, const std::string& prefix, const std::string& family, bool keep_ids);
// The members' names by every id the data may use for them (gene, protein, protein without its version),
// for stages that meet the data's ids (expression rows, ortholog tables, collinear anchors).
std::map<std::string, std::string> names_by_id(const std::vector<Member>& members);
// The chromosomes a map is drawn on: the genome's (its names and lengths, from its index) when the
// run has one, else the GFF3's (##sequence-region and region rows, else each sequence's last gene
// end). `name_of` gives the frame's name for a GFF3 sequence name (Chr1/1/chr01 variants resolved
// against the genome); `source` says where the lengths came from: "genome", "sequence-region" or
// "last gene end".
struct ChromosomeFrame {
  std::vector<std::pair<std::string, int64_t>> lengths;
  std::map<std::string, std::string> alias;  // GFF3 name -> the frame's, where they differ
  std::string source;
  std::string name_of(const std::string& seqid) const {
    auto it = alias.find(seqid);
    return it == alias.end() ? seqid : it->second;
  }
};
Result<ChromosomeFrame> chromosome_frame(const StageContext& ctx, const GffModel& gff);

// Redundant gene models among the members: same strand, overlapping, and a
// protein identical to or contained in the other's. Returns each redundant
// gene -> the locus it is collapsed into (the longer protein's gene).
std::map<std::string, std::string> collapse_redundant_models(const std::vector<Member>& members,
                                                             const std::map<std::string, std::string>& protein);

// One data set of yn00's PHYLIP input: the codon alignment of two genes (named `a` and `b`) made by
// laying their protein alignment back onto their CDS (stop codons dropped); nullopt when a CDS does
// not encode its protein.
std::optional<std::string> codon_pair_phylip(const std::string& a, std::string pa, std::string ca, const std::string& b,
                                             std::string pb, std::string cb);
// yn00's control file for `datasets` pairs in `seqfile` (output yn00.out, standard code).
std::string yn00_control(const std::string& seqfile, size_t datasets);
// yn00's output: a value it could not estimate (99, -99, NaN, -0) is NaN.
double yn00_value(const std::string& field);
// dN and dS with their standard errors, from the Yang & Nielsen (2000) table of yn00's output (NaN where yn00
// gave no value).
struct Yn00Pair {
  double dn = NAN, dn_se = NAN, ds = NAN, ds_se = NAN;
};
std::vector<Yn00Pair> parse_yn00(const std::string& out);
// The test of Ka = Ks from yn00's standard errors: z = (dN - dS) / sqrt(SE_dN^2 + SE_dS^2), two-sided p from
// the normal distribution; "purifying" (dN < dS) or "positive" (dN > dS) when p < 0.05, else "neutral"; "" with
// no usable standard error (not tested). `p` is NaN when not tested.
std::string selection_test(const Yn00Pair& v, double* z = nullptr, double* p = nullptr);
// The Ka/Ks stage's summary from pairs.tsv and yn00.out in ctx.work: values
// yn00 could not estimate and saturated Ks (above params.max_ks) are flagged
// and left out of the dating and the selection counts.
Status summarise_kaks(const StageContext& ctx);

// The properties stage's pK scale from its parameters ({"pk_scale": "expasy"|"emboss"}).
PkScale pk_scale(const Json& properties_params);

}  // namespace bioagent::gf
