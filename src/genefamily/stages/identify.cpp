// The identify stage: hmmsearch of the proteome with the family HMM
// (--domtblout), members kept when the full-sequence E-value passes and the
// domain hits cover enough of the HMM, one longest isoform per gene (from the
// GFF3), and the seed's final files.
#include <zlib.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "bioagent/http.h"
#include "bioagent/json_text.h"
#include "genefamily/classify/classify.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/stages/identify_species_profile.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

// The proteome as the searches read it: plain FASTA with clean ids
// (clean_sequence_id: PlantTFDB pipes, Ensembl/NCBI prefixes), from a plain or
// gzip file; the original header word stays in the description.
Status write_search_proteome(const StageContext& ctx) {
  auto pep = read_fasta(ctx.data("pep"));
  if (!pep) return pep.status();
  size_t renamed = 0;
  for (auto& r : *pep) renamed += r.description.rfind(r.id, 0) != 0;
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "proteome.fasta", *pep));
  return write_text(ctx.work / "proteome.json",
                    json_text(Json{{"proteins", pep->size()}, {"ids_cleaned", renamed}}, 2));
}

// The members' files: members.tsv (name, the data's gene and protein ids, position, search scores), the
// mapping table names.tsv (name, gene, protein, position, how it was numbered), the seed's geneID.txt (the data's
// gene ids, the list tools extract by), domain.txt and the FASTA files under the members' names. domain.txt lists
// each member's domains at domain_evalue, a species-profile member's at confirm_domain_evalue (the threshold that
// confirmed it).
Status write_member_files(const StageContext& ctx, const std::vector<Member>& members,
                          const std::vector<DomainHit>& hits, const std::map<std::string, const FastaRecord*>& pep_by,
                          const std::map<std::string, const FastaRecord*>& cds_by, const GeneMap& map,
                          const std::set<std::string>& rescued, const std::string& basis) {
  const double dom_evalue = ctx.params["domain_evalue"], confirm = ctx.params["confirm_domain_evalue"];
  std::ostringstream tsv, names, ids, dom;
  std::vector<FastaRecord> pep_out, cds_out;
  tsv << "name\tgene_id\tprotein_id\tseqid\tstart\tend\tstrand\tlength\tevalue\tscore\tcoverage\ttranscript\n";
  names << "name\tgene_id\tprotein_id\tchromosome\tstart\tend\tstrand\tnumbered_by\n";
  dom << "name\thmm\tdomain\thmm_from\thmm_to\tali_from\tali_to\tenv_from\tenv_to\ti_evalue\tscore\n";
  for (auto& m : members) {
    const bool placed = !m.seqid.empty();  // unknown coordinates are "—", never 0/0/+
    const std::string where = (placed ? m.seqid : "—") + '\t' + (placed ? std::to_string(m.start) : "—") + '\t' +
                              (placed ? std::to_string(m.end) : "—") + '\t' + (placed ? std::string(1, m.strand) : "—");
    tsv << m.name << '\t' << m.gene << '\t' << m.protein << '\t' << where << '\t' << m.length << '\t' << m.evalue
        << '\t' << m.score << '\t' << m.coverage << '\t' << (m.transcript.empty() ? "—" : m.transcript) << '\n';
    names << m.name << '\t' << m.gene << '\t' << m.protein << '\t' << where << '\t'
          << (basis == "kept" ? "id kept"
              : placed        ? "chromosome order"
                              : "id order (no position)")
          << '\n';
    ids << m.gene << '\n';
    if (auto p = pep_by.find(m.protein); p != pep_by.end()) pep_out.push_back({m.name, "", p->second->seq});
    const GeneMapRow* row = map.row(m.protein);  // its CDS record: the same id, else its transcript's
    if (auto c = cds_by.find(row && !row->cds.empty() ? row->cds : m.protein); c != cds_by.end())
      cds_out.push_back({m.name, "", c->second->seq});
    for (auto& h : hits)
      if (h.target == m.protein && h.i_evalue <= (rescued.count(m.protein) ? confirm : dom_evalue))
        dom << m.name << '\t' << h.query << '\t' << h.dom_index << '\t' << h.hmm_from << '\t' << h.hmm_to << '\t'
            << h.ali_from << '\t' << h.ali_to << '\t' << h.env_from << '\t' << h.env_to << '\t' << h.i_evalue << '\t'
            << h.dom_score << '\n';
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "members.tsv", tsv.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "names.tsv"), names.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "geneID.txt"), ids.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "domain.txt"), dom.str()));
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / final_name(ctx, "pep.fasta"), pep_out));
  if (!ctx.data("cds").empty()) BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / final_name(ctx, "cds.fasta"), cds_out));
  return Status::ok();
}

