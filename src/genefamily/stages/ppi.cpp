// The ppi stage (named in seed 004's addendum): interactions among the
// members' Arabidopsis orthologs from the STRING API, through the product's
// HTTP client (cache, offline mode, address guard), drawn as a network. No
// ortholog table, or offline with nothing cached: the stage says why and
// finishes without a network.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/http.h"
#include "bioagent/json_get.h"
#include "bioagent/json_text.h"
#include "figures/svg.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::string network_svg(Lang lang, const std::vector<std::string>& nodes,
                        const std::vector<std::tuple<std::string, std::string, double>>& edges,
                        const std::string& title) {
  const double cx = 300, cy = 290, r = 220, f = 10;
  svg::Doc d(2 * cx, 2 * cy + 60, title);
  std::map<std::string, std::pair<double, double>> at;
  for (size_t i = 0; i < nodes.size(); ++i) {
    double a = 2 * kPi * double(i) / double(std::max<size_t>(1, nodes.size())) - kPi / 2;
    at[nodes[i]] = {cx + r * std::cos(a), cy + r * std::sin(a)};
  }
  for (auto& [a, b, score] : edges)
    if (at.count(a) && at.count(b))
      d.line(at[a].first, at[a].second, at[b].first, at[b].second, "#0072B2", 0.5 + 3 * score,
             "stroke-opacity=\"0.7\"");
  for (auto& n : nodes) {
    d.circle(at[n].first, at[n].second, 6, "#E69F00", "#333333");
    d.text(at[n].first, at[n].second - 10, n, f, "middle", "data-gene=\"1\"");
  }
  d.legend(20, 2 * cy + 6,
           {{BiText{"member (through its Arabidopsis ortholog)", "成员（经其拟南芥直系同源基因）"}.in(lang), "#E69F00",
             "circle"},
            {BiText{"STRING interaction (width: combined score)", "STRING 互作（线宽：综合得分）"}.in(lang), "#0072B2",
             "line"}},
           "network", "", f);
  return d.str();
}

using AgiToGene = std::map<std::string, std::string>;

// The orthologs table's "gene AGI" lines, by AGI without its isoform (AT1G27370.1 -> AT1G27370).
AgiToGene read_orthologs(const std::string& text) {
  AgiToGene agi_to_gene;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string gene, agi;
    if (f >> gene >> agi && agi.size() >= 9) {
      for (char& c : agi) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      agi_to_gene[agi.substr(0, 9)] = gene;  // AT1G27370(.1) -> AT1G27370
    }
  }
  return agi_to_gene;
}

// STRING's network request for the AGIs (Arabidopsis, at the minimum score).
HttpRequest string_request(const StageContext& ctx, const AgiToGene& agi_to_gene) {
  std::string ids;
  for (auto& [agi, g] : agi_to_gene) ids += (ids.empty() ? "" : "%0d") + agi;
  HttpRequest req;
  req.method = "POST";
  req.url = ctx.params["string_url"].get<std::string>() + "/api/json/network";
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  req.body = "identifiers=" + ids +
             "&species=3702&required_score=" + std::to_string(ctx.params["min_score"].get<int>()) +
             "&caller_identity=bioagent";
  req.source = "string";
  return req;
}

// The member gene of one end of a STRING edge, by its id's AGI or its preferred name ("" when none).
std::string edge_gene(const AgiToGene& agi_to_gene, const Json& e, const char* id_key, const char* name_key) {
  std::string sid = json_get(e, id_key, std::string());  // "3702.AT1G27370.1"
  auto dot = sid.find('.');
  std::string agi = dot == std::string::npos ? "" : sid.substr(dot + 1, 9);
  if (auto it = agi_to_gene.find(agi); it != agi_to_gene.end()) return it->second;
  std::string name = json_get(e, name_key, std::string());
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto it = agi_to_gene.find(name.substr(0, 9));
  return it != agi_to_gene.end() ? it->second : "";
}

