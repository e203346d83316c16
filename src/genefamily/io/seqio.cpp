// FASTA, GFF3, translation and HMMER domain tables (see bioagent/seqio.h).
#include "bioagent/seqio.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

Result<std::string> slurp(const std::filesystem::path& path, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return not_found("no file " + path.string());
  auto size = std::filesystem::file_size(path, ec);
  if (size > max_bytes)
    return resource_exhausted(path.string() + " is " + std::to_string(size) + " bytes, more than the limit of " +
                              std::to_string(max_bytes));
  std::ifstream in(path, std::ios::binary);
  std::string s(size, '\0');
  in.read(s.data(), std::streamsize(size));
  if (!in) return Status(ErrorCode::kInternal, "cannot read " + path.string());
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
  return parse_fasta(*text, path.filename().string());
}

Result<std::map<std::string, int64_t>> fasta_lengths(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot read " + path.string());
  std::map<std::string, int64_t> out;
  std::string line, current;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '>') {
      current = line.substr(
          1, line.find_first_of(" \t") == std::string::npos ? std::string::npos : line.find_first_of(" \t") - 1);
      if (current.empty()) return parse_error(path.filename().string() + " line " + std::to_string(n) + ": empty name");
      if (out.count(current))
        return parse_error(path.filename().string() + ": the sequence name '" + current + "' appears twice");
      out[current] = 0;
    } else if (current.empty()) {
      return parse_error(path.filename().string() + " line " + std::to_string(n) + ": sequence before any header");
    } else {
      out[current] += static_cast<int64_t>(line.size());
    }
  }
  return out;
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

Result<GffModel> parse_gff3(std::string_view text, const std::string& name) {
  GffModel m;
  Status err;
  struct Child {
    std::string type, parent, id, protein_id, name;
    GffSegment seg;
  };
  std::vector<Child> children;
  std::map<std::string, bool> seen_seqid;
  std::map<std::string, size_t> gene_line, transcript_line;  // ids are unique per feature type
  for_each_line(text, [&](size_t n, std::string_view line) {
    if (line.empty() || line[0] == '#') return line.rfind("##FASTA", 0) != 0;  // stop at an embedded FASTA
    std::vector<std::string_view> f;
    size_t pos = 0;
    while (f.size() < 9) {
      size_t tab = line.find('\t', pos);
      f.push_back(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
      if (tab == std::string_view::npos) break;
      pos = tab + 1;
    }
    auto fail = [&](const std::string& why) {
      err = parse_error(name + " line " + std::to_string(n) + ": " + why);
      return false;
    };
    if (f.size() != 9) return fail("expected 9 tab-separated columns, found " + std::to_string(f.size()));
    int64_t start, end;
    if (!to_int(f[3], start) || !to_int(f[4], end) || start < 1 || end < start)
      return fail("start/end must be integers with 1 <= start <= end");
    char strand = f[6].empty() ? '.' : f[6][0];
    if (std::string("+-.?").find(strand) == std::string::npos) return fail("strand must be +, -, . or ?");
    std::map<std::string, std::string> attrs;
    std::string_view a = f[8];
    while (!a.empty()) {
      size_t semi = a.find(';');
      std::string_view kv = a.substr(0, semi);
      size_t eq = kv.find('=');
      if (eq != std::string_view::npos) attrs[std::string(kv.substr(0, eq))] = url_decode(kv.substr(eq + 1));
      if (semi == std::string_view::npos) break;
      a.remove_prefix(semi + 1);
      while (!a.empty() && a[0] == ' ') a.remove_prefix(1);
    }
    std::string seqid(f[0]), type(f[2]);
    if (!seen_seqid[seqid]) {
      seen_seqid[seqid] = true;
      m.seqids.push_back(seqid);
    }
    if (type == "gene") {
      GffGene g{attrs["ID"], seqid, attrs.count("Name") ? attrs["Name"] : attrs["ID"], strand, start, end, {}};
      if (g.id.empty()) return fail("a gene without an ID attribute");
      if (auto [it, fresh] = gene_line.emplace(g.id, n); !fresh)
        return fail("the gene ID '" + g.id + "' was used already by the gene at line " + std::to_string(it->second));
      m.genes[g.id] = g;
    } else if (type == "mRNA" || type == "transcript") {
      GffTranscript t;
      t.id = attrs["ID"];
      t.gene_id = attrs["Parent"].substr(0, attrs["Parent"].find(','));
      t.seqid = seqid;
      t.strand = strand;
      t.start = start;
      t.end = end;
      if (t.id.empty()) return fail("an mRNA without an ID attribute");
      if (auto [it, fresh] = transcript_line.emplace(t.id, n); !fresh)
        return fail("the mRNA ID '" + t.id + "' was used already by the mRNA at line " + std::to_string(it->second));
      m.transcripts[t.id] = t;
    } else if (type == "CDS" || type == "exon" || type == "five_prime_UTR" || type == "three_prime_UTR" ||
               type == "protein" || type == "polypeptide") {
      int64_t phase = 0;
      if (type == "CDS" && !to_int(f[7], phase)) phase = 0;
      std::string parents = attrs["Parent"];
      for (size_t p = 0; p <= parents.size();) {  // a CDS may list several parents
        size_t comma = parents.find(',', p);
        std::string parent = parents.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
        children.push_back(
            {type, parent, attrs["ID"], attrs["protein_id"], attrs["Name"], {start, end, static_cast<int>(phase)}});
        if (comma == std::string::npos) break;
        p = comma + 1;
      }
    }
    return true;
  });
  if (!err.is_ok()) return err;
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
  return m;
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
  std::string out(dna.rbegin(), dna.rend());
  for (char& c : out) {
    switch (c) {
      case 'A':
        c = 'T';
        break;
      case 'T':
        c = 'A';
        break;
      case 'G':
        c = 'C';
        break;
      case 'C':
        c = 'G';
        break;
      case 'a':
        c = 't';
        break;
      case 't':
        c = 'a';
        break;
      case 'g':
        c = 'c';
        break;
      case 'c':
        c = 'g';
        break;
      default:
        c = 'N';
    }
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
