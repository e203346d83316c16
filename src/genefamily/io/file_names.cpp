// The seed's naming rules for a species folder's files, the names the usual
// downloads have (Phytozome, Ensembl Plants, NCBI, plain variants) and the run's
// view of a folder: its files linked under the names the stages read.
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>

#include <re2/re2.h>

#include "bioagent/genefamily.h"
#include "genefamily/io/file_names.h"

namespace bioagent {

std::string kind_zh(const std::string& kind) {
  if (kind == "genome") return "基因组";
  if (kind == "gff3") return "GFF3 注释";
  if (kind == "cds") return "CDS 序列";
  if (kind == "pep") return "蛋白序列";
  if (kind == "hmm") return "HMM 模型";
  return kind;
}

namespace {

// File names are the user's (uploads, data-root folders): RE2 (linear time, no
// recursion), Latin-1 so that any byte, valid UTF-8 or not, is one character.
RE2::Options name_options(bool case_sensitive) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive(case_sensitive);
  o.set_log_errors(false);
  return o;
}

struct Rule {
  const char* kind;
  std::shared_ptr<const RE2> pattern;
  const char* text;
  const char* example;
};

std::shared_ptr<const RE2> exact(const char* pattern) {
  return std::make_shared<const RE2>(pattern, name_options(true));
}
std::shared_ptr<const RE2> icase(const char* pattern) {
  return std::make_shared<const RE2>(pattern, name_options(false));
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> k = {
      {"genome", exact(R"(^\w+\.genome\.fasta$)"), "^\\w+\\.genome\\.fasta$", "Lchi.genome.fasta"},
      {"gff3", exact(R"(^\w+\.gff3$)"), "^\\w+\\.gff3$", "Lchi.gff3"},
      {"cds", exact(R"(^\w+\.cds\.fasta$)"), "^\\w+\\.cds\\.fasta$", "Lchi.cds.fasta"},
      {"pep", exact(R"(^\w+\.pep\.fasta$)"), "^\\w+\\.pep\\.fasta$", "Lchi.pep.fasta"},
      {"hmm", exact(R"(^\w+\.hmm$)"), "^\\w+\\.hmm$", "SPL.hmm"}};
  return k;
}

// Variants people use for the same files, and the name they should have. The
// order is the preference when a folder holds two variants of one kind (a
// portal ships soft-masked, plain and hard-masked genomes side by side): the
// first is read, the others are listed as not read.
struct Variant {
  std::shared_ptr<const RE2> pattern;  // group 1: the stem the prefix comes from
  const char* kind;
  const char* suffix;  // the right suffix after the prefix
};
const std::vector<Variant>& variants() {
  static const std::vector<Variant> k = {
      // NCBI's CDS first: its name ends as the genome's does (<assembly>_cds_from_genomic.fna).
      {icase(R"(^(.+?)[._]cds_from_genomic\.(fna|fa|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},
      {icase(R"(^(\w+)\.(genome|genomic|dna)\.(fa|fas|fna|fsa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},
      // Ensembl Plants: soft-masked first (repeats in lowercase, sequence kept), hard-masked last.
      {icase(R"(^(.+)\.dna_sm\.(toplevel|primary_assembly)\.(fa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},
      {icase(R"(^(.+)\.dna\.(toplevel|primary_assembly)\.(fa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},
      {icase(R"(^(.+)\.softmasked\.(fa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},  // Phytozome
      {icase(R"(^(.+)_genomic\.(fna|fa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},  // NCBI
      {icase(R"(^(.+)\.dna_rm\.(toplevel|primary_assembly)\.(fa|fasta)(\.gz)?$)"), "genome", ".genome.fasta"},
      {icase(R"(^(\w+)\.(cds)\.(fa|fas|fna|ffn|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},
      {icase(R"(^(\w+)\.(cds)(\.gz)?$)"), "cds", ".cds.fasta"},
      {icase(R"(^(.+)\.cds\.all\.(fa|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},  // Ensembl
      {icase(R"(^(.+)\.cds(_primaryTranscriptOnly)?\.(fa|fna|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},
      {icase(R"(^(\w+)\.(pep|protein|proteins|prot|aa)\.(fa|fas|faa|fasta)(\.gz)?$)"), "pep", ".pep.fasta"},
      {icase(R"(^(\w+)\.(faa|pep)(\.gz)?$)"), "pep", ".pep.fasta"},
      {icase(R"(^(.+)\.pep\.all\.(fa|fasta)(\.gz)?$)"), "pep", ".pep.fasta"},  // Ensembl
      {icase(R"(^(.+?)[._]protein(_primaryTranscriptOnly)?\.(fa|faa|fasta)(\.gz)?$)"), "pep",
       ".pep.fasta"},  // Phytozome, NCBI
      {exact(R"(^(\w+)\.(gff|gff3\.txt|GFF3|gtf|GTF)(\.gz)?$)"), "gff3", ".gff3"},
      {exact(R"(^(\w+)\.gff3\.gz$)"), "gff3", ".gff3"},
      // Phytozome's gene_exons has the exons the structure figure draws; gene.gff3 only CDS and UTRs.
      {icase(R"(^(.+)\.gene_exons\.gff3(\.gz)?$)"), "gff3", ".gff3"},
      {icase(R"(^(.+)\.gene\.gff3(\.gz)?$)"), "gff3", ".gff3"},
      {icase(R"(^(.+)\.\d+\.(gff3|gtf)(\.gz)?$)"), "gff3", ".gff3"},  // Ensembl: <release>.gff3
      // Ensembl's chromosome-only annotation (no scaffolds): read when the whole one is absent.
      {icase(R"(^(.+)\.\d+\.chr\.(gff3|gtf)(\.gz)?$)"), "gff3", ".gff3"},
      {icase(R"(^(.+)_genomic\.(gff|gtf)(\.gz)?$)"), "gff3", ".gff3"},  // NCBI
      // PLAZA: <kind>.<selected_transcript|all_transcripts>[.all_features].<species code>.<ext>
      {exact(R"(^proteome\.selected_transcript\.(\w+)\.(fa|fasta)(\.gz)?$)"), "pep", ".pep.fasta"},
      {exact(R"(^proteome\.all_transcripts\.(\w+)\.(fa|fasta)(\.gz)?$)"), "pep", ".pep.fasta"},
      {exact(R"(^cds\.selected_transcript\.(\w+)\.(fa|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},
      {exact(R"(^cds\.all_transcripts\.(\w+)\.(fa|fasta)(\.gz)?$)"), "cds", ".cds.fasta"},
      {exact(R"(^annotation\.selected_transcript\.(?:all|exon)_features\.(\w+)\.gff3?(\.gz)?$)"), "gff3", ".gff3"},
      {exact(R"(^annotation\.all_transcripts\.(?:all|exon)_features\.(\w+)\.gff3?(\.gz)?$)"), "gff3", ".gff3"},
      {exact(R"(^(\w+)\.(hmm3|HMM)$)"), "hmm", ".hmm"}};
  return k;
}

// The species prefix a download's stem suggests: Ensembl's Genus_species.Assembly
// (Arabidopsis_thaliana.TAIR10 -> Atha) and Phytozome's Gspecies_<version>
// (Athaliana_447_Araport11 -> Atha) give the genus initial and three letters of
// the epithet, as does a bare Genus_species whose genus is a word (5 letters or
// more: Arabidopsis_thaliana). A stem that starts with a short capitalised code (Lchi_annotation,
// Exam_v2, Zea_mays without an assembly; not an accession such as GCA_) keeps that code: the code is the prefix,
// the rest is another word of the name. Any other stem is kept with characters
// outside \w made '_'.
std::string prefix_of_stem(const std::string& stem) {
  static const std::shared_ptr<const RE2> ensembl = exact(R"(([A-Z])[a-z]+_([a-z]{3})[a-z]*\..+)");
  static const std::shared_ptr<const RE2> binomial = exact(R"(([A-Z])[a-z]{4,}_([a-z]{3})[a-z]*)");
  static const std::shared_ptr<const RE2> phytozome = exact(R"(([A-Z])([a-z]{3})[a-z]*_\d+(?:_.*)?)");
  static const std::shared_ptr<const RE2> code_first = exact(R"(([A-Z][a-z]{1,4}[0-9]?)_.*)");
  std::string genus, epithet, code;
  if (RE2::FullMatch(stem, *ensembl, &genus, &epithet) || RE2::FullMatch(stem, *binomial, &genus, &epithet) ||
      RE2::FullMatch(stem, *phytozome, &genus, &epithet))
    return genus + epithet;
  if (RE2::FullMatch(stem, *code_first, &code)) return code;
  std::string out = stem;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return out;
}

// The species prefix the folder's files already named by the rules share (<Prefix>.pep.fasta, ...), or ""
// when none are or they disagree: a misnamed file is read under the folder's prefix, not one guessed from
// another word of its own name ("Exam_annotation.gff" beside Exam.pep.fasta is Exam.gff3).
std::string folder_prefix(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (auto& n : names) {
    bool ruled = false;
    for (auto& r : rules()) ruled |= std::string(r.kind) != "hmm" && RE2::FullMatch(n, *r.pattern);
    if (ruled) seen.insert(n.substr(0, n.find('.')));
  }
  return seen.size() == 1 ? *seen.begin() : "";
}

}  // namespace

Json naming_rules() {
  Json out = Json::array();
  for (auto& r : rules()) out.push_back({{"kind", r.kind}, {"rule", r.text}, {"example", r.example}});
  return out;
}

std::string shared_rule_prefix(const std::vector<std::string>& names) { return folder_prefix(names); }

Json check_file_name(const std::string& name, const std::string& prefix) {
  for (auto& r : rules())
    if (RE2::FullMatch(name, *r.pattern)) return Json{{"ok", true}, {"kind", r.kind}, {"file", name}};
  for (size_t rank = 0; rank < variants().size(); ++rank) {
    const Variant& v = variants()[rank];
    std::string stem;
    if (RE2::FullMatch(name, *v.pattern, &stem)) {
      const std::string fix = (prefix.empty() ? prefix_of_stem(stem) : prefix) + v.suffix;
      const Rule* r = nullptr;
      for (auto& x : rules())
        if (std::string(x.kind) == v.kind) r = &x;
      return Json{{"ok", false},
                  {"kind", v.kind},
                  {"file", name},
                  {"rule", r->text},
                  {"example", r->example},
                  {"fixable", true},
                  {"fix", fix},
                  {"rank", rank},
                  {"message", "'" + name + "' looks like the " + std::string(v.kind) + " file but breaks the rule " +
                                  r->text + "; rename it to '" + fix + "' (for example " + r->example + ")"},
                  {"message_zh", "“" + name + "”看似" + kind_zh(v.kind) + "文件，但不符合命名规范 " + r->text +
                                     "；请改名为“" + fix + "”（例如 " + r->example + "）"}};
    }
  }
  return Json{
      {"ok", false},
      {"kind", nullptr},
      {"file", name},
      {"fixable", false},
      {"rules", naming_rules()},
      {"message", "'" + name +
                      "' matches no naming rule: expected <Prefix>.genome.fasta, <Prefix>.gff3, "
                      "<Prefix>.cds.fasta, <Prefix>.pep.fasta or <Family>.hmm (e.g. Lchi.genome.fasta, "
                      "SPL.hmm); the prefix is letters, digits or _"},
      {"message_zh", "“" + name +
                         "”不符合任何命名规范：应为 <Prefix>.genome.fasta、<Prefix>.gff3、<Prefix>.cds.fasta、"
                         "<Prefix>.pep.fasta 或 <Family>.hmm（例如 Lchi.genome.fasta、SPL.hmm）；前缀由字母、数字或 _ "
                         "组成"}};
}

Json data_view_plan(const fs::path& folder, const std::string& prefix,
                    const std::function<bool(const fs::path&)>& may_read) {
  std::error_code ec;
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(folder, ec)) {
    std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.' || !e.is_regular_file(ec)) continue;
    if (may_read && !may_read(fs::canonical(e.path(), ec))) continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  const std::string fix_prefix = prefix.empty() ? folder_prefix(names) : prefix;
  struct Pick {
    std::string name;
    int64_t rank;  // -1: the name the rules ask for
  };
  std::map<std::string, Pick> best;  // the name the stages read -> the file read as it
  Json kinds = Json::object(), not_read = Json::array();
  for (auto& name : names) {
    Json c = check_file_name(name, fix_prefix);
    if (!c["kind"].is_string()) {
      not_read.push_back(name);
      continue;
    }
    kinds[name] = c["kind"];
    const std::string as = c["ok"] == true ? name : c.value("fix", name);
    const int64_t rank = c["ok"] == true ? -1 : c.value("rank", int64_t(0));
    auto it = best.find(as);
    if (it == best.end()) {
      best[as] = {name, rank};
    } else if (rank < it->second.rank) {
      not_read.push_back(it->second.name);
      it->second = {name, rank};
    } else {
      not_read.push_back(name);
    }
  }
  Json read = Json::array();
  std::string prefix_read, family_read;  // from the names read: the pep's first, the profile's
  for (auto& [as, pick] : best) {
    const std::string kind = kinds[pick.name], stem = as.substr(0, as.find('.'));
    if (kind == "hmm") family_read = stem;
    if (kind == "pep" || (prefix_read.empty() && kind != "hmm")) prefix_read = stem;
    Json row = {{"name", pick.name}, {"kind", kinds[pick.name]}, {"bytes", fs::file_size(folder / pick.name, ec)}};
    if (as != pick.name) row["read_as"] = as;
    read.push_back(row);
  }
  std::sort(read.begin(), read.end(), [](const Json& a, const Json& b) { return a["name"] < b["name"]; });
  std::sort(not_read.begin(), not_read.end());
  return {{"prefix", prefix.empty() ? prefix_read : prefix},
          {"family", family_read},
          {"read", read},
          {"not_read", not_read}};
}

Status link_data_view(const fs::path& folder, const Json& plan, const fs::path& view) {
  std::error_code ec;
  fs::remove_all(view, ec);  // links only: the files they point to are the folder's
  fs::create_directories(view, ec);
  if (ec)
    return Status(ErrorCode::kInternal,
                  "cannot make the run's data view " + view.filename().string() + ": " + ec.message());
  for (auto& f : plan["read"]) {
    const std::string name = f["name"], as = f.value("read_as", name);
    // Checked again as it is linked: a file the plan listed may have been swapped for a FIFO or device
    // since, and reading one would block the stage or never end.
    const fs::path real = fs::canonical(folder / name, ec);
    if (ec || !fs::is_regular_file(fs::symlink_status(real, ec)))
      return Status(ErrorCode::kInvalidArgument, "'" + name + "' is not a regular file (only regular files are read)");
    fs::create_symlink(real, view / as, ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot link " + name + " into the run's data view: " + ec.message());
  }
  return Status::ok();
}

}  // namespace bioagent
