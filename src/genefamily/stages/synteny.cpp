// The synteny stage: all-against-all DIAMOND of the proteome (longest isoform
// per gene), collinear blocks on gene order (collinearity.h), the members'
// duplicate classes and their links, in MCScanX's .collinearity layout and a
// circular figure; with comparative species folders, the proteome against
// theirs, blocks between the species and each member's syntenic orthologs.
#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/digest.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "genefamily/algo/collinearity.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

// Genome-wide counts of each duplicate class (every gene of the gene table).
Json class_counts(const CollinearityResult& r) {
  Json counts = {{"singleton", 0}, {"dispersed", 0}, {"proximal", 0}, {"tandem", 0}, {"segmental", 0}};
  for (auto& [gene, cls] : r.duplicate_class) counts[cls] = counts[cls].get<int>() + 1;
  return counts;
}

namespace {

// The longest protein of each gene with a GFF3 record (proteins placed by the
// gene map, as the check stage's), and its MCScanX gene line ("chr gene start
// end"; chromosomes prefixed with `chr_prefix`). Fewer than `min_genes` placed
// genes is kUnsupported with the count.
Status longest_proteome(const fs::path& gff_path, const fs::path& pep_path, const std::string& chr_prefix,
                        std::vector<FastaRecord>& proteome, std::string& table, size_t min_genes = 10) {
  auto gff = read_gff3(gff_path);
  auto pep = read_fasta(pep_path);
  if (!gff || !pep) return gff ? pep.status() : gff.status();
  const GeneMap map = build_gene_map(*gff, *pep, {}, {});
  std::map<std::string, size_t> longest;  // placed gene -> the row of its longest protein
  for (size_t i = 0; i < map.rows.size(); ++i) {
    const GeneMapRow& r = map.rows[i];
    if (!r.locus.placed()) continue;
    auto [it, fresh] = longest.emplace(r.locus.gene, i);
    if (!fresh && (*pep)[i].seq.size() > (*pep)[it->second].seq.size()) it->second = i;
  }
  if (longest.size() < min_genes)
    return Status(ErrorCode::kUnsupported, "the GFF3 places " + std::to_string(longest.size()) + " genes of the " +
                                               std::to_string(pep->size()) + " proteins (" +
                                               gff_path.filename().string() + "); collinear blocks need at least " +
                                               std::to_string(min_genes));
  std::ostringstream out;
  for (auto& [gene, i] : longest) {
    const ProteinLocus& l = map.rows[i].locus;
    proteome.push_back({gene, (*pep)[i].id, (*pep)[i].seq});  // the description names the protein chosen
    out << chr_prefix << l.seqid << '\t' << gene << '\t' << l.start << '\t' << l.end << '\n';
  }
  table += out.str();
  return Status::ok();
}

// The all-against-all search's entry in the run's persistent cache folder (run.network.cache_dir):
// homology/<SHA-256 of the proteome, DIAMOND's version and the search options>.m8, so a second family
// or run on the same proteome reuses it; empty when the run has no cache folder.
fs::path homology_cache_entry(const StageContext& ctx, const std::vector<FastaRecord>& proteome,
                              const std::string& options) {
  const std::string cache = ctx.run.value("network", Json::object()).value("cache_dir", std::string());
  if (cache.empty()) return {};
  std::string text;
  for (auto& r : proteome) text += ">" + r.id + "\n" + r.seq + "\n";
  return fs::path(cache) / "homology" / (sha256_hex(text + "\0" + program_version("diamond") + "\0" + options) + ".m8");
}

// all.blast from the cache entry (homology.json says it was reused).
Status reuse_homology(const StageContext& ctx, const fs::path& entry) {
  std::error_code ec;
  fs::copy_file(entry, ctx.work / "all.blast", fs::copy_options::overwrite_existing, ec);
  if (ec)
    return Status(ErrorCode::kInternal,
                  "cannot copy the cached all-against-all search " + entry.string() + ": " + ec.message());
  return write_text(ctx.work / "homology.json",
                    json_text(Json{{"reused", true}, {"cache_entry", entry.filename().string()}}, 2));
}

// Keeps all.blast in the cache (written aside, then renamed, so a reader never sees half a file); a
// cache that cannot be written is recorded, not a failure.
Status store_homology(const StageContext& ctx, const fs::path& entry) {
  Json j = {{"reused", false}};
  std::error_code ec;
  if (!entry.empty()) {
    fs::create_directories(entry.parent_path(), ec);
    const fs::path tmp = entry.string() + ".tmp" + std::to_string(::getpid());
    if (!ec) fs::copy_file(ctx.work / "all.blast", tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, entry, ec);
    if (ec)
      fs::remove(tmp, ec), j["not_cached"] = "cannot write the cache folder: " + ec.message();
    else
      j["cache_entry"] = entry.filename().string();
  } else {
    j["not_cached"] = "the run has no cache folder";
  }
  return write_text(ctx.work / "homology.json", json_text(j, 2));
}

// The comparative species' folders: those the run service resolved from synteny.comparative_species (named
// species of the user's data folders; run["comparative"]: prefix -> the run's view of its folder), then the
// folders synteny.comparative names (a command line's own paths). {prefix (may be empty), folder}.
std::vector<std::pair<std::string, std::string>> comparative_folders(const StageContext& ctx) {
  std::vector<std::pair<std::string, std::string>> out;
  const Json resolved = ctx.run.value("comparative", Json::object());
  for (auto& [prefix, folder] : resolved.items())
    if (folder.is_string()) out.push_back({prefix, folder.get<std::string>()});
  for (auto& dir : ctx.params.value("comparative", Json::array()))
    if (dir.is_string()) out.push_back({"", dir.get<std::string>()});
  return out;
}

Status prepare(const StageContext& ctx) {
  std::vector<FastaRecord> proteome;
  std::string table;
  BIOAGENT_RETURN_IF_ERROR(longest_proteome(ctx.data("gff3"), ctx.data("pep"), "", proteome, table,
                                            size_t(2 * ctx.params["min_anchors"].get<int>())));
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "proteome.fasta", proteome));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "genes.gff", table));
  if (comparative_folders(ctx).empty()) return Status::ok();
  // Comparative species: their proteomes for the cross search, and one gene
  // table of all species with chromosomes named <Prefix>_<seqid>.
  std::set<std::string> ids;
  for (auto& r : proteome) ids.insert(r.id);
  std::vector<FastaRecord> others;
  std::string all = table;
  Json species = Json::array();
  for (auto& [given_prefix, dir] : comparative_folders(ctx)) {
    auto check = check_species_data(dir, given_prefix, "", false);
    if (!check) return check.status();
    const Json& files = (*check)["files"];
    if (!files.contains("gff3") || !files.contains("pep"))
      return not_found("the comparative species " +
                       (given_prefix.empty() ? fs::path(dir).filename().string() : given_prefix) +
                       " needs <Prefix>.gff3 and <Prefix>.pep.fasta");
    std::string prefix = (*check)["prefix"];
    size_t from = others.size();
    BIOAGENT_RETURN_IF_ERROR(
        longest_proteome(files["gff3"].get<std::string>(), files["pep"].get<std::string>(), prefix + "_", others, all));
    for (size_t i = from; i < others.size(); ++i)
      if (!ids.insert(others[i].id).second)
        return invalid_argument("gene id " + others[i].id + " of " + prefix + " is also used by another species");
    species.push_back({{"prefix", prefix}, {"genes", others.size() - from}});
  }
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "others.fasta", others));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "all_species.gff", all));
  return write_text(ctx.work / "species.json", json_text(species, 2));
}

