// FASTA, GFF3, translation and HMMER domain tables (see bioagent/seqio.h).
#include "bioagent/seqio.h"

#include <zlib.h>

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

// A file's bytes; gzip-compressed files (any name) are inflated. `max_bytes`
// bounds the inflated size.
Result<std::string> slurp(const std::filesystem::path& path, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return not_found("no file " + path.string());
  gzFile in = gzopen(path.c_str(), "rb");  // reads uncompressed files as they are
  if (!in) return Status(ErrorCode::kInternal, "cannot read " + path.string());
  gzbuffer(in, 1 << 17);
  std::string s;
  char buf[1 << 16];
  int got = 0;
  while ((got = gzread(in, buf, sizeof buf)) > 0) {
    s.append(buf, size_t(got));
    if (s.size() > max_bytes) {
      gzclose(in);
      return resource_exhausted(path.string() + " holds more than the limit of " + std::to_string(max_bytes) +
                                " bytes");
    }
  }
  int err = 0;
  const char* why = gzerror(in, &err);  // a truncated stream ends without an error from gzread
  std::string message = why ? why : "";
  gzclose(in);
  if (got < 0 || (err != Z_OK && err != Z_STREAM_END))
    return parse_error(path.filename().string() + ": not readable gzip data (" + message + ")");
  return s;
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!f(++line_no, line)) return;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

bool to_int(std::string_view s, int64_t& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::string url_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

Result<std::vector<FastaRecord>> parse_fasta(std::string_view text, const std::string& name) {
  std::vector<FastaRecord> out;
  std::map<std::string, size_t> first_line;  // id -> the line of its header: ids are unique
  Status err;
  for_each_line(text, [&](size_t n, std::string_view line) {
    if (line.empty() || line[0] == ';') return true;
    if (line[0] == '>') {
      std::string_view head = line.substr(1);
      size_t sp = head.find_first_of(" \t");
      FastaRecord r;
      r.id = std::string(head.substr(0, sp));
      if (sp != std::string_view::npos) r.description = std::string(head.substr(sp + 1));
      if (r.id.empty()) {
        err = parse_error(name + " line " + std::to_string(n) + ": a FASTA header without a name");
        return false;
      }
      if (auto [it, fresh] = first_line.emplace(r.id, n); !fresh) {
        err = parse_error(name + " line " + std::to_string(n) + ": the id '" + r.id +
                          "' was used already by the record at line " + std::to_string(it->second) +
                          " (ids must be unique)");
        Json reason = Json::object();  // the typed reason (pipeline.h kReasonDetail)
        reason["kind"] = "duplicate_id";
        reason["subject"] = reason["id"] = r.id;
        reason["file"] = std::filesystem::path(name).filename().string();
        reason["line"] = n;
        reason["first_line"] = it->second;
        err.with("reason", reason);
        return false;
      }
      out.push_back(std::move(r));
      return true;
    }
    if (out.empty()) {
      err = parse_error(name + " line " + std::to_string(n) + ": sequence before the first '>' header (not FASTA?)");
      return false;
    }
    for (char c : line) {
      if (c == ' ' || c == '\t') continue;
      if (!std::isalpha(static_cast<unsigned char>(c)) && c != '*' && c != '-' && c != '.') {
        err = parse_error(name + " line " + std::to_string(n) + ": unexpected character '" + std::string(1, c) +
                          "' in sequence " + out.back().id);
        return false;
      }
      out.back().seq += c;
    }
    return true;
  });
  if (!err.is_ok()) return err;
  return out;
}

Result<std::vector<FastaRecord>> read_fasta(const std::filesystem::path& path, size_t max_bytes) {
  auto text = slurp(path, max_bytes);
  if (!text) return text.status();
  auto records = parse_fasta(*text, path.filename().string());
  if (!records) return records;
  std::map<std::string, std::string> seen;  // clean id -> the header it came from
  for (auto& r : *records) {
    std::string id = clean_sequence_id(r.id);
    if (id == r.id) {
      if (auto [it, fresh] = seen.emplace(id, r.id); !fresh && it->second != r.id)
        return parse_error(path.filename().string() + ": the ids '" + it->second + "' and '" + r.id + "' both name '" +
                           id + "' (ids must be unique)");
      continue;
    }
    if (auto [it, fresh] = seen.emplace(id, r.id); !fresh)
      return parse_error(path.filename().string() + ": the ids '" + it->second + "' and '" + r.id + "' both name '" +
                         id + "' (ids must be unique)");
    r.description = r.description.empty() ? r.id : r.id + " " + r.description;  // the original id is kept
    r.id = std::move(id);
  }
  return records;
}

Result<std::map<std::string, int64_t>> fasta_lengths(const std::filesystem::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");  // plain or gzip
  if (!in) return not_found("cannot read " + path.string());
  gzbuffer(in, 1 << 17);
  std::map<std::string, int64_t> out;
  std::string line, current;
  size_t n = 0;
  std::vector<char> buf(1 << 16);
  bool continued = false;  // the previous gzgets stopped inside a long line
  Status err;
  while (gzgets(in, buf.data(), int(buf.size()))) {
    std::string_view chunk(buf.data());
    const bool ends = !chunk.empty() && chunk.back() == '\n';
    if (ends) chunk.remove_suffix(1);
    if (!chunk.empty() && chunk.back() == '\r') chunk.remove_suffix(1);
    if (!continued) ++n;
    if (!continued && !chunk.empty() && chunk[0] == '>') {
      current = std::string(chunk.substr(1, chunk.find_first_of(" \t") == std::string_view::npos
                                                ? std::string_view::npos
                                                : chunk.find_first_of(" \t") - 1));
      if (current.empty()) {
        err = parse_error(path.filename().string() + " line " + std::to_string(n) + ": empty name");
        break;
      }
      if (out.count(current)) {
        err = parse_error(path.filename().string() + ": the sequence name '" + current + "' appears twice");
        break;
      }
      out[current] = 0;
    } else if (!chunk.empty()) {
      if (current.empty()) {
        err = parse_error(path.filename().string() + " line " + std::to_string(n) + ": sequence before any header");
        break;
      }
      out[current] += static_cast<int64_t>(chunk.size());
    }
    continued = !ends;
  }
  int z = Z_OK;
  const char* why = gzerror(in, &z);
  if (err.is_ok() && z != Z_OK && z != Z_STREAM_END)
    err = parse_error(path.filename().string() + ": not readable gzip data (" + std::string(why ? why : "") + ")");
  gzclose(in);
  if (!err.is_ok()) return err;
  return out;
}

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
  if (!out) return Status(ErrorCode::kInternal, "cannot write " + path.string());
  return Status::ok();
}