struct Candidate {
  double evalue = 1e9, score = 0;
  std::vector<std::pair<int64_t, int64_t>> spans;
  int64_t hmm_len = 0;
};

// The passing candidates, one per gene (its longest protein): genes from the
// gene map (the GFF3's records, else the FASTA header's gene or the isoform suffix of the id).
struct Selection {
  std::map<std::string, Member> best;
  std::map<std::string, std::vector<std::string>> isoforms;  // gene -> its passing proteins
  std::map<std::string, size_t> via;                         // how the passing proteins were located
  std::set<std::string> suffix_rules;                        // isoform suffixes seen without a GFF3 record
  std::set<std::string> header_genes;                        // genes named by a FASTA header, not by a suffix
  size_t rejected_evalue = 0, rejected_coverage = 0, unmapped = 0;
};

Selection select_candidates(const StageContext& ctx, const std::map<std::string, Candidate>& cands, const GeneMap& map,
                            const std::map<std::string, const FastaRecord*>& pep_by,
                            const std::set<std::string>& blast_hits) {
  const double evalue = ctx.params["evalue"], min_cov = ctx.params["min_coverage"];
  Selection sel;
  for (auto& [prot, c] : cands) {
    if (c.evalue > evalue && !blast_hits.count(prot)) {
      ++sel.rejected_evalue;
      continue;
    }
    double cov = hmm_coverage(c.spans, c.hmm_len);
    if (cov < min_cov) {
      ++sel.rejected_coverage;
      continue;
    }
    auto record = pep_by.find(prot);
    const GeneMapRow* row = map.row(prot);
    ProteinLocus l =
        row ? row->locus
            : locate_protein(GffModel{}, prot, record == pep_by.end() ? "" : header_gene(record->second->description));
    Member m;
    m.protein = prot;
    m.evalue = c.evalue;
    m.score = c.score;
    m.coverage = cov;
    if (record != pep_by.end()) {
      m.length = int64_t(record->second->seq.size());
      while (m.length > 0 && record->second->seq[size_t(m.length) - 1] == '*') --m.length;
    }
    m.gene = l.gene;
    m.seqid = l.seqid;
    m.strand = l.strand;
    m.start = l.start;
    m.end = l.end;
    m.transcript = l.transcript;
    ++sel.via[l.via];
    if (!l.placed()) ++sel.unmapped;
    if (l.via == "gene in the FASTA header") sel.header_genes.insert(l.gene);
    if (l.via == "isoform suffix") {
      std::string rule;
      isoform_base(prot, &rule);
      sel.suffix_rules.insert(rule);
    }
    sel.isoforms[m.gene].push_back(prot);
    auto it = sel.best.find(m.gene);
    if (it == sel.best.end() || m.length > it->second.length) sel.best[m.gene] = m;
  }
  return sel;
}

// The hmmsearch hits by protein: its sequence E-value and score, the HMM spans of its confident domains.
// With `ga`, only what --cut_ga would have reported: sequences and domains at or above its bit scores.
std::map<std::string, Candidate> candidates_of(const std::vector<DomainHit>& hits, double dom_evalue,
                                               const HmmModel* ga = nullptr) {
  std::map<std::string, Candidate> cands;
  for (auto& h : hits) {
    if (ga && h.seq_score < ga->ga_sequence) continue;
    Candidate& c = cands[h.target];
    c.evalue = h.seq_evalue;
    c.score = h.seq_score;
    c.hmm_len = h.query_len;
    if (h.i_evalue <= dom_evalue && (!ga || h.dom_score >= ga->ga_domain)) c.spans.push_back({h.hmm_from, h.hmm_to});
  }
  return cands;
}