// The result with the members' anchors under their names (the final files name each member once; the other
// genes keep their ids).
CollinearityResult with_member_names(CollinearityResult r, const std::map<std::string, std::string>& name) {
  for (auto& b : r.blocks)
    for (auto& a : b.anchors) {
      if (auto it = name.find(a.a); it != name.end()) a.a = it->second;
      if (auto it = name.find(a.b); it != name.end()) a.b = it->second;
    }
  return r;
}

// The dual-synteny plot of the run's species (top) against one comparative
// species (bottom): every anchor pair of their blocks, members' pairs on top
// in colour. Chromosome lengths are the last gene's end (the comparative
// folder need not hold a genome).
Status draw_dual_synteny(const StageContext& ctx, const std::vector<GenePos>& genes, const std::vector<Block>& blocks,
                         const std::function<std::string(const std::string&)>& species_of,
                         const std::map<std::string, std::string>& members, const std::string& other,
                         const std::string& file) {
  std::map<std::string, const GenePos*> by_id;
  std::map<std::string, int64_t> top_len, bottom_len;
  const std::string strip = other + "_";
  for (auto& g : genes) {
    by_id[g.id] = &g;
    const std::string sp = species_of(g.chr);
    if (sp.empty()) top_len[g.chr] = std::max(top_len[g.chr], g.end);
    if (sp == other) bottom_len[g.chr.substr(strip.size())] = std::max(bottom_len[g.chr.substr(strip.size())], g.end);
  }
  figures::Genome top{ctx.run.value("species", std::string()), {top_len.begin(), top_len.end()}};
  figures::Genome bottom{other, {bottom_len.begin(), bottom_len.end()}};
  std::vector<figures::SyntenyPair> pairs;
  for (auto& b : blocks) {
    std::string sa = species_of(b.chr_a), sb = species_of(b.chr_b);
    if (!((sa.empty() && sb == other) || (sb.empty() && sa == other))) continue;
    for (auto& a : b.anchors) {
      const std::string& mine = sa.empty() ? a.a : a.b;
      const std::string& theirs = sa.empty() ? a.b : a.a;
      if (!by_id.count(mine) || !by_id.count(theirs)) continue;
      const GenePos &m = *by_id[mine], &t = *by_id[theirs];
      auto member = members.find(mine);
      pairs.push_back({m.chr, m.start, t.chr.substr(strip.size()), t.start, member != members.end(),
                       member != members.end() ? member->second : ""});
    }
  }
  const std::string family = ctx.run.value("family", std::string());
  const std::string title =
      BiText{top.species + " and " + other + ": collinear genes, " + family + " members in colour",
             top.species + " 与 " + other + " 的共线性基因（" + family + " 成员以颜色标出）"}
          .in(run_lang(ctx));
  return write_text(ctx.work / final_name(ctx, file), figures::dual_synteny(run_lang(ctx), top, bottom, pairs, title));
}

