// Species data folders: the seed's naming rules (with the common variants
// recognised as fixable) and the consistency of genome, GFF3, CDS and proteins.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/io/file_names.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/io/input_stream.h"

namespace bioagent {
namespace {

// Content checks that need one file each (or the genome with the GFF3):
// a truncated profile, proteins with internal stops, genes beyond their
// sequence's end are problems; lowercase residues are warnings.
void content_checks(const Json& files, const SpeciesFiles& parsed, Json& problems, Json& warnings) {
  auto name_of = [&](const char* k) { return fs::path(files[k].get<std::string>()).filename().string(); };
  if (files.contains("hmm")) {
    std::ifstream in(files["hmm"].get<std::string>());
    std::string line, last;
    size_t n = 0, last_line = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") != std::string::npos) last = line, last_line = n;
    }
    while (!last.empty() && (last.back() == '\r' || last.back() == ' ')) last.pop_back();
    if (last != "//")
      problems.push_back({{"file", name_of("hmm")},
                          {"rule", "a complete HMMER3 profile"},
                          {"message", name_of("hmm") + " line " + std::to_string(last_line) +
                                          ": the profile does not end with '//' (truncated?)"},
                          {"message_zh", name_of("hmm") + " 第 " + std::to_string(last_line) +
                                             " 行：profile 未以“//”结尾（文件可能不完整）"}});
  }
  if (parsed.pep) {
    size_t stops = 0, lower = 0;
    for (auto& r : *parsed.pep) {
      size_t star = r.seq.find('*');
      if (star != std::string::npos && star + 1 < r.seq.size() && stops++ < 3)
        problems.push_back({{"file", name_of("pep")},
                            {"rule", "no internal stop codons"},
                            {"message", name_of("pep") + ": protein " + r.id + " has a stop '*' at residue " +
                                            std::to_string(star + 1) + " of " + std::to_string(r.seq.size())},
                            {"message_zh", name_of("pep") + "：蛋白 " + r.id + " 的第 " + std::to_string(star + 1) +
                                               " 位（共 " + std::to_string(r.seq.size()) + " 位）是终止符“*”"}});
      if (std::any_of(r.seq.begin(), r.seq.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); }) &&
          lower++ < 3)
        warnings.push_back(
            {{"file", name_of("pep")},
             {"message", name_of("pep") + ": protein " + r.id + " has lowercase residues (read as uppercase)"},
             {"message_zh", name_of("pep") + "：蛋白 " + r.id + " 含小写的氨基酸字母（按大写读取）"}});
    }
  }
  if (parsed.genome_lengths && parsed.gff) {
    size_t beyond = 0;
    for (auto& [id, g] : parsed.gff->genes) {
      auto it = parsed.genome_lengths->find(g.seqid);
      if (it == parsed.genome_lengths->end() || g.end <= it->second || beyond++ >= 3) continue;
      problems.push_back(
          {{"file", name_of("gff3")},
           {"rule", "genes lie within their sequence"},
           {"message", name_of("gff3") + ": gene " + id + " ends at " + std::to_string(g.end) + ", beyond the " +
                           std::to_string(it->second) + " bp of " + g.seqid + " in " + name_of("genome")},
           {"message_zh", name_of("gff3") + "：基因 " + id + " 止于 " + std::to_string(g.end) + "，超出 " +
                              name_of("genome") + " 中 " + g.seqid + " 的长度（" + std::to_string(it->second) +
                              " bp）"}});
    }
  }
}