// The family profile when its GA line decides the family search: a profile from the data folder with GA lines,
// neither built from references nor beside a BLAST rescue.
std::optional<HmmModel> family_ga(const StageContext& ctx) {
  if (ctx.data("hmm").empty() || !ctx.params["hmm_from_references"].get<std::string>().empty() ||
      !ctx.params["blast_references"].get<std::string>().empty())
    return std::nullopt;
  auto m = single_family_profile(ctx.data("hmm").string());
  if (!m || !m->has_ga) return std::nullopt;
  return *m;
}

// Members by the family profile (round one), then with the species profile's hits (round two): a protein the
// species profile finds at the E-value passes when the family profile's domains at confirm_domain_evalue cover
// min_coverage of it. `rescued`: the proteins only round two passed.
Selection select_two_rounds(const StageContext& ctx, const std::vector<DomainHit>& hits, const GeneMap& map,
                            const std::map<std::string, const FastaRecord*>& pep_by,
                            const std::set<std::string>& blast_hits, size_t& candidates,
                            std::set<std::string>& rescued) {
  // Without --cut_ga (round two needs the weak domains), round one applies the GA scores itself.
  const auto ga = species_profile_on(ctx) ? family_ga(ctx) : std::nullopt;
  auto cands = candidates_of(hits, ctx.params["domain_evalue"].get<double>(), ga ? &*ga : nullptr);
  candidates = cands.size();
  Selection first = select_candidates(ctx, cands, map, pep_by, blast_hits);
  const std::set<std::string> species = species_profile_hits(ctx, hits);
  if (species.empty()) return first;
  std::set<std::string> passed_first, evidence = blast_hits;
  for (auto& [gene, prots] : first.isoforms) passed_first.insert(prots.begin(), prots.end());
  const auto relaxed = candidates_of(hits, ctx.params["confirm_domain_evalue"].get<double>());
  for (auto& p : species) cands[p] = relaxed.at(p);
  evidence.insert(species.begin(), species.end());
  Selection sel = select_candidates(ctx, cands, map, pep_by, evidence);
  for (auto& [gene, prots] : sel.isoforms)
    for (auto& p : prots)
      if (!passed_first.count(p)) rescued.insert(p);
  return sel;
}

// Proteins DIAMOND matched to a reference member (none without blast.tsv).
std::set<std::string> read_blast_hits(const StageContext& ctx) {
  std::set<std::string> blast_hits;
  if (auto b = read_text(ctx.work / "blast.tsv"))
    for (std::istringstream in(*b); in;) {
      std::string line;
      if (!std::getline(in, line)) break;
      blast_hits.insert(line.substr(0, line.find('\t')));
    }
  return blast_hits;
}

// An id suffix names a gene only when it groups several passing proteins;
// a lone protein keeps its own id (".1" may be a version, not an isoform). A
// gene a FASTA header names keeps its name.
void ungroup_lone_suffixes(Selection& sel) {
  for (auto it = sel.best.begin(); it != sel.best.end();) {
    auto iso = sel.isoforms.find(it->first);
    if (iso != sel.isoforms.end() && iso->second.size() == 1 && it->second.seqid.empty() &&
        it->second.protein != it->first && !sel.header_genes.count(it->first)) {
      Member m = it->second;
      m.gene = m.protein;
      sel.isoforms[m.gene] = iso->second;
      sel.isoforms.erase(iso);
      it = sel.best.erase(it);
      sel.best[m.gene] = m;
    } else {
      ++it;
    }
  }
}

// identify.json: counts at each filter, how proteins were located, the isoforms merged.
Json identify_summary(const std::vector<Member>& members, size_t candidates, Selection& sel, size_t blast_hits,
                      const Json& species_profile) {
  Json merged = Json::array();  // genes whose passing proteins were several isoforms
  for (auto& [gene, prots] : sel.isoforms)
    if (prots.size() > 1) merged.push_back({{"gene", gene}, {"kept", sel.best[gene].protein}, {"proteins", prots}});
  size_t passing = 0;
  for (auto& [gene, prots] : sel.isoforms) passing += prots.size();
  const size_t no_position =
      size_t(std::count_if(members.begin(), members.end(), [](const Member& m) { return m.seqid.empty(); }));
  return {{"members", members.size()},
          {"members_without_position", no_position},
          {"proteins_with_hits", candidates},
          {"rejected_by_evalue", sel.rejected_evalue},
          {"rejected_by_coverage", sel.rejected_coverage},
          {"proteins_passing", passing},
          {"proteins_without_gff_record", sel.unmapped},
          {"located_by", sel.via},
          {"isoform_suffixes", std::vector<std::string>(sel.suffix_rules.begin(), sel.suffix_rules.end())},
          {"blast_candidates", blast_hits},
          {"isoforms_collapsed", passing - members.size()},
          {"isoform_groups", merged},
          {"species_profile", species_profile}};
}