// Blocks between the species and each member's syntenic orthologs.
Result<Json> interspecies(const StageContext& ctx, const std::map<std::string, std::string>& members,
                          const CollinearityParams& p) {
  auto gt = read_text(ctx.work / "all_species.gff");
  auto bt = read_text(ctx.work / "cross.blast");
  auto sp = read_text(ctx.work / "species.json");
  if (!gt || !bt || !sp) return !gt ? gt.status() : !bt ? bt.status() : sp.status();
  auto genes = parse_mcscanx_gff(*gt);
  auto hits = parse_blast_m8(*bt);
  if (!genes || !hits) return genes ? hits.status() : genes.status();
  auto r = find_collinearity(*genes, *hits, p);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "interspecies.collinearity"),
                                      collinearity_text(with_member_names(r, members), p)));
  // A block's species: the prefix of its comparative chromosome.
  Json species = Json::parse(*sp);
  auto species_of = [&](const std::string& chr) -> std::string {
    for (auto& s : species)
      if (chr.rfind(s["prefix"].get<std::string>() + "_", 0) == 0) return s["prefix"];
    return "";
  };
  Json out = Json::object();
  for (auto& s : species) out[s["prefix"].get<std::string>()] = {{"blocks", 0}, {"members_with_syntenic_ortholog", 0}};
  std::map<std::string, std::map<std::string, std::set<std::string>>> orthologs;  // member -> species -> genes
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const Block& b = r.blocks[i];
    std::string sa = species_of(b.chr_a), sb = species_of(b.chr_b);
    if (sa == sb || (!sa.empty() && !sb.empty())) continue;  // only target-versus-comparative blocks
    std::string other = sa.empty() ? sb : sa;
    out[other]["blocks"] = out[other]["blocks"].get<int>() + 1;
    for (auto& a : b.anchors) {
      std::string mine = sa.empty() ? a.a : a.b, theirs = sa.empty() ? a.b : a.a;
      if (members.count(mine)) orthologs[mine][other].insert(theirs);
    }
  }
  std::ostringstream tsv;
  tsv << "gene\tspecies\tsyntenic_orthologs\n";
  for (auto& [gene, by] : orthologs)
    for (auto& [prefix, set] : by) {
      std::string list;
      for (auto& g : set) list += (list.empty() ? "" : ",") + g;
      tsv << members.at(gene) << '\t' << prefix << '\t' << list << '\n';
      out[prefix]["members_with_syntenic_ortholog"] = out[prefix]["members_with_syntenic_ortholog"].get<int>() + 1;
    }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "syntenic_orthologs.tsv"), tsv.str()));
  for (auto& s : species) {
    const std::string prefix = s["prefix"], file = "dual_synteny_" + prefix + ".svg";
    BIOAGENT_RETURN_IF_ERROR(draw_dual_synteny(ctx, *genes, r.blocks, species_of, members, prefix, file));
    out[prefix]["figure"] = file;
  }
  return out;
}