int64_t GffTranscript::cds_length() const {
  int64_t n = 0;
  for (auto& c : cds) n += c.end - c.start + 1;
  return n;
}

std::string GffModel::transcript_of(const std::string& id) const {
  if (transcripts.count(id)) return id;
  auto it = protein_to_transcript.find(id);
  return it == protein_to_transcript.end() ? "" : it->second;
}

namespace {

// GFF3's "key=value;..." (URL-decoded) or GTF's 'key "value"; ...'.
std::map<std::string, std::string> parse_attributes(std::string_view a) {
  std::map<std::string, std::string> attrs;
  while (!a.empty()) {
    size_t semi = a.find(';');
    std::string_view kv = a.substr(0, semi);
    while (!kv.empty() && kv[0] == ' ') kv.remove_prefix(1);
    size_t eq = kv.find('='), sp = kv.find(' ');
    if (eq != std::string_view::npos && (sp == std::string_view::npos || eq < sp)) {
      attrs[std::string(kv.substr(0, eq))] = url_decode(kv.substr(eq + 1));
    } else if (sp != std::string_view::npos) {  // GTF
      std::string_view v = kv.substr(sp + 1);
      while (!v.empty() && (v.front() == ' ' || v.front() == '"')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == ' ' || v.back() == '"')) v.remove_suffix(1);
      attrs.emplace(std::string(kv.substr(0, sp)), std::string(v));  // the first of repeated keys
    }
    if (semi == std::string_view::npos) break;
    a.remove_prefix(semi + 1);
  }
  return attrs;
}

// "gene:A,gene:B" -> "A,B".
std::string strip_id_list(const std::string& ids) {
  std::string out;
  for (size_t p = 0; p <= ids.size();) {
    size_t comma = ids.find(',', p);
    out += (out.empty() ? "" : ",") + strip_id_prefix(ids.substr(p, comma == std::string::npos ? comma : comma - p));
    if (comma == std::string::npos) break;
    p = comma + 1;
  }
  return out;
}