Status select_members(const StageContext& ctx) {
  auto text = read_text(ctx.work / "hits.domtbl");
  if (!text) return text.status();
  auto hits = parse_domtblout(*text, "hits.domtbl");
  if (!hits) return hits.status();
  // The GFF3 and the CDS are optional: without a GFF3 a protein's gene comes
  // from its id (isoform suffixes) and has no position; without CDS no CDS file.
  Result<GffModel> gff = GffModel{};
  if (!ctx.data("gff3").empty()) gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto pep = read_fasta(ctx.work / "proteome.fasta");
  if (!pep) return pep.status();
  Result<std::vector<FastaRecord>> cds = std::vector<FastaRecord>{};
  if (!ctx.data("cds").empty()) cds = read_fasta(ctx.data("cds"));
  if (!cds) return cds.status();
  std::map<std::string, const FastaRecord*> pep_by, cds_by;
  for (auto& r : *pep) pep_by[r.id] = &r;
  for (auto& r : *cds) cds_by[r.id] = &r;
  std::set<std::string> blast_hits = read_blast_hits(ctx), rescued;
  size_t candidates = 0;
  const GeneMap map = build_gene_map(*gff, *pep, *cds, {});  // every protein, so the scheme sees them all
  Selection sel = select_two_rounds(ctx, *hits, map, pep_by, blast_hits, candidates, rescued);
  ungroup_lone_suffixes(sel);
  std::vector<Member> members;
  for (auto& [g, m] : sel.best) members.push_back(m);
  const Naming naming = name_members(members, ctx.run.value("species", std::string()),
                                     ctx.run.value("family", std::string()), ctx.params["names"] == "ids");
  if (members.empty())
    return with_failure(
        Status(ErrorCode::kNotFound, "found no member: " + std::to_string(candidates) + " proteins had hits, " +
                                         std::to_string(sel.rejected_evalue) + " failed the E-value and " +
                                         std::to_string(sel.rejected_coverage) + " the coverage filter"),
        FailureClass::kEmptyResult);
  std::set<std::string> added;  // members only the species profile found
  for (auto& m : members)
    if (rescued.count(m.protein)) added.insert(m.protein);
  BIOAGENT_RETURN_IF_ERROR(write_member_files(ctx, members, *hits, pep_by, cds_by, map, added, naming.basis));
  Json profile = nullptr;
  if (fs::exists(ctx.work / "species.domtbl")) {
    auto seeds = read_fasta(ctx.work / "species_seeds.fasta");
    profile = {{"seeds", seeds ? seeds->size() : 0},
               {"added", std::vector<std::string>(added.begin(), added.end())},
               {"confirm_domain_evalue", ctx.params["confirm_domain_evalue"]}};
  }
  Json summary = identify_summary(members, candidates, sel, blast_hits.size(), profile);
  summary["naming"] = {{"basis", naming.basis},
                       {"placed", naming.placed},
                       {"unplaced", naming.unplaced},
                       {"first", members.front().name},
                       {"last", members.back().name}};
  return write_text(ctx.work / "identify.json", json_text(summary, 2));
}

// gzip-compressed bytes, inflated with zlib up to `limit` bytes.
Result<std::string> gunzip(const std::string& in, size_t limit) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return internal_error("zlib could not start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return parse_error("the download is not valid gzip data");
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      return resource_exhausted("the download inflates beyond " + std::to_string(limit) + " bytes");
    }
  }
  inflateEnd(&z);
  return out;
}