// The genome-wide tables later stages read: every anchor pair (block, gene_a, gene_b) and every
// gene's duplicate class (MCScanX's classifier).
Status write_genome_duplications(const StageContext& ctx, const CollinearityResult& r) {
  std::string anchors = "block\tgene_a\tgene_b\n", classes = "gene\tclass\n";
  for (size_t i = 0; i < r.blocks.size(); ++i)
    for (auto& a : r.blocks[i].anchors) anchors += std::to_string(i) + '\t' + a.a + '\t' + a.b + '\n';
  for (auto& [gene, cls] : r.duplicate_class) classes += gene + '\t' + cls + '\n';
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "anchors.tsv", anchors));
  return write_text(ctx.work / "duplicate_classes.tsv", classes);
}

// Each collinear block of the genome as the span of its anchors on either side, on the frame's
// chromosome names (the circle's).
std::vector<figures::BlockSpan> block_spans(const ChromosomeFrame& frame, const std::vector<GenePos>& genes,
                                            const CollinearityResult& r) {
  std::map<std::string, const GenePos*> where;
  for (auto& g : genes) where[g.id] = &g;
  std::vector<figures::BlockSpan> out;
  for (auto& b : r.blocks) {
    figures::BlockSpan span;
    bool first = true;
    for (auto& a : b.anchors) {
      auto ga = where.find(a.a), gb = where.find(a.b);
      if (ga == where.end() || gb == where.end()) continue;
      if (first) {
        span = {frame.name_of(ga->second->chr), ga->second->start, ga->second->end,
                frame.name_of(gb->second->chr), gb->second->start, gb->second->end};
        first = false;
      }
      span.start_a = std::min(span.start_a, ga->second->start), span.end_a = std::max(span.end_a, ga->second->end);
      span.start_b = std::min(span.start_b, gb->second->start), span.end_b = std::max(span.end_b, gb->second->end);
    }
    if (!first) out.push_back(span);
  }
  return out;
}