// A GTF line: its transcript and gene grow to cover it (GTF may have no
// gene/transcript lines; their extent is that of their exons and CDS).
struct GtfState {
  std::set<std::string> explicit_extent;  // genes and transcripts with a line of their own
};
void gtf_line(GffModel& m, GtfState& st, const std::string& type, const std::string& seqid, char strand, int64_t start,
              int64_t end, std::map<std::string, std::string>& attrs) {
  const std::string tid = strip_id_prefix(attrs["transcript_id"]), gid = strip_id_prefix(attrs["gene_id"]);
  auto grow = [&](auto& x, const std::string& key, const char* kind, bool own) {
    const std::string tag = std::string(kind) + ":" + key;
    if (x.id.empty()) x.id = key, x.seqid = seqid, x.strand = strand, x.start = start, x.end = end;
    if (own) {
      x.start = start, x.end = end;
      st.explicit_extent.insert(tag);
    } else if (!st.explicit_extent.count(tag)) {
      x.start = std::min(x.start, start), x.end = std::max(x.end, end);
    }
  };
  if (!gid.empty()) {
    GffGene& g = m.genes[gid];
    if (g.id.empty()) g.name = attrs.count("gene_name") ? attrs["gene_name"] : gid;
    grow(g, gid, "gene", type == "gene");
  }
  if (type == "gene" || tid.empty()) return;
  GffTranscript& t = m.transcripts[tid];
  if (t.id.empty()) t.gene_id = gid;
  grow(t, tid, "transcript", type == "transcript" || type == "mRNA");
  if (!attrs["protein_id"].empty()) m.protein_to_transcript[strip_id_prefix(attrs["protein_id"])] = tid;
}

// One feature line's columns, checked.
struct GffLine {
  size_t n = 0;
  std::string seqid, type;
  char strand = '.';
  int64_t start = 0, end = 0, phase = 0;  // phase: a CDS's, else 0
  std::map<std::string, std::string> attrs;
};

// The state of one GFF3/GTF parse: the model so far, the child features (given
// to their transcripts once every line is read), the ids seen and where.
struct GffParser {
  struct Child {
    std::string type, parent, id, protein_id, name;
    GffSegment seg;
  };
  explicit GffParser(const std::string& file_name) : name(file_name) {}
  const std::string& name;
  GffModel m;
  std::vector<Child> children;
  std::map<std::string, bool> seen_seqid;
  std::map<std::string, size_t> gene_line, transcript_line;  // ids are unique per feature type
  GtfState gtf;
  Status err;

  bool fail(size_t n, const std::string& why) {
    err = parse_error(name + " line " + std::to_string(n) + ": " + why);
    return false;
  }