// The Pfam profile of params.pfam from InterPro (gzip), through the cached,
// guarded HTTP client; offline it comes from the cache or not at all.
Status download_pfam(const StageContext& ctx) {
  std::string acc = ctx.params["pfam"];
  if (acc.empty())
    return invalid_argument("no <Family>.hmm in the data folder and no identify.pfam accession to download");
  auto http = http_for_run(ctx, "interpro", std::chrono::hours(24 * 90));
  if (!http) return http.status();
  HttpRequest req;
  req.url = ctx.params["interpro_url"].get<std::string>() + "/entry/pfam/" + acc + "/?annotation=hmm";
  req.source = "interpro";
  auto resp = (*http)->fetch(req);
  if (!resp)
    return Status(resp.status().code(), "the " + acc + " profile could not be downloaded: " + resp.status().message());
  if (resp->status != 200)
    return Status(ErrorCode::kUnavailable, "InterPro answered HTTP " + std::to_string(resp->status) + " for " + acc);
  std::string hmm = resp->body;
  if (hmm.size() > 2 && static_cast<unsigned char>(hmm[0]) == 0x1f && static_cast<unsigned char>(hmm[1]) == 0x8b) {
    auto plain = gunzip(hmm, size_t(64) << 20);
    if (!plain) return plain.status();
    hmm = std::move(*plain);
  }
  if (hmm.rfind("HMMER3", 0) != 0) return parse_error("InterPro's answer for " + acc + " is not a HMMER3 profile");
  return write_text(ctx.work / "pfam.hmm", hmm);
}

}  // namespace

Result<std::unique_ptr<HttpClient>> http_for_run(const StageContext& ctx, const std::string& source,
                                                 std::chrono::hours ttl) {
  const Json net = ctx.run.value("network", Json::object());
  HttpOptions ho = http_options({{"offline", net.value("offline", false) ? "1" : ""},
                                 {"allow_private_urls", net.value("allow_private_urls", false) ? "1" : ""},
                                 {"cache_dir", net.value("cache_dir", std::string())}});
  ho.cache_ttl[source] = ttl;
  return HttpClient::create(ho);
}