// Genome, GFF3, proteins and CDS against one another through the gene map
// (proteins located by mRNA, CDS/protein_id or gene id; GFF3 sequence names
// matched to the genome's as Chr1/1/chr01 variants).
void consistency_checks(const std::map<std::string, int64_t>& genome, const GffModel& gff,
                        const std::vector<FastaRecord>& pep, const std::vector<FastaRecord>& cds, Json& cons,
                        Json& problems) {
  std::vector<std::string> names;
  for (auto& [n, len] : genome) names.push_back(n);
  GeneMap map = build_gene_map(gff, pep, cds, names);
  const Json map_summary = map.summary();
  Json missing_seqids = Json::array();
  for (auto& s : map.seqids_not_in_genome) missing_seqids.push_back(s);
  size_t unmatched = 0, mismatched = 0, checked = 0;
  Json unmatched_examples = Json::array(), mismatch_examples = Json::array();
  std::map<std::string, const FastaRecord*> cds_by_id;
  for (auto& r : cds) cds_by_id[r.id] = &r;
  for (size_t i = 0; i < pep.size(); ++i) {
    const GeneMapRow& row = map.rows[i];
    if (!row.locus.placed()) {
      if (unmatched++ < 5) unmatched_examples.push_back(row.protein);
      continue;
    }
    auto c = cds_by_id.find(row.cds);
    if (c == cds_by_id.end()) continue;
    ++checked;
    std::string aa = translate(c->second->seq), want = pep[i].seq;  // with or without the stop codon
    while (!aa.empty() && aa.back() == '*') aa.pop_back();
    while (!want.empty() && want.back() == '*') want.pop_back();
    if (aa != want && mismatched++ < 5) mismatch_examples.push_back(row.protein);
  }
  Json aliases = Json::object();
  for (auto& [a, b] : map.seqid_aliases) aliases[a] = b;
  cons = {{"genome_sequences", genome.size()},
          {"gff_genes", gff.genes.size()},
          {"gff_mrnas", gff.transcripts.size()},
          {"proteins", pep.size()},
          {"cds", cds.size()},
          {"gff_seqids_missing_from_genome", missing_seqids},
          {"gff_seqids_matched_by_name_variant", aliases},
          {"proteins_without_gff_mrna", unmatched},
          {"proteins_without_gff_mrna_examples", unmatched_examples},
          {"cds_checked", checked},
          {"cds_not_translating_to_protein", mismatched},
          {"cds_mismatch_examples", mismatch_examples},
          {"gene_map", map_summary}};
  if (!missing_seqids.empty())
    problems.push_back(
        {{"rule", "every GFF seqid exists in the genome"},
         {"message", std::to_string(missing_seqids.size()) + " GFF sequence names are not in the genome, e.g. " +
                         missing_seqids[0].get<std::string>() + " (not even as a Chr1/1/chr01 variant)"},
         {"message_zh", std::to_string(missing_seqids.size()) + " 个 GFF 序列名在基因组中不存在，例如 " +
                            missing_seqids[0].get<std::string>() + "（按 Chr1/1/chr01 等写法也找不到）"}});
  if (unmatched && !map_summary["fix"].empty())  // the gene map's sentence: three examples, the GFF3's forms, the fix
    problems.push_back({{"rule", "protein ids match GFF mRNA/CDS ids"},
                        {"message", map_summary["fix"][0]},
                        {"message_zh", map_summary["fix_zh"][0]}});
  if (mismatched)
    problems.push_back(
        {{"rule", "CDS translate to the proteins"},
         {"message", std::to_string(mismatched) + " of " + std::to_string(checked) +
                         " CDS do not translate to their protein, e.g. " + mismatch_examples[0].get<std::string>()},
         {"message_zh", std::to_string(checked) + " 条 CDS 中有 " + std::to_string(mismatched) +
                            " 条翻译后与对应蛋白不一致，例如 " + mismatch_examples[0].get<std::string>()}});
}

// The number of profiles (NAME lines) in a HMMER3 file, read within the input
// limits (those before a line or size past them); 0 when unreadable.
size_t hmm_profile_count(const fs::path& p) {
  auto in = seqio_detail::InputStream::open(p, p.filename().string(), default_input_limits());
  if (!in) return 0;
  seqio_detail::LineReader lines(**in);
  size_t n = 0;
  for (std::string_view line; lines.next(line);) n += line.rfind("NAME ", 0) == 0;
  return n;
}

using FilesByKind = std::map<std::string, std::vector<std::string>>;

std::string name_stem(const std::string& n) { return n.substr(0, n.find('.')); }