// The members' links (collinear anchor pairs; adjacent pairs with a hit: tandem) under their names.
std::vector<figures::Link> member_links(const CollinearityResult& r, const std::vector<GenePos>& genes,
                                        const std::vector<HomologHit>& hits,
                                        const std::map<std::string, std::string>& name) {
  std::vector<figures::Link> links;
  for (auto& b : r.blocks)
    for (auto& a : b.anchors)
      if (name.count(a.a) && name.count(a.b)) links.push_back({name.at(a.a), name.at(a.b), "segmental"});
  std::map<std::string, std::pair<std::string, int>> rank;
  std::map<std::string, std::vector<std::pair<int64_t, std::string>>> by_chr;
  for (auto& g : genes) by_chr[g.chr].push_back({g.start, g.id});
  for (auto& [c, v] : by_chr) {
    std::sort(v.begin(), v.end());
    for (size_t i = 0; i < v.size(); ++i) rank[v[i].second] = {c, int(i)};
  }
  for (auto& h : hits)
    if (h.a < h.b && name.count(h.a) && name.count(h.b) && rank[h.a].first == rank[h.b].first &&
        std::abs(rank[h.a].second - rank[h.b].second) == 1)
      links.push_back({name.at(h.a), name.at(h.b), "tandem"});
  return links;
}

// The circle: the genome's chromosomes, every gene for the density track, the members by name with their
// duplicate classes and links, the genome's blocks.
figures::Circos circle_of(const ChromosomeFrame& frame, const std::vector<GenePos>& genes, const CollinearityResult& r,
                          const std::vector<Member>& members, std::vector<figures::Link> links) {
  auto on_genome = [&](const std::string& chr) { return frame.name_of(chr); };
  figures::Circos c;
  c.chromosomes = frame.lengths;
  for (auto& g : genes) c.gene_starts[on_genome(g.chr)].push_back(g.start);
  for (auto& m : members) {
    if (m.seqid.empty()) continue;  // unplaced members are left out
    c.members.push_back({m.name, on_genome(m.seqid), m.start, -1});
    c.member_class[m.name] = r.duplicate_class.count(m.gene) ? r.duplicate_class.at(m.gene) : "singleton";
  }
  c.links = std::move(links);
  c.blocks = block_spans(frame, genes, r);
  return c;
}

// MCScanX's parameters as this stage's parameters say.
CollinearityParams collinearity_params(const Json& params) {
  CollinearityParams p;
  p.match_size = params["min_anchors"];
  p.max_gaps = params["max_gaps"];
  p.match_score = params["match_score"];
  p.gap_penalty = params["gap_penalty"];
  p.evalue = params["block_evalue"];
  p.overlap_window = params["overlap_window"];
  p.proximal_distance = params["proximal_distance"];
  return p;
}