namespace {

// "30 proteins passed the filters: 17 genes, 13 isoforms merged (longest kept; genes
// from the isoform suffixes .1/.2 of the ids, no GFF3)".
std::string isoform_sentence(const Json& j, Lang lang) {
  const size_t passing = j.value("proteins_passing", size_t(0)), genes = j.value("members", size_t(0));
  const size_t merged = j.value("isoforms_collapsed", size_t(0));
  std::string rules;
  for (auto& r : j.value("isoform_suffixes", Json::array()))
    rules += (rules.empty() ? "" : ", ") + r.get<std::string>();
  const Json by = j.value("located_by", Json::object());
  const size_t from_suffix = by.value("isoform suffix", size_t(0)), none = by.value("none", size_t(0));
  const size_t from_header = by.value("gene in the FASTA header", size_t(0));
  const size_t without_gff = from_suffix + none + from_header;
  std::string how = BiText{" (genes from the GFF3)", "（基因由 GFF3 确定）"}.in(lang);
  if (without_gff == passing && passing && from_header == passing)
    how = BiText{" (no GFF3 record: genes from the gene each FASTA header names)",
                 "（无 GFF3，按 FASTA 标题中注明的基因归并）"}
              .in(lang);
  else if (without_gff == passing && passing && from_header == 0)
    how = rules.empty()
              ? BiText{" (no GFF3 record: each protein is its own gene)", "（无 GFF3，每个蛋白视为一个基因）"}.in(lang)
              : BiText{" (no GFF3 record: genes from the isoform suffixes " + rules + " of the ids)",
                       "（无 GFF3，按蛋白 ID 的异构体后缀 " + rules + " 归并）"}
                    .in(lang);
  else if (without_gff)
    how = BiText{" (" + std::to_string(without_gff) +
                     " proteins without a GFF3 record grouped by the gene their FASTA header names, else their id "
                     "suffix)",
                 "（" + std::to_string(without_gff) + " 个蛋白无 GFF3 记录，按 FASTA 标题中的基因或 ID 后缀归并）"}
              .in(lang);
  if (lang == Lang::kZh)
    return std::to_string(passing) + " 个蛋白通过筛选：" + std::to_string(genes) + " 个基因，合并了 " +
           std::to_string(merged) + " 个可变剪接异构体（保留最长者）" + how + "。";
  return std::to_string(passing) + " proteins passed the filters: " + std::to_string(genes) + " genes, " +
         std::to_string(merged) + " isoforms merged (the longest kept)" + how + ".";
}

// How the members were named, stated as the numbering the names carry.
std::string naming_sentence(const Json& n, Lang lang) {
  const std::string basis = n.value("basis", std::string()), first = n.value("first", std::string()),
                    last = n.value("last", std::string());
  const std::string unplaced = std::to_string(n.value("unplaced", 0));
  if (basis == "kept")
    return BiText{"Each member keeps its gene id as its name (identify.names = ids).",
                  "各成员沿用其基因编号作为名称（identify.names = ids）。"}
        .in(lang);
  const std::string range = first + "–" + last;
  if (basis == "chromosome")
    return BiText{"The members are named " + range +
                      " by their order on the chromosomes (chromosomes in natural order, then by start); every "
                      "figure and table uses these names, and names.tsv maps each to its gene and protein ids.",
                  "成员按其在染色体上的顺序（染色体按自然顺序，再按起始位置）命名为 " + range +
                      "；所有图表均使用这些名称，names.tsv 给出每个名称对应的基因与蛋白编号。"}
        .in(lang);
  if (basis == "id")
    return BiText{
        "No member has a position in a GFF3, so the members are named " + range +
            " in the natural order of their gene ids; names.tsv maps each name to its ids.",
        "没有成员在 GFF3 中有位置，因此按基因编号的自然顺序命名为 " + range + "；names.tsv 给出每个名称对应的编号。"}
        .in(lang);
  if (basis == "chromosome_then_id")
    return BiText{"The members are named " + range + " by their order on the chromosomes; the " + unplaced +
                      " without a position in the GFF3 are numbered after them in the natural order of their gene "
                      "ids; names.tsv maps each name to its ids.",
                  "成员按染色体上的顺序命名为 " + range + "；GFF3 中没有位置的 " + unplaced +
                      " 个成员按基因编号的自然顺序排在其后；names.tsv 给出每个名称对应的编号。"}
        .in(lang);
  return "";
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "identify", {"Identification", "基因家族鉴定"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "identify.json");
  if (j.empty()) return s;
  s.paragraphs.push_back(isoform_sentence(j, r.lang));
  if (const std::string n = naming_sentence(j.value("naming", Json::object()), r.lang); !n.empty())
    s.paragraphs.push_back(n);
  if (const Json sp = j.value("species_profile", Json()); sp.is_object()) {
    const std::string seeds = std::to_string(sp.value("seeds", 0)), added = std::to_string(sp["added"].size());
    char confirm[32];
    std::snprintf(confirm, sizeof confirm, "%g", sp.value("confirm_domain_evalue", 0.01));
    const std::string round =  // owned: a BiText of temporaries lives only within its expression
        BiText{"A second search with a profile built from the domains of " + seeds +
                   " confident proteins of this species ",
               "以本物种 " + seeds + " 个可信蛋白的结构域构建物种特异 HMM 进行第二轮检索，"}
            .in(r.lang);
    s.paragraphs.push_back(
        round + (sp["added"].empty()
                     ? BiText{"found no further member.", "未发现新的成员。"}.in(r.lang)
                     : BiText{"added " + added +
                                  " members the family profile alone had missed; each still has the family profile's "
                                  "domains (i-Evalue ≤ " +
                                  confirm + ", the same coverage).",
                              "新增 " + added +
                                  " 个仅用家族 HMM 未检出的成员；每个新增成员仍具有家族 HMM 的结构域（i-Evalue ≤ " +
                                  confirm + "，覆盖度要求相同）。"}
                           .in(r.lang)));
  }
  if (size_t n = j.value("members_without_position", size_t(0)))
    s.paragraphs.push_back(BiText{std::to_string(n) +
                                      " members have no position in a GFF3: their chromosome, start, end and strand "
                                      "are shown as \"—\".",
                                  std::to_string(n) + " 个成员没有 GFF3 中的位置：其染色体、起止和链以“—”表示。"}
                               .in(r.lang));
  return s;
}

// The family profile, when the folder has one, is a single HMMER3 profile.
Status check_profile(const StageContext& ctx) {
  if (ctx.data("hmm").empty()) return Status::ok();  // downloaded from InterPro in the first step
  auto head = read_text(ctx.data("hmm"));
  if (!head) return head.status();
  if (head->rfind("HMMER3", 0) != 0)
    return invalid_argument(ctx.data("hmm").filename().string() +
                            " is not a HMMER3 profile (it must start with 'HMMER3/f'); build one with hmmbuild");
  auto one_family = single_family_profile_uses_ga(ctx.data("hmm").string());  // a domain set is refused
  return one_family ? Status::ok() : one_family.status();
}

// The profile (downloaded or built from references when asked), hmmsearch, the
// optional DIAMOND rescue, then the member selection.
Result<std::vector<Step>> identify_steps(const StageContext& ctx) {
  char ev[32], dev[32], bev[32];
  const std::string refs = ctx.params["blast_references"], build_from = ctx.params["hmm_from_references"];
  const bool second_round = species_profile_on(ctx);
  // With BLAST rescue or a second round, hmmsearch reports weak hits too: their domains may still confirm a
  // candidate the other evidence found.
  std::snprintf(ev, sizeof ev, "%g", refs.empty() && !second_round ? ctx.params["evalue"].get<double>() : 10.0);
  std::snprintf(dev, sizeof dev, "%g",
                second_round ? std::max(ctx.params["domain_evalue"].get<double>(),
                                        ctx.params["confirm_domain_evalue"].get<double>())
                             : ctx.params["domain_evalue"].get<double>());
  std::snprintf(bev, sizeof bev, "%g",
                ctx.params["blast_evalue"].get<double>());  // not to_string: 1e-10 is not 0.000000
  std::vector<Step> steps = {StageFn(write_search_proteome)};
  std::string hmm = ctx.data("hmm").string();
  if (hmm.empty()) {
    steps.push_back(StageFn(download_pfam));
    hmm = "pfam.hmm";
  }
  if (!build_from.empty()) {  // the profile built from reference members instead of the given one
    steps.push_back(Command{
        {"mafft", "--auto", "--quiet", "--thread", std::to_string(ctx.cpus), build_from}, "references.aln.fasta", ""});
    steps.push_back(Command{{"hmmbuild", "--informat", "afa", "--cpu", std::to_string(ctx.cpus), "-n",
                             ctx.run.value("family", std::string("family")), "built.hmm", "references.aln.fasta"},
                            "hmmbuild.txt",
                            ""});
    hmm = "built.hmm";
  }
  std::vector<std::string> search = {"hmmsearch", "--domtblout", "hits.domtbl", "--noali", "-E", ev, "--domE", dev};
  if (family_ga(ctx) && !second_round)  // with a second round, select_members applies GA itself
    search.resize(4), search.push_back("--cut_ga");
  for (const std::string& a : {std::string("--cpu"), std::to_string(ctx.cpus), std::string("-o"),
                               std::string("hmmsearch.txt"), hmm, std::string("proteome.fasta")})
    search.push_back(a);
  steps.push_back(Command{search, "", ""});
  if (!refs.empty()) {
    steps.push_back(Command{{"diamond", "makedb", "--in", refs, "-d", "references", "--quiet"}, "", ""});
    steps.push_back(Command{{"diamond", "blastp", "-d", "references", "-q", "proteome.fasta", "-o", "blast.tsv",
                             "--outfmt", "6", "--evalue", bev, "--threads", std::to_string(ctx.cpus), "--quiet"},
                            "",
                            ""});
  }
  if (second_round) {
    steps.push_back(StageFn(write_species_seeds));
    for (auto& c : species_profile_commands(ctx)) steps.push_back(c);
  }
  steps.push_back(StageFn(select_members));
  return steps;
}

}  // namespace