// The folder's files by the kind their names say; a name no rule accepts is a problem.
// A misnamed file's fix carries the session's prefix, else the one the folder's files named by the rules share
// (data_view_plan's), never a word of its own name.
FilesByKind files_by_kind(const fs::path& dir, const std::string& prefix, Json& problems) {
  const std::string fix_prefix = prefix.empty() ? data_view_plan(dir, "").value("prefix", std::string()) : prefix;
  std::error_code ec;
  FilesByKind by_kind;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::string name = e.path().filename().string();
    if (name[0] == '.' || name == "truth.json" || name == "README.txt") continue;
    Json c = check_file_name(name, fix_prefix);
    if (c["ok"] == true)
      by_kind[c["kind"].get<std::string>()].push_back(name);
    else
      problems.push_back(c);
  }
  return by_kind;
}

// A file of several profiles is a domain set for the classify stage, not a
// family's profile (unless it is named <Family>.hmm: identify then refuses it).
void set_aside_hmm_sets(const fs::path& dir, const std::string& family, FilesByKind& by_kind) {
  for (auto it = by_kind["hmm"].begin(); it != by_kind["hmm"].end();)
    if (name_stem(*it) != family && hmm_profile_count(dir / *it) > 1) {
      by_kind["hmm_set"].push_back(*it);
      it = by_kind["hmm"].erase(it);
    } else {
      ++it;
    }
}

// The first domain set is files["hmm_set"]; a second is a problem.
void record_hmm_set(const fs::path& dir, FilesByKind& by_kind, Json& files, Json& problems) {
  auto& sets = by_kind["hmm_set"];
  if (sets.empty()) return;
  std::sort(sets.begin(), sets.end());
  files["hmm_set"] = fs::absolute(dir / sets[0]).string();
  if (sets.size() > 1)
    problems.push_back({{"file", sets[1]},
                        {"kind", "hmm_set"},
                        {"rule", "at most one set of domain profiles"},
                        {"message", "more than one HMM file holds several profiles (" + sets[0] + ", " + sets[1] +
                                        "): keep one domain set for classification in the folder"},
                        {"message_zh", "有多个 HMM 文件各含多个 profile（" + sets[0] + "、" + sets[1] +
                                           "）：文件夹中只保留一套用于分类的结构域 profile"}});
}

Json missing_required_file(const fs::path& dir, const std::string& kind, const std::string& name, const Json& files) {
  const std::string folder = dir.filename().string();
  const bool no_family = kind == "hmm" && name == ".hmm";  // no family named and no profile in the folder
  std::string en = no_family
                       ? "no family profile in the data folder " + folder +
                             ": add <Family>.hmm (e.g. SPL.hmm), or name the family (--family) and its Pfam "
                             "accession (identify.pfam)"
                       : "the " + kind + " file " + name + " is missing (expected in the data folder " + folder + ")";
  std::string zh =
      no_family ? "数据文件夹 " + folder +
                      " 中没有家族的 HMM profile：请添加 <Family>.hmm（例如 SPL.hmm），或指定家族（--family）及其 "
                      "Pfam 编号（identify.pfam）"
                : kind_zh(kind) + "文件 " + name + " 缺失（应位于数据文件夹 " + folder + " 中）";
  if (kind == "hmm" && files.contains("hmm_set")) {
    const std::string set = fs::path(files["hmm_set"].get<std::string>()).filename().string();
    en += "; " + set +
          " holds several domain profiles: it is used by the classify stage, and the family's own profile "
          "(<Family>.hmm or identify.pfam) is needed as well";
    zh += "；" + set +
          " 含多个结构域 profile，供分类阶段使用；还需要该家族自己的 profile（<Family>.hmm 或 identify.pfam）";
  }
  return {{"file", no_family ? std::string("<Family>.hmm") : name},
          {"kind", kind},
          {"rule", "required file"},
          {"fixable", false},
          {"message", en},
          {"message_zh", zh}};
}