Status blocks(const StageContext& ctx) {
  auto gt = read_text(ctx.work / "genes.gff");
  auto bt = read_text(ctx.work / "all.blast");
  if (!gt || !bt) return gt ? bt.status() : gt.status();
  auto genes = parse_mcscanx_gff(*gt);
  auto hits = parse_blast_m8(*bt);
  if (!genes || !hits) return genes ? hits.status() : genes.status();
  const CollinearityParams p = collinearity_params(ctx.params);
  auto r = find_collinearity(*genes, *hits, p);
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  std::map<std::string, std::string> name;  // the genome's gene id -> the member's name
  for (auto& m : *members) name[m.gene] = m.name;
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "collinearity"), collinearity_text(with_member_names(r, name), p)));
  BIOAGENT_RETURN_IF_ERROR(write_genome_duplications(ctx, r));
  const auto links = member_links(r, *genes, *hits, name);
  std::map<std::string, std::vector<std::string>> partners;
  for (auto& l : links)
    if (l.kind == "segmental") partners[l.a].push_back(l.b), partners[l.b].push_back(l.a);
  std::ostringstream tsv;
  tsv << "gene\tduplication\tblock_partners\n";
  std::map<std::string, int> classes;
  for (auto& m : *members) {
    std::string cls = r.duplicate_class.count(m.gene) ? r.duplicate_class[m.gene] : "singleton";
    ++classes[cls];
    std::string ps;
    for (auto& x : partners[m.name]) ps += (ps.empty() ? "" : ",") + x;
    tsv << m.name << '\t' << cls << '\t' << ps << '\n';
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "duplication.tsv"), tsv.str()));
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto frame = chromosome_frame(ctx, *gff);  // the genome's chromosomes, else the GFF3's lengths
  if (!frame) return frame.status();
  const std::string title = figure_title(ctx, {" duplicated members", " 重复成员"});
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "synteny_circle.svg"),
                 figures::synteny_circle(run_lang(ctx), circle_of(*frame, *genes, r, *members, links), title)));
  size_t member_blocks = 0, segmental_links = 0, tandem_links = 0;
  for (auto& b : r.blocks)
    if (std::any_of(b.anchors.begin(), b.anchors.end(),
                    [&](const Anchor& a) { return name.count(a.a) || name.count(a.b); }))
      ++member_blocks;
  for (auto& l : links) ++(l.kind == "tandem" ? tandem_links : segmental_links);
  Json summary = {{"homology_search", read_json_or(ctx.work / "homology.json")},
                  {"blocks", r.blocks.size()},
                  {"collinear_genes", r.collinear_genes},
                  {"genes", r.genes},
                  {"genome_duplication", class_counts(r)},
                  {"blocks_with_members", member_blocks},
                  {"members", members->size()},
                  {"member_duplication", classes},
                  {"member_links", links.size()},
                  {"segmental_pairs", segmental_links},
                  {"tandem_pairs", tandem_links},
                  {"chromosome_lengths", frame->source}};
  if (!comparative_folders(ctx).empty()) {
    auto inter = interspecies(ctx, name, p);
    if (!inter) return inter.status();
    summary["interspecies"] = *inter;
  }
  return write_text(ctx.work / "synteny.json", json_text(summary, 2));
}

// A duplicate class (MCScanX's) in the report's language.
std::string class_label(const std::string& key, Lang lang) {
  static const std::map<std::string, BiText> kLabels = {{"singleton", {"singleton", "单拷贝"}},
                                                        {"dispersed", {"dispersed", "分散复制"}},
                                                        {"proximal", {"proximal", "近端复制"}},
                                                        {"tandem", {"tandem", "串联重复"}},
                                                        {"segmental", {"segmental/WGD", "片段/全基因组复制"}}};
  auto it = kLabels.find(key);
  return it == kLabels.end() ? key : it->second.in(lang);
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "synteny", {"Synteny", "共线性分析"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "synteny.json");
  if (j.empty() || j.value("skipped", false)) return s;
  std::string classes;
  const Json cls = j.value("member_duplication", Json::object());
  for (const char* key : {"segmental", "tandem", "proximal", "dispersed", "singleton"})
    if (cls.contains(key))
      classes +=
          (classes.empty() ? "" : BiText{", ", "，"}.in(r.lang)) + class_label(key, r.lang) + " " + json_text(cls[key]);
  const std::string blocks = std::to_string(j.value("blocks", 0)), genes = std::to_string(j.value("genes", 0)),
                    with = std::to_string(j.value("blocks_with_members", 0)),
                    seg = std::to_string(j.value("segmental_pairs", 0)),
                    tan = std::to_string(j.value("tandem_pairs", 0));
  s.paragraphs.push_back(BiText{
      "Among the genome's " + genes + " placed genes, " + blocks + " collinear blocks were found, " + with +
          " of them holding members. By MCScanX's classes the members are " + classes + " (duplication.tsv); " + seg +
          " member pairs are collinear (segmental or whole-genome duplicates) "
          "and " +
          tan + " are tandem neighbours ({figure}).",
      "全基因组 " + genes + " 个有位置的基因中共找到 " + blocks + " 个共线性区块，其中 " + with +
          " 个含家族成员。按 MCScanX 的分类，成员为：" + classes + "（duplication.tsv）；" + seg +
          " 对成员共线（片段或全基因组复制），" + tan + " 对为相邻的串联重复（{figure}）。"}
                             .in(r.lang));
  if (j.value("homology_search", Json::object()).value("reused", false))
    s.paragraphs.push_back(
        BiText{"The all-against-all DIAMOND search was reused from an earlier run on the same "
               "proteome with the same DIAMOND version and options.",
               "全基因组蛋白互比（DIAMOND）复用了同一蛋白组、同一版本与参数的先前结果。"}
            .in(r.lang));
  s.figures = {final_base(r.ctx) + "synteny_circle.svg"};
  const Json inter = j.value("interspecies", Json::object());  // kept alive: items() refers to it
  for (auto& [prefix, o] : inter.items()) {
    s.paragraphs.push_back(BiText{
        "With " + prefix + ": " + std::to_string(o.value("blocks", 0)) + " collinear blocks; " +
            std::to_string(o.value("members_with_syntenic_ortholog", 0)) +
            " members have a syntenic ortholog (syntenic_orthologs.tsv; {figure:dual_synteny_" + prefix + ".svg}).",
        "与 " + prefix + " 之间：" + std::to_string(o.value("blocks", 0)) + " 个共线性区块，" +
            std::to_string(o.value("members_with_syntenic_ortholog", 0)) +
            " 个成员有共线直系同源基因（syntenic_orthologs.tsv；{figure:dual_synteny_" + prefix + ".svg}）。"}
                               .in(r.lang));
    if (o.contains("figure")) s.figures.push_back(final_base(r.ctx) + o["figure"].get<std::string>());
  }
  return s;
}

}  // namespace

