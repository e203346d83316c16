// Sequence ids, translation and HMMER domain tables (see bioagent/seqio.h); FASTA
// files are read in fasta_io.cpp, GFF3 in gff3.cpp.
#include "bioagent/seqio.h"

#include "genefamily/io/text_lines.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bioagent {

using seqio_detail::for_each_line;

std::string strip_id_prefix(std::string_view id) {
  // Ensembl's typed ids (gene:, transcript:, CDS:) and NCBI's GFF3 ids (gene-, rna-, cds-, exon-).
  static const char* kColon[] = {"gene:", "transcript:", "mRNA:", "CDS:", "cds:", "protein:", "exon:"};
  for (const char* p : kColon)
    if (id.size() > std::strlen(p) && id.substr(0, std::strlen(p)) == p) return std::string(id.substr(std::strlen(p)));
  static const char* kDash[] = {"gene-", "rna-", "cds-", "exon-"};
  for (const char* p : kDash) {
    const size_t n = std::strlen(p);
    if (id.size() > n && id.substr(0, n) == p && std::isalpha(static_cast<unsigned char>(id[n])))
      return std::string(id.substr(n));
  }
  return std::string(id);
}

std::string clean_sequence_id(std::string_view id) {
  if (id.find('|') != std::string_view::npos) {
    std::vector<std::string_view> f;
    for (size_t p = 0;;) {
      size_t bar = id.find('|', p);
      f.push_back(id.substr(p, bar == std::string_view::npos ? std::string_view::npos : bar - p));
      if (bar == std::string_view::npos) break;
      p = bar + 1;
    }
    // Only the styles known: other piped ids (JGI's "jgi|Ostta1115_2|76843|...") stay whole.
    static const RE2 species(R"([A-Z][a-z]+_[a-z]+.*)");
    const bool planttfdb = f.size() >= 3 && RE2::FullMatch(re2::StringPiece(f[1].data(), f[1].size()), species);
    const bool known = planttfdb || f[0] == "sp" || f[0] == "tr" || f[0] == "lcl" || f[0] == "gi";
    if (!known) return strip_id_prefix(id);
    std::string_view pick = f[0];
    if ((f[0] == "sp" || f[0] == "tr" || f[0] == "lcl") && f.size() > 1) pick = f[1];  // UniProt: the accession
    if (f[0] == "gi")  // NCBI's old style: the RefSeq/GenBank id
      for (size_t i = 1; i + 1 < f.size(); ++i)
        if (f[i] == "ref" || f[i] == "gb" || f[i] == "emb" || f[i] == "dbj") pick = f[i + 1];
    if (pick.empty())
      for (auto& x : f)
        if (!x.empty()) {
          pick = x;
          break;
        }
    id = pick;
  }
  // NCBI's cds_from_genomic: "NC_003070.9_cds_NP_171609.1_1" -> the protein it encodes.
  if (size_t at = id.find("_cds_"), last = id.rfind('_'); at != std::string_view::npos && last > at + 5 &&
                                                          last + 1 < id.size() &&
                                                          id.find_first_not_of("0123456789", last + 1) == id.npos)
    id = id.substr(at + 5, last - at - 5);
  return strip_id_prefix(id);
}

std::string header_gene(std::string_view description) {
  // The value after `key` where key starts a word (not "gene_biotype:" or "gene_symbol:").
  auto value_of = [&](std::string_view key, char end) -> std::string {
    for (size_t at = description.find(key); at != std::string_view::npos; at = description.find(key, at + 1)) {
      if (at > 0 && !std::isspace(static_cast<unsigned char>(description[at - 1])) && description[at - 1] != '[')
        continue;
      size_t from = at + key.size(), to = from;
      while (to < description.size() && description[to] != end &&
             !std::isspace(static_cast<unsigned char>(description[to])))
        ++to;
      if (to > from) return strip_id_prefix(description.substr(from, to - from));
    }
    return "";
  };
  for (auto [key, end] :
       {std::pair<std::string_view, char>{"locus_tag=", ']'}, {"gene:", ' '}, {"locus=", ' '}, {"gene=", ']'}})
    if (std::string g = value_of(key, end); !g.empty()) return g;
  return "";
}

