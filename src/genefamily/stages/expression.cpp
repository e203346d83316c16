// The expression stage: a user's genes x samples matrix (TPM/FPKM/counts;
// TSV, CSV or xlsx) — or one quantified here from FASTQ reads with salmon
// (index of the transcripts, selective alignment per sample, transcript TPM
// summed per gene through the GFF3) — subset to the members, log2(x + 1), row
// z-scores, rows ordered by average-linkage hierarchical clustering, and a
// heatmap. Without a matrix or reads the stage finishes and says why nothing
// was drawn.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "bioagent/seqio.h"
#include "bioagent/table.h"
#include "genefamily/figures/figures.h"
#include "genefamily/stages/expression_matrix.h"
#include "genefamily/stages/stage_common.h"
#include "pipeline/subprocess.h"

namespace bioagent::gf {
namespace {

// Leaf order of average-linkage clustering on Euclidean distances.
std::vector<size_t> cluster_order(const std::vector<std::vector<double>>& rows) {
  size_t n = rows.size();
  auto dist = [&](size_t a, size_t b) {
    double s = 0;
    for (size_t k = 0; k < rows[a].size(); ++k) s += (rows[a][k] - rows[b][k]) * (rows[a][k] - rows[b][k]);
    return std::sqrt(s);
  };
  std::vector<std::vector<size_t>> clusters;
  for (size_t i = 0; i < n; ++i) clusters.push_back({i});
  while (clusters.size() > 1) {
    double best = 1e300;
    size_t bi = 0, bj = 1;
    for (size_t i = 0; i < clusters.size(); ++i)
      for (size_t j = i + 1; j < clusters.size(); ++j) {
        double s = 0;
        for (size_t a : clusters[i])
          for (size_t b : clusters[j]) s += dist(a, b);
        s /= double(clusters[i].size() * clusters[j].size());
        if (s < best) {
          best = s;
          bi = i;
          bj = j;
        }
      }
    clusters[bi].insert(clusters[bi].end(), clusters[bj].begin(), clusters[bj].end());
    clusters.erase(clusters.begin() + long(bj));
  }
  return clusters.empty() ? std::vector<size_t>{} : clusters[0];
}

// Sample names become folder names: letters, digits, '.', '_' and '-' only.
bool safe_sample(const std::string& s) {
  if (s.empty() || s.size() > 100 || s[0] == '.') return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

// salmon's quant.sf of every sample -> one genes x samples TPM table (transcripts summed per gene).
Status salmon_matrix(const StageContext& ctx) {
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  std::vector<std::string> samples;
  std::map<std::string, std::map<std::string, double>> tpm;  // gene -> sample -> TPM
  for (auto& r : ctx.params["reads"]) {
    std::string sample = r["sample"];
    samples.push_back(sample);
    std::ifstream in(ctx.work / "quant" / sample / "quant.sf");
    if (!in) return Status(ErrorCode::kToolFailed, "salmon wrote no quant.sf for sample " + sample);
    std::string line;
    std::getline(in, line);  // Name Length EffectiveLength TPM NumReads
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string name;
      double len, eff, value;
      if (!(f >> name >> len >> eff >> value)) continue;
      std::string t = gff->transcript_of(name);
      std::string gene = t.empty() ? name : gff->transcripts.at(t).gene_id;
      tpm[gene][sample] += value;
    }
  }
  std::ostringstream out;
  out << "gene";
  for (auto& s : samples) out << '\t' << s;
  out << '\n';
  for (auto& [gene, by] : tpm) {
    out << gene;
    for (auto& s : samples) out << '\t' << (by.count(s) ? by.at(s) : 0.0);
    out << '\n';
  }
  return write_text(ctx.work / final_name(ctx, "salmon_tpm.tsv"), out.str());
}

// Raw counts (every value a whole number, or params.units "counts") become
// TPM when the CDS give a length for nearly every row, CPM otherwise; TPM or
// FPKM tables are used as given. Returns what was done, for the summary (in English and Chinese).
std::pair<std::string, std::string> normalise(const StageContext& ctx, const std::vector<std::string>& ids,
                                              std::vector<std::vector<double>>& values) {
  if (!ctx.params.value("reads", Json::array()).empty()) return {"TPM (salmon)", "TPM（salmon 定量）"};
  const std::string units = ctx.params.value("units", std::string("auto"));
  bool counts = units == "counts";
  if (units == "auto") {
    counts = !values.empty();
    for (auto& row : values)
      for (double x : row) counts &= x == std::floor(x);
  }
  if (!counts)
    return units == "auto"
               ? std::pair<std::string, std::string>{"as given (TPM or FPKM assumed: not whole numbers)",
                                                     "按原值使用（非整数，视为 TPM 或 FPKM）"}
               : std::pair<std::string, std::string>{"as given (" + units + ")", "按原值使用（" + units + "）"};
  std::map<std::string, double> length_kb;
  if (!ctx.data("cds").empty())
    if (auto cds = read_fasta(ctx.data("cds")))
      for (auto& r : *cds) {
        length_kb[r.id] = double(r.seq.size()) / 1000;
        length_kb.emplace(r.id.substr(0, r.id.rfind('.')), double(r.seq.size()) / 1000);
      }
  size_t with_length = 0;
  for (auto& id : ids) with_length += length_kb.count(id) && length_kb[id] > 0;
  const bool tpm = !ids.empty() && double(with_length) >= 0.9 * double(ids.size());
  const size_t n_samples = values.empty() ? 0 : values[0].size();
  for (size_t c = 0; c < n_samples; ++c) {
    double total = 0;
    for (size_t r = 0; r < ids.size(); ++r)
      total += tpm ? (length_kb.count(ids[r]) ? values[r][c] / length_kb[ids[r]] : 0) : values[r][c];
    for (size_t r = 0; r < ids.size(); ++r) {
      double x = tpm ? (length_kb.count(ids[r]) ? values[r][c] / length_kb[ids[r]] : 0) : values[r][c];
      values[r][c] = total > 0 ? x / total * 1e6 : 0;
    }
  }
  if (tpm) return {"TPM from raw counts (CDS lengths)", "由原始计数换算的 TPM（按 CDS 长度）"};
  return {"CPM from raw counts (no CDS length for most rows)", "由原始计数换算的 CPM（多数行没有 CDS 长度）"};
}

}  // namespace

Result<ExpressionMatrix> read_expression_matrix(const fs::path& path) {
  auto sheet = read_table(path);
  if (!sheet) return sheet.status();
  if (sheet->rows.size() < 2 || sheet->n_cols < 2)
    return invalid_argument(path.filename().string() +
                            " needs a header row and a gene column followed by sample columns");
  ExpressionMatrix m;
  for (size_t c = 1; c < sheet->n_cols; ++c) m.samples.push_back(valid_utf8(sheet->rows[0][c].to_text()));
  for (size_t r = 1; r < sheet->rows.size(); ++r) {
    std::vector<double> v;
    for (size_t c = 1; c < sheet->n_cols; ++c) {
      const Cell& cell = sheet->rows[r][c];
      const double x = cell.kind == Cell::Kind::kNumber ? cell.number : std::atof(cell.to_text().c_str());
      v.push_back(std::isfinite(x) ? std::max(0.0, x) : 0.0);  // "nan", "inf" and negatives are no expression
    }
    m.ids.push_back(valid_utf8(sheet->rows[r][0].to_text()));
    m.values.push_back(std::move(v));
  }
  return m;
}

namespace {

// The members' rows, log2(x+1), each member once (its first row), under its name (a row may name the gene,
// the protein, the protein without its version or the member's name).
void member_rows(const std::vector<Member>& members, const std::vector<std::string>& ids,
                 const std::vector<std::vector<double>>& values, std::vector<std::string>& genes,
                 std::vector<std::vector<double>>& raw) {
  const auto alias = names_by_id(members);
  for (size_t r = 0; r < ids.size(); ++r) {
    auto it = alias.find(ids[r]);
    if (it == alias.end() || std::find(genes.begin(), genes.end(), it->second) != genes.end()) continue;
    std::vector<double> v;
    for (double x : values[r]) v.push_back(std::log2(x + 1));
    genes.push_back(it->second);
    raw.push_back(v);
  }
}

std::vector<std::vector<double>> row_z_scores(std::vector<std::vector<double>> z) {
  for (auto& row : z) {
    double mean = 0, sd = 0;
    for (double x : row) mean += x / double(row.size());
    for (double x : row) sd += (x - mean) * (x - mean) / double(std::max<size_t>(1, row.size() - 1));
    sd = std::sqrt(sd);
    for (double& x : row) x = sd > 0 ? (x - mean) / sd : 0;
  }
  return z;
}

// expression_log2.tsv and the heatmap of row z-scores, rows in clustered order.
Status write_heatmap(const StageContext& ctx, const std::vector<std::string>& samples,
                     const std::vector<std::string>& genes, const std::vector<std::vector<double>>& raw) {
  std::vector<std::vector<double>> z = row_z_scores(raw);
  auto order = cluster_order(z);
  std::vector<std::string> og;
  std::vector<std::vector<double>> oz;
  std::ostringstream tsv;
  tsv << "gene";
  for (auto& s : samples) tsv << '\t' << s;
  tsv << '\n';
  for (size_t i : order) {
    og.push_back(genes[i]);
    oz.push_back(z[i]);
    tsv << genes[i];
    for (double x : raw[i]) tsv << '\t' << x;
    tsv << '\n';
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "expression_log2.tsv"), tsv.str()));
  std::string title = figure_title(ctx, {" expression (log2(x+1), row z-scores)", " 表达量（log2(x+1)，按行 z 分数）"});
  return write_text(ctx.work / final_name(ctx, "expression_heatmap.svg"),
                    figures::expression_heatmap(run_lang(ctx), og, samples, oz, title));
}