// STRING's edges between two different members: ppi.tsv and the network figure; the edge count. The table's
// member ids are shown under the members' names.
Result<size_t> write_network(const StageContext& ctx, AgiToGene agi_to_gene, const Json& edges_json) {
  if (auto members = read_members(ctx.input.at("identify"))) {
    const auto name = names_by_id(*members);
    for (auto& [agi, gene] : agi_to_gene)
      if (auto it = name.find(gene); it != name.end()) gene = it->second;
  }
  std::vector<std::tuple<std::string, std::string, double>> edges;
  std::set<std::string> nodes_set;
  std::ostringstream tsv;
  tsv << "gene_a\tgene_b\tagi_a\tagi_b\tscore\n";
  for (auto& e : edges_json) {
    if (!e.is_object()) continue;
    std::string a = edge_gene(agi_to_gene, e, "stringId_A", "preferredName_A"),
                b = edge_gene(agi_to_gene, e, "stringId_B", "preferredName_B");
    if (a.empty() || b.empty() || a == b) continue;
    double score = json_get(e, "score", 0.0);
    edges.emplace_back(a, b, score);
    nodes_set.insert(a);
    nodes_set.insert(b);
    tsv << a << '\t' << b << '\t' << json_get(e, "stringId_A", std::string()) << '\t'
        << json_get(e, "stringId_B", std::string()) << '\t' << score << '\n';
  }
  std::vector<std::string> nodes(nodes_set.begin(), nodes_set.end());
  std::string title =
      figure_title(ctx, {" interactions of Arabidopsis orthologs (STRING)", " 拟南芥直系同源蛋白的互作（STRING）"});
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "ppi.tsv"), tsv.str()));
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "ppi_network.svg"), network_svg(run_lang(ctx), nodes, edges, title)));
  return edges.size();
}

Status interactions(const StageContext& ctx) {
  auto skip = [&](const std::string& why, const char* kind = "offline") {  // kind: the typed reason (stage_reasons)
    return write_text(
        ctx.work / "ppi.json",
        json_text(Json{{"skipped", true}, {"reason", why}, {"reason_kind", kind}, {"reason_subject", "STRING"}}, 2));
  };
  std::string table = ctx.params["orthologs"];
  if (table.empty())
    return skip(
        "no Arabidopsis orthologs were given: set {\"ppi\": {\"orthologs\": TSV}} with member gene and AGI "
        "(e.g. AT1G27370) per line",
        "no_orthologs");
  auto text = read_text(table);
  if (!text) return text.status();
  AgiToGene agi_to_gene = read_orthologs(*text);
  if (agi_to_gene.empty()) return invalid_argument(table + " holds no 'gene AGI' lines");
  const bool offline = ctx.run.value("network", Json::object()).value("offline", false);
  auto http = http_for_run(ctx, "string", std::chrono::hours(24 * 30));
  if (!http) return http.status();
  auto resp = (*http)->fetch(string_request(ctx, agi_to_gene));
  if (!resp) {
    if (resp.status().code() == ErrorCode::kUnavailable && offline)
      return skip("offline, and STRING's answer for these genes is not in the cache: " + resp.status().message());
    return skip("STRING could not be reached: " + resp.status().message(), "unreachable");
  }
  if (resp->status != 200) return skip("STRING answered HTTP " + std::to_string(resp->status), "unreachable");
  Json edges_json = parse_json_bounded(resp->body);
  if (!edges_json.is_array()) return parse_error("STRING's answer is not a JSON list of interactions");
  auto edges = write_network(ctx, agi_to_gene, edges_json);
  if (!edges) return edges.status();
  return write_text(ctx.work / "ppi.json", json_text(Json{{"skipped", false},
                                                          {"orthologs", agi_to_gene.size()},
                                                          {"interactions", *edges},
                                                          {"from_cache", resp->from_cache}},
                                                     2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "ppi", {"Protein interactions (STRING)", "蛋白互作 (STRING)"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "ppi.json");
  if (j.empty() || j.value("skipped", false)) return s;
  s.paragraphs.push_back(
      std::to_string(j.value("interactions", 0)) +
      BiText{" interactions among the members' Arabidopsis orthologs.", " 条互作（拟南芥直系同源基因）。"}.in(r.lang));
  s.figures = {final_base(r.ctx) + "ppi_network.svg"};
  return s;
}

}  // namespace

StageSpec ppi_stage() {
  StageSpec s;
  s.name = "ppi";
  s.label = "protein interaction network";
  s.label_zh = "蛋白互作网络";
  s.description = "Interactions among the members' Arabidopsis orthologs (STRING API, cached; skipped offline)";
  s.after = {"identify"};
  s.revision = 2;  // 2: the members' names, the network's legend
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "orthologs": {"type": "string", "default": "", "format": "path", "description": "TSV: member gene, Arabidopsis AGI"},
      "string_url": {"type": "string", "default": "https://string-db.org"},
      "min_score": {"type": "integer", "minimum": 0, "maximum": 1000, "default": 400}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(interactions)}; };
  s.skip_when = [](const Json&, const Json& params) -> Json {
    if (params.value("orthologs", std::string()).empty()) return {{"kind", "no_orthologs"}, {"subject", ""}};
    return nullptr;
  };
  s.outputs = {"ppi.json"};
  s.parse = summary_file("ppi.json");
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