std::string isoform_base(const std::string& id, std::string* rule) {
  // RE2 (linear time): ids come from the user's files and may be long.
  struct Pattern {
    RE2 re;
    const char* rule;
  };
  // Accessions with a version (XP_012345.1, NP_..., AAB12345.2) are one protein each: no isoform suffix.
  static const RE2 accession(R"([A-Z]{1,3}_?[0-9]{5,}\.[0-9]+)");
  static const Pattern patterns[] = {
      {RE2(R"((.*[A-Za-z].*)\.t[0-9]+)"), ".t1/.t2"},      {RE2(R"((.*[A-Za-z].*)\.p[0-9]+)"), ".p1/.p2"},
      {RE2(R"((.*[A-Za-z].*)-P[A-Z]{1,2})"), "-PA/-PB"},   {RE2(R"((.*[A-Za-z].*)-R[A-Z]{1,2})"), "-RA/-RB"},
      {RE2(R"((.*[A-Za-z].*)_P[0-9]{3})"), "_P001/_P002"}, {RE2(R"((.*[A-Za-z].*)_T[0-9]{3})"), "_T001/_T002"},
      {RE2(R"((.*[A-Za-z0-9])\.[0-9]{1,3})"), ".1/.2"}};
  if (RE2::FullMatch(id, accession)) return "";
  std::string base;
  for (auto& p : patterns)
    if (RE2::FullMatch(id, p.re, &base)) {
      // ".1/.2" only on an id with a letter (a bare number is not a gene with isoforms)
      if (std::none_of(base.begin(), base.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
        continue;
      if (rule) *rule = p.rule;
      return base;
    }
  return "";
}

std::string canonical_seqid(std::string_view name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* p : {"chromosome", "chrom", "chr", "ch"})
    if (s.size() > std::strlen(p) && s.rfind(p, 0) == 0) {
      s = s.substr(std::strlen(p));
      break;
    }
  while (!s.empty() && (s[0] == '_' || s[0] == '-' || s[0] == '.')) s.erase(0, 1);
  size_t z = 0;
  while (z + 1 < s.size() && s[z] == '0' && std::isdigit(static_cast<unsigned char>(s[z + 1]))) ++z;
  return s.substr(z);
}

Status write_fasta(const std::filesystem::path& path, const std::vector<FastaRecord>& records, size_t width) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (auto& r : records) {
    out << '>' << r.id << (r.description.empty() ? "" : " " + r.description) << '\n';
    for (size_t i = 0; i < r.seq.size(); i += width) out << r.seq.substr(i, width) << '\n';
  }
  out.flush();
  if (!out) return Status(ErrorCode::kInternal, "cannot write " + path.filename().string());
  return Status::ok();
}

int base_index(char c) {
  switch (c) {
    case 'A':
    case 'a':
      return 0;
    case 'C':
    case 'c':
      return 1;
    case 'G':
    case 'g':
      return 2;
    case 'T':
    case 't':
    case 'U':
    case 'u':
      return 3;
    default:
      return -1;
  }
}

std::string translate(std::string_view cds) {
  static const char* kAa = "KNKNTTTTRSRSIIMIQHQHPPPPRRRRLLLLEDEDAAAAGGGGVVVV*Y*YSSSS*CWCLFLF";

  std::string out;
  out.reserve(cds.size() / 3);
  for (size_t i = 0; i + 3 <= cds.size(); i += 3) {
    int a = base_index(cds[i]), b = base_index(cds[i + 1]), c = base_index(cds[i + 2]);
    out += (a < 0 || b < 0 || c < 0) ? 'X' : kAa[a * 16 + b * 4 + c];
  }
  return out;
}

std::string reverse_complement(std::string_view dna) {
  // IUPAC codes and their complements (case kept); anything else becomes N.
  static const std::string kFrom = "ACGTUMRWSYKVHDBNacgtumrwsykvhdbn-";
  static const std::string kTo = "TGCAAKYWSRMBDHVNtgcaakywsrmbdhvn-";
  std::string out(dna.rbegin(), dna.rend());
  for (char& c : out) {
    size_t i = kFrom.find(c);
    c = i == std::string::npos ? 'N' : kTo[i];
  }
  return out;
}

Result<std::vector<DomainHit>> parse_domtblout(std::string_view text, const std::string& name) {
  std::vector<DomainHit> out;
  Status err;
  for_each_line(text, [&](size_t n, std::string_view line) {
    if (line.empty() || line[0] == '#') return true;
    std::vector<std::string> f;
    std::istringstream in{std::string(line)};
    for (std::string w; f.size() < 22 && in >> w;) f.push_back(w);
    if (f.size() < 22) {
      err = parse_error(name + " line " + std::to_string(n) + ": a domain table row has 22 columns, found " +
                        std::to_string(f.size()));
      return false;
    }
    try {
      DomainHit h;
      h.target = f[0];
      h.target_len = std::stoll(f[2]);
      h.query = f[3];
      h.query_len = std::stoll(f[5]);
      h.seq_evalue = std::stod(f[6]);
      h.seq_score = std::stod(f[7]);
      h.dom_index = std::stoi(f[9]);
      h.dom_count = std::stoi(f[10]);
      h.c_evalue = std::stod(f[11]);
      h.i_evalue = std::stod(f[12]);
      h.dom_score = std::stod(f[13]);
      h.hmm_from = std::stoll(f[15]);
      h.hmm_to = std::stoll(f[16]);
      h.ali_from = std::stoll(f[17]);
      h.ali_to = std::stoll(f[18]);
      h.env_from = std::stoll(f[19]);
      h.env_to = std::stoll(f[20]);
      out.push_back(h);
    } catch (const std::exception&) {
      err = parse_error(name + " line " + std::to_string(n) + ": a number column of the domain table is not a number");
      return false;
    }
    return true;
  });
  if (!err.is_ok()) return err;
  return out;
}

}  // namespace bioagent