// The matrix: the given path (a command line's), else the data folder's <Prefix>.expression.tsv|csv|xlsx.
std::string matrix_path(const StageContext& ctx) {
  std::string path = ctx.params.value("matrix", std::string());
  return path.empty() ? ctx.data("expression").string() : path;
}

Status heatmap(const StageContext& ctx) {
  std::string path = matrix_path(ctx);
  if (path.empty() && !ctx.params["reads"].empty()) path = (ctx.work / final_name(ctx, "salmon_tpm.tsv")).string();
  if (path.empty())
    return write_text(
        ctx.work / "expression.json",
        json_text(Json{{"skipped", true},
                       {"reason",
                        "no expression matrix was given: add <Prefix>.expression.tsv (or .csv, .xlsx; genes x "
                        "samples, TPM, FPKM or counts) to the data folder, or on the command line set "
                        "{\"expression\": {\"matrix\": FILE}} or {\"reads\": [{\"sample\", \"r1\", \"r2\"}]} "
                        "to quantify FASTQ reads with salmon"}},
                  2));
  auto matrix = read_expression_matrix(path);
  if (!matrix) return matrix.status();
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  std::vector<std::string>& samples = matrix->samples;
  std::vector<std::string>& ids = matrix->ids;
  std::vector<std::vector<double>>& values = matrix->values;
  const auto [normalisation, normalisation_zh] = normalise(ctx, ids, values);
  std::vector<std::string> genes;
  std::vector<std::vector<double>> raw;
  member_rows(*members, ids, values, genes, raw);
  BIOAGENT_RETURN_IF_ERROR(write_heatmap(ctx, samples, genes, raw));
  return write_text(ctx.work / "expression.json",
                    json_text(Json{{"skipped", false},
                                   {"matrix", fs::path(path).filename().string()},
                                   {"quantified_with", ctx.params["reads"].empty() ? "" : "salmon"},
                                   {"samples", samples.size()},
                                   {"normalisation", normalisation},
                                   {"normalisation_zh", normalisation_zh},
                                   {"members_with_expression", genes.size()},
                                   {"members", members->size()}},
                              2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "expression", {"Expression", "表达模式"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "expression.json");
  if (j.empty() || j.value("skipped", false)) return s;
  s.paragraphs.push_back(std::to_string(j.value("members_with_expression", 0)) +
                         BiText{" members with expression values across ", " 个成员有表达数据，样本 "}.in(r.lang) +
                         std::to_string(j.value("samples", 0)) +
                         BiText{" samples; values: ", " 个；数值："}.in(r.lang) +
                         BiText{j.value("normalisation", std::string("as given")),
                                j.value("normalisation_zh", std::string("见 expression.json"))}
                             .in(r.lang) +
                         BiText{".", "。"}.in(r.lang));
  s.figures = {final_base(r.ctx) + "expression_heatmap.svg"};
  return s;
}

}  // namespace

StageSpec expression_stage() {
  StageSpec s;
  s.name = "expression";
  s.label = "expression patterns";
  s.label_zh = "表达模式分析";
  s.description = "Members' expression from a user matrix: log2, z-scores, clustering, heatmap";
  s.after = {"identify"};
  s.revision = 5;  // 2: raw counts normalised (TPM or CPM), said in the summary; 3: the heatmap fits its title;
                   // 4: the normalisation said in Chinese too; 5: the members' names, the matrix as a data file
  s.data_files = {"gff3", "cds", "expression"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "matrix": {"type": "string", "default": "", "format": "path", "description": "genes x samples table (TSV, CSV or xlsx) on this machine, for the command line; clients give <Prefix>.expression.tsv as a data file"},
      "reads": {"type": "array", "default": [], "maxItems": 500, "description": "FASTQ per sample, quantified with salmon",
                "items": {"type": "object", "properties": {"sample": {"type": "string"}, "r1": {"type": "string", "format": "path"},
                          "r2": {"type": "string", "format": "path"}}, "required": ["sample", "r1"], "additionalProperties": false}},
      "transcripts": {"type": "string", "default": "", "format": "path", "description": "transcript FASTA for salmon (default: the CDS)"},
      "units": {"type": "string", "enum": ["auto", "counts", "tpm", "fpkm"], "default": "auto", "description": "auto: whole numbers are raw counts (normalised to TPM or CPM)"},
      "kmer": {"type": "integer", "minimum": 15, "maximum": 31, "default": 31, "description": "salmon index k"}
    }, "additionalProperties": false})JS");
  s.skip_when = [](const Json& run, const Json& params) -> Json {
    if (params.value("matrix", std::string()).empty() && params.value("reads", Json::array()).empty() &&
        run.value("files", Json::object()).value("expression", std::string()).empty())
      return {{"kind", "no_expression_data"}, {"subject", ""}};
    return nullptr;
  };
  s.check = [](const StageContext& ctx) -> Status {
    if (!ctx.params["reads"].empty() && !matrix_path(ctx).empty())
      return invalid_argument("give either a matrix or reads, not both");
    std::error_code ec;
    // salmon is only needed with reads, so it is not among the stage's programs.
    if (!ctx.params["reads"].empty() && which("salmon").empty())
      return not_found("quantifying reads needs salmon (Debian package salmon; scripts/setup.sh installs it)");
    for (auto& r : ctx.params["reads"]) {
      if (!safe_sample(r["sample"]))
        return invalid_argument("sample name '" + r["sample"].get<std::string>() +
                                "' must be letters, digits, '.', '_' or '-'");
      for (const char* k : {"r1", "r2"})
        if (r.contains(k) && !fs::is_regular_file(r[k].get<std::string>(), ec))
          return not_found("reads of sample " + r["sample"].get<std::string>() +
                           " not found: " + r[k].get<std::string>());
    }
    return Status::ok();
  };
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    std::vector<Step> steps;
    if (!ctx.params["reads"].empty()) {
      std::string tx = ctx.params["transcripts"];
      if (tx.empty()) tx = ctx.data("cds").string();
      std::string cpus = std::to_string(ctx.cpus);
      steps.push_back(Command{{"salmon", "index", "-t", tx, "-i", "salmon_index", "-k",
                               std::to_string(ctx.params["kmer"].get<int>()), "-p", cpus},
                              "salmon_index.log",
                              ""});
      for (auto& r : ctx.params["reads"]) {
        std::vector<std::string> argv = {
            "salmon", "quant", "-i", "salmon_index", "-l",
            "A",      "-p",    cpus, "-o",           "quant/" + r["sample"].get<std::string>()};
        if (r.contains("r2"))
          argv.insert(argv.end(), {"-1", r["r1"].get<std::string>(), "-2", r["r2"].get<std::string>()});
        else
          argv.insert(argv.end(), {"-r", r["r1"].get<std::string>()});
        steps.push_back(Command{argv, "", ""});
      }
      steps.push_back(StageFn(salmon_matrix));
    }
    steps.push_back(StageFn(heatmap));
    return steps;
  };
  s.outputs = {"expression.json"};
  s.parse = summary_file("expression.json");
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