StageSpec synteny_stage() {
  StageSpec s;
  s.name = "synteny";
  s.label = "synteny and duplications";
  s.label_zh = "共线性分析";
  s.description = "All-against-all DIAMOND, collinear blocks on gene order (MCScanX's method), duplicate classes";
  s.after = {"identify"};
  s.resource = "medium";
  s.programs = {"diamond"};
  s.needs = {"pep", "gff3"};  // gene order is all collinearity needs; the genome only names the circle's chromosomes
  s.data_files = {"pep", "gff3", "genome"};
  s.revision = 6;  // 2: a dual-synteny plot per comparative species; 3: cached search, genome-wide tables;
                   // 4: the circle: genome-wide blocks behind the links, tandem pairs as arcs;
                   // 5: MCScanX's chaining passes and parameters, classes from the blocks kept, no genome needed;
                   // 6: the members' names, the circos-style circle, comparative species by name
  s.dialog = {{"max_target_seqs", {"hits per gene (synteny)", "每个基因保留的比对数（共线性）"}},
              {"comparative_species", {"comparative species", "比较物种"}}};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "min_anchors": {"type": "integer", "minimum": 3, "maximum": 50, "default": 5, "description": "MCScanX -s: anchors a block needs"},
      "max_gaps": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25, "description": "MCScanX -m: genes skipped between anchors at most"},
      "match_score": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50, "description": "MCScanX -k: an anchor's score"},
      "gap_penalty": {"type": "integer", "minimum": -100, "maximum": 0, "default": -1, "description": "MCScanX -g: the score of each gene skipped"},
      "block_evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 1e-5, "description": "MCScanX -e: a block's E-value (Wang et al. 2006) must be below it"},
      "overlap_window": {"type": "integer", "minimum": 0, "maximum": 100, "default": 5, "description": "MCScanX -w: hits to genes this close along a chromosome count once"},
      "proximal_distance": {"type": "integer", "minimum": 2, "maximum": 1000, "default": 10, "description": "MCScanX -n: homologs on one chromosome fewer genes apart than this (and not adjacent) are proximal"},
      "evalue": {"type": "number", "minimum": 0, "maximum": 1, "default": 1e-5},
      "max_target_seqs": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "hits kept per gene (the seed's dialog default; MCScanX suggests at least 5 besides itself)"},
      "comparative_species": {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9_]{2,40}$", "format": "species"}, "maxItems": 20, "default": [], "description": "species prefixes (e.g. Dlon) whose <Prefix>.gff3 and <Prefix>.pep.fasta are among your data (uploads, the chosen server folder, the data roots): blocks between species, each drawn as a dual-synteny plot against this one"},
      "comparative": {"type": "array", "items": {"type": "string", "format": "path"}, "maxItems": 20, "default": [], "description": "species folders on this machine (<Prefix>.gff3, <Prefix>.pep.fasta), for the command line; clients name species with comparative_species"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    char ev[32];
    std::snprintf(ev, sizeof ev, "%g", ctx.params["evalue"].get<double>());
    auto search = [&](const char* db, const char* out) {
      return Command{{"diamond", "blastp", "-d", db, "-q", "proteome.fasta", "-o", out, "--outfmt", "6", "--evalue", ev,
                      "--max-target-seqs", std::to_string(ctx.params["max_target_seqs"].get<int>()), "--more-sensitive",
                      "--threads", std::to_string(ctx.cpus), "--quiet"},
                     "",
                     ""};
    };
    std::vector<FastaRecord> proteome;
    std::string table;
    Status enough = longest_proteome(ctx.data("gff3"), ctx.data("pep"), "", proteome, table,
                                     size_t(2 * ctx.params["min_anchors"].get<int>()));
    if (enough.code() == ErrorCode::kUnsupported)  // too few placed genes for a block: skipped with the count
      return std::vector<Step>{StageFn([why = enough.message()](const StageContext& c) {
        return write_text(c.work / "synteny.json", json_text(Json{{"skipped", true}, {"reason", why}}, 2));
      })};
    const fs::path entry =
        homology_cache_entry(ctx, proteome,
                             std::string("blastp --outfmt 6 --more-sensitive --evalue ") + ev + " --max-target-seqs " +
                                 std::to_string(ctx.params["max_target_seqs"].get<int>()));
    std::error_code ec;
    std::vector<Step> steps = {StageFn(prepare)};
    if (!entry.empty() && fs::is_regular_file(entry, ec)) {
      steps.push_back(StageFn([entry](const StageContext& c) { return reuse_homology(c, entry); }));
    } else {
      steps.push_back(Command{{"diamond", "makedb", "--in", "proteome.fasta", "-d", "proteome", "--quiet"}, "", ""});
      steps.push_back(search("proteome", "all.blast"));
      steps.push_back(StageFn([entry](const StageContext& c) { return store_homology(c, entry); }));
    }
    if (!comparative_folders(ctx).empty()) {  // the members' species against the others
      steps.push_back(Command{{"diamond", "makedb", "--in", "others.fasta", "-d", "others", "--quiet"}, "", ""});
      steps.push_back(search("others", "cross.blast"));
    }
    steps.push_back(StageFn(blocks));
    return steps;
  };
  s.outputs = {"synteny.json"};
  s.parse = summary_file("synteny.json");
  s.report = report;
  return s;
}

}  // namespace bioagent::gf

namespace bioagent {

Result<Json> collinearity_from_text(std::string_view gene_table, std::string_view blast_m8) {
  auto genes = parse_mcscanx_gff(gene_table);
  if (!genes) return genes.status();
  auto hits = parse_blast_m8(blast_m8);
  if (!hits) return hits.status();
  CollinearityParams p;
  auto r = find_collinearity(*genes, *hits, p);
  // MCScanX's duplicate_gene_classifier codes: 0 singleton ... 4 WGD or segmental.
  static const std::map<std::string, int> kCode = {
      {"singleton", 0}, {"dispersed", 1}, {"proximal", 2}, {"tandem", 3}, {"segmental", 4}};
  std::string types;
  for (auto& [gene, cls] : r.duplicate_class) types += gene + '\t' + std::to_string(kCode.at(cls)) + '\n';
  return Json{{"text", collinearity_text(r, p)},
              {"blocks", r.blocks.size()},
              {"collinear_genes", r.collinear_genes},
              {"genes", r.genes},
              {"gene_types", types},
              {"classes", gf::class_counts(r)}};
}

}  // namespace bioagent