StageSpec identify_stage() {
  StageSpec s;
  s.name = "identify";
  s.label = "gene family identification";
  s.label_zh = "基因家族鉴定";
  s.description = "hmmsearch with the family HMM; E-value and domain-coverage filters; one longest isoform per gene";
  s.resource = "medium";  // no upstream: the check stage reports beside it rather than holding it up
  s.programs = {"hmmsearch", "hmmbuild", "mafft", "diamond"};
  s.needs = {"pep"};  // and <Family>.hmm or identify.pfam (the check says which is missing)
  s.data_files = {"pep", "gff3", "cds", "hmm"};
  s.revision = 2;  // 2: proteins placed by the gene map's identifiers; members.tsv's transcript column
  s.dialog = {{"evalue", {"E-value", "E 值"}}};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 1e-5, "description": "full-sequence E-value cut-off"},
      "domain_evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 1e-3, "description": "per-domain i-Evalue for coverage"},
      "min_coverage": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5, "description": "fraction of the HMM the domains must cover"},
      "blast_references": {"type": "string", "default": "", "format": "path", "description": "FASTA of known members: DIAMOND hits become candidates too (their domains must still be confirmed)"},
      "blast_evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 1e-10},
      "pfam": {"type": "string", "default": "", "pattern": "^(PF[0-9]{5})?$", "description": "Pfam accession: the profile is downloaded from InterPro (cached) when the data folder has no <Family>.hmm"},
      "interpro_url": {"type": "string", "default": "https://www.ebi.ac.uk/interpro/api"},
      "hmm_from_references": {"type": "string", "default": "", "format": "path", "description": "FASTA of known members: build the profile with MAFFT + hmmbuild instead of using <Family>.hmm"},
      "species_profile": {"type": "boolean", "default": true, "description": "search again with a profile built (MAFFT + hmmbuild) from this species' confident members' domains; a new hit must still have the family profile's domains (confirm_domain_evalue, min_coverage; a profile's GA scores still decide its own hits). Not with blast_references"},
      "confirm_domain_evalue": {"type": "number", "minimum": 0, "maximum": 10, "default": 0.01, "description": "the family profile's per-domain i-Evalue that confirms a species-profile hit"},
      "names": {"type": "string", "enum": ["chromosome", "ids"], "default": "chromosome", "description": "chromosome: members named <Prefix><Family>1..n by chromosome order (natural order, then start; members without a position after them by id), the one name every figure, table and file uses, the data's ids kept in names.tsv; ids: each member keeps its gene id"}
    }, "additionalProperties": false})JS");
  s.check = check_profile;
  s.steps = identify_steps;
  s.outputs = {"members.tsv", "hits.domtbl", "identify.json"};
  s.revision = 2;  // 2: the members' names (name column, names.tsv, FASTA under the names)
  s.parse = summary_file("identify.json");
  // {asked} and {used}: the E-value this run asked for and the one the repair used.
  s.repairs = {{FailureClass::kEmptyResult, "", "relax_evalue",
                "relax the identify E-value from {asked} to {used} and say so in the report",
                "the search found no family members at the current thresholds",
                "start identify at E-value {used} for this family when {asked} found nothing", Json{{"evalue", 1e-3}},
                true, "将鉴定的 E 值由 {asked} 放宽为 {used} 重新检索，并在报告中注明",
                "该家族在 E 值 {asked} 下未检出成员时，直接以 E 值 {used} 开始鉴定", "在当前阈值下未检出家族成员"},
               {FailureClass::kCountOutOfRange, "", "report_gene_count",
                "report the count against the expected bounds; check the HMM and the E-value before trusting it",
                "the number of members is outside the expected bounds",
                "compare the member count with the knowledge base before the phylogeny", Json::object(), false,
                "报告成员数与预期范围的比较；采信前请检查 HMM 与 E 值", "系统发育分析之前先将成员数与知识库比较",
                "成员数超出预期范围"}};
  s.checks = [](const StageContext& ctx, const Json& summary) -> std::vector<StageCheck> {
    const int n = summary.value("members", 0), lo = 10, hi = 100;
    const Lang lang = lang_or_en(ctx.run.value("lang", std::string()));  // a check's detail in the run's language
    return {
        {"gene count", n >= lo && n <= hi ? "pass" : "warn",
         std::to_string(n) + " members (expected " + std::to_string(lo) + "-" + std::to_string(hi) + ")", n,
         Json::array({lo, hi})},
        {"isoforms merged", "pass", isoform_sentence(summary, lang), summary.value("isoforms_collapsed", 0), Json()}};
  };
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