  // One line; false stops the parse (at an embedded FASTA, or with err set).
  bool line(size_t n, std::string_view text) {
    if (text.empty() || text[0] == '#') return text.rfind("##FASTA", 0) != 0;  // stop at an embedded FASTA
    std::vector<std::string_view> f;
    size_t pos = 0;
    while (f.size() < 9) {
      size_t tab = text.find('\t', pos);
      f.push_back(text.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
      if (tab == std::string_view::npos) break;
      pos = tab + 1;
    }
    if (f.size() != 9) return fail(n, "expected 9 tab-separated columns, found " + std::to_string(f.size()));
    GffLine l;
    l.n = n;
    l.seqid = f[0];
    l.type = f[2];
    if (!to_int(f[3], l.start) || !to_int(f[4], l.end) || l.start < 1 || l.end < l.start)
      return fail(n, "start/end must be integers with 1 <= start <= end");
    l.strand = f[6].empty() ? '.' : f[6][0];
    if (std::string("+-.?").find(l.strand) == std::string::npos) return fail(n, "strand must be +, -, . or ?");
    if (l.type == "CDS" && !to_int(f[7], l.phase)) l.phase = 0;
    l.attrs = parse_attributes(f[8]);
    if (l.attrs.count("transcript_id") && !l.attrs.count("ID") && !l.attrs.count("Parent")) {  // a GTF line
      gtf_feature(l);
      return true;
    }
    return feature(l);
  }

  void gtf_feature(GffLine& l) {
    const std::string& type = l.type;
    gtf_line(m, gtf, type, l.seqid, l.strand, l.start, l.end, l.attrs);
    if (type == "CDS" || type == "exon" || type == "five_prime_utr" || type == "three_prime_utr" || type == "5UTR" ||
        type == "3UTR" || type == "UTR") {
      std::string t = type == "5UTR" || type == "five_prime_utr"    ? "five_prime_UTR"
                      : type == "3UTR" || type == "three_prime_utr" ? "three_prime_UTR"
                                                                    : type;
      if (t != "UTR")
        children.push_back({t,
                            strip_id_prefix(l.attrs["transcript_id"]),
                            "",
                            strip_id_prefix(l.attrs["protein_id"]),
                            "",
                            {l.start, l.end, int(l.phase)}});
    }
  }

  // A GFF3 gene, mRNA or child feature line.
  bool feature(GffLine& l) {
    auto& attrs = l.attrs;
    const std::string& type = l.type;
    for (const char* k : {"ID", "Parent", "protein_id"})
      if (attrs.count(k)) attrs[k] = strip_id_list(attrs[k]);
    if (!seen_seqid[l.seqid]) {
      seen_seqid[l.seqid] = true;
      m.seqids.push_back(l.seqid);
    }
    if (type == "gene") {
      GffGene g{attrs["ID"], l.seqid, attrs.count("Name") ? attrs["Name"] : attrs["ID"], l.strand, l.start, l.end, {}};
      if (g.id.empty()) return fail(l.n, "a gene without an ID attribute");
      if (auto [it, fresh] = gene_line.emplace(g.id, l.n); !fresh)
        return fail(l.n,
                    "the gene ID '" + g.id + "' was used already by the gene at line " + std::to_string(it->second));
      m.genes[g.id] = g;
    } else if (type == "mRNA" || type == "transcript") {
      GffTranscript t;
      t.id = attrs["ID"];
      t.gene_id = attrs["Parent"].substr(0, attrs["Parent"].find(','));
      t.seqid = l.seqid;
      t.strand = l.strand;
      t.start = l.start;
      t.end = l.end;
      if (t.id.empty()) return fail(l.n, "an mRNA without an ID attribute");
      if (auto [it, fresh] = transcript_line.emplace(t.id, l.n); !fresh)
        return fail(l.n,
                    "the mRNA ID '" + t.id + "' was used already by the mRNA at line " + std::to_string(it->second));
      m.transcripts[t.id] = t;
    } else if (type == "CDS" || type == "exon" || type == "five_prime_UTR" || type == "three_prime_UTR" ||
               type == "protein" || type == "polypeptide") {
      std::string parents = attrs["Parent"];
      for (size_t p = 0; p <= parents.size();) {  // a CDS may list several parents
        size_t comma = parents.find(',', p);
        std::string parent = parents.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
        children.push_back({type,
                            parent,
                            attrs["ID"],
                            attrs["protein_id"],
                            attrs["Name"],
                            {l.start, l.end, static_cast<int>(l.phase)}});
        if (comma == std::string::npos) break;
        p = comma + 1;
      }
    }
    return true;
  }

  // The children given to their transcripts (sorted by start), transcripts to their genes.
  void link() {
    for (auto& c : children) {
      auto it = m.transcripts.find(c.parent);
      if (it == m.transcripts.end()) continue;  // a feature of a non-coding parent
      GffTranscript& t = it->second;
      if (c.type == "CDS")
        t.cds.push_back(c.seg);
      else if (c.type == "exon")
        t.exons.push_back(c.seg);
      else if (c.type == "five_prime_UTR")
        t.utr5.push_back(c.seg);
      else if (c.type == "three_prime_UTR")
        t.utr3.push_back(c.seg);
      for (const std::string* alias : {&c.id, &c.protein_id, &c.name})
        if (!alias->empty() && (c.type == "CDS" || c.type == "protein" || c.type == "polypeptide"))
          m.protein_to_transcript[*alias] = t.id;
    }
    for (auto& [id, t] : m.transcripts) {
      for (auto* v : {&t.exons, &t.cds, &t.utr5, &t.utr3})
        std::sort(v->begin(), v->end(), [](auto& a, auto& b) { return a.start < b.start; });
      if (auto g = m.genes.find(t.gene_id); g != m.genes.end()) g->second.transcripts.push_back(id);
    }
  }
};

}  // namespace

Result<GffModel> parse_gff3(std::string_view text, const std::string& name) {
  GffParser parser(name);
  for_each_line(text, [&](size_t n, std::string_view line) { return parser.line(n, line); });
  if (!parser.err.is_ok()) return parser.err;
  parser.link();
  return std::move(parser.m);
}

Result<GffModel> read_gff3(const std::filesystem::path& path) {
  auto text = slurp(path, size_t(4) << 30);
  if (!text) return text.status();
  return parse_gff3(*text, path.filename().string());
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