// The five files a run reads under their expected names: found (files), missing
// or empty (problems), or optional and absent (absent).
void check_expected_files(const fs::path& dir, const std::string& prefix, const std::string& family, Json& files,
                          Json& problems, Json& absent) {
  std::error_code ec;
  const std::map<std::string, std::string> wanted = {{"genome", prefix + ".genome.fasta"},
                                                     {"gff3", prefix + ".gff3"},
                                                     {"cds", prefix + ".cds.fasta"},
                                                     {"pep", prefix + ".pep.fasta"},
                                                     {"hmm", family + ".hmm"}};
  for (auto& [kind, name] : wanted) {
    fs::path p = dir / name;
    if ((kind == "hmm" ? family : prefix).empty() || !fs::exists(p, ec)) {
      const std::string k = kind;  // (clang 14 cannot capture a structured binding)
      bool fixable_elsewhere = std::any_of(problems.begin(), problems.end(), [&](const Json& pr) {
        return pr.value("kind", Json()) == k && pr.value("fixable", false);
      });
      // Only the proteins and the profile are required; without the others the
      // stages that need them are skipped with that reason.
      const bool optional = kind == "genome" || kind == "gff3" || kind == "cds";
      if (optional && !fixable_elsewhere && !prefix.empty())
        absent.push_back({{"file", name},
                          {"kind", kind},
                          {"message", "no " + kind + " file " + name + ": the stages that need it are skipped"},
                          {"message_zh", "没有" + kind_zh(kind) + "文件 " + name + "：需要它的阶段将跳过"}});
      else if (!fixable_elsewhere)
        problems.push_back(missing_required_file(dir, kind, name, files));
      continue;
    }
    if (fs::file_size(p, ec) == 0) {
      problems.push_back({{"file", name},
                          {"kind", kind},
                          {"rule", "not empty"},
                          {"message", name + " is empty"},
                          {"message_zh", name + " 是空文件"}});
      continue;
    }
    files[kind] = fs::absolute(p).string();
  }
}

// Each file of the folder read once; one that cannot be read is a problem, and absent from `out`.
void read_species_files(const Json& files, SpeciesFiles& out, Json& problems) {
  auto path = [&](const char* k) { return files[k].get<std::string>(); };
  auto keep = [&](auto&& result, auto& into) {
    if (result) {
      into = std::move(*result);
      return;
    }
    if (out.unreadable.is_ok()) out.unreadable = result.status();
    problems.push_back({{"rule", "readable"},
                        {"message", result.status().message()},
                        {"message_zh", "文件无法读取：" + result.status().message()}});
  };
  if (files.contains("genome")) keep(fasta_lengths(path("genome")), out.genome_lengths);
  if (files.contains("gff3")) keep(read_gff3(path("gff3")), out.gff);
  if (files.contains("pep")) keep(read_fasta(path("pep")), out.pep);
  if (files.contains("cds")) keep(read_fasta(path("cds")), out.cds);
}

// Proteins and GFF3 agree, and the genome and CDS with them when they are there (each readable).
Json check_consistency(const SpeciesFiles& f, Json& problems) {
  Json cons = Json::object();
  if (f.gff && f.pep)
    consistency_checks(f.genome_lengths.value_or(std::map<std::string, int64_t>{}), *f.gff, *f.pep,
                       f.cds.value_or(std::vector<FastaRecord>{}), cons, problems);
  return cons;
}

}  // namespace

// Files the rules name for another prefix, for each kind the species lacks (Dlon.gff3 in a Lchi folder):
// never read or renamed as the species' own, but told, since they may be its data under a wrong prefix.
// {kind: {"found", "expected"}}; the absent file's and the missing file's messages say so too.
Json other_prefix_files(const FilesByKind& by_kind, const std::string& prefix, const Json& files, Json& absent,
                        Json& problems) {
  Json out = Json::object();
  if (prefix.empty()) return out;
  const std::map<std::string, std::string> suffix = {
      {"genome", ".genome.fasta"}, {"gff3", ".gff3"}, {"cds", ".cds.fasta"}, {"pep", ".pep.fasta"}};
  for (auto& [kind, ext] : suffix) {
    auto it = by_kind.find(kind);
    if (files.contains(kind) || it == by_kind.end()) continue;
    std::string found;
    for (auto& n : it->second)
      if (name_stem(n) != prefix) found += (found.empty() ? "" : ", ") + n;
    if (found.empty()) continue;
    out[kind] = {{"found", found}, {"expected", prefix + ext}};
    const std::string en = " (the folder holds " + found +
                           ", named for another species: nothing is renamed; if it "
                           "is this species' file, rename it to " +
                           prefix + ext + ")";
    const std::string zh = "（文件夹中有 " + found +
                           "，以另一物种的前缀命名：不会自动改名；若它是本物种的文件，请改名为 " + prefix + ext + "）";
    for (Json* list : {&absent, &problems})
      for (auto& e : *list)
        if (e.value("kind", Json()) == kind && e.value("file", std::string()) == prefix + ext) {
          e["message"] = e.value("message", std::string()) + en;
          e["message_zh"] = e.value("message_zh", std::string()) + zh;
          e["other_prefix_file"] = found;
        }
  }
  return out;
}

Result<Json> check_species_data(const fs::path& dir, const std::string& prefix_in, const std::string& family_in,
                                bool consistency, SpeciesFiles* parsed) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("no data folder " + dir.filename().string());
  Json problems = Json::array(), files = Json::object();
  FilesByKind by_kind = files_by_kind(dir, prefix_in, problems);
  std::string prefix = prefix_in, family = family_in;
  for (const char* kind : {"genome", "gff3", "cds", "pep"}) {
    auto& v = by_kind[kind];
    if (prefix.empty() && v.size() == 1) prefix = name_stem(v[0]);
  }
  set_aside_hmm_sets(dir, family, by_kind);
  if (family.empty() && by_kind["hmm"].size() == 1) family = name_stem(by_kind["hmm"][0]);
  record_hmm_set(dir, by_kind, files, problems);
  Json absent = Json::array();  // optional files the folder does not have
  check_expected_files(dir, prefix, family, files, problems, absent);
  Json others = other_prefix_files(by_kind, prefix, files, absent, problems);
  Json out = {{"prefix", prefix}, {"family", family}, {"files", files}, {"problems", problems}, {"absent", absent}};
  if (!others.empty()) out["other_prefix_files"] = others;
  SpeciesFiles read;
  if (consistency) read_species_files(files, read, problems);
  Json cons = consistency ? check_consistency(read, problems) : Json::object();
  Json warnings = Json::array();
  if (consistency) content_checks(files, read, problems, warnings);
  if (parsed) *parsed = std::move(read);
  out["consistency"] = cons;
  out["warnings"] = warnings;
  out["problems"] = problems;
  out["ok"] = problems.empty();
  return out;
}

Result<Json> genefamily_run_config(const std::string& prefix, const std::string& family, const fs::path& data_dir,
                                   const Json& params) {
  auto check = check_species_data(data_dir, prefix, family, false);
  if (!check) return check.status();
  // A Pfam accession stands in for <Family>.hmm: identify downloads the profile from InterPro.
  const bool from_pfam = !params.value("identify", Json::object()).value("pfam", std::string()).empty();
  Json problems = Json::array();
  for (auto& p : (*check)["problems"])
    if (!(from_pfam && p.value("kind", Json()) == "hmm")) problems.push_back(p);
  const bool has_profile = (*check)["files"].contains("hmm") || from_pfam;
  if (!(*check)["files"].contains("pep") || !has_profile || !problems.empty()) {
    std::string why;
    for (auto& p : problems) why += "\n  - " + p.value("message", std::string());
    return Status(ErrorCode::kInvalidArgument,
                  "the data folder " + data_dir.filename().string() + " is not ready:" + why)
        .with("problems", problems);
  }
  if (from_pfam && (*check)["family"] == "") (*check)["family"] = family.empty() ? "family" : family;
  return Json{{"species", (*check)["prefix"]},
              {"family", (*check)["family"]},
              {"data_dir", fs::absolute(data_dir).string()},
              {"files", (*check)["files"]},
              {"other_prefix_files", check->value("other_prefix_files", Json::object())},
              {"params", params},
              {"network", Json::object()}};  // set by the caller: offline, cache_dir, allow_private_urls
}

}  // namespace bioagent
