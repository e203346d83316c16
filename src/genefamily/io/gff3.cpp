// GFF3 and GTF gene models (see bioagent/seqio.h): genes, transcripts and their
// exons, CDS and UTRs, and the protein ids that name a transcript. Read line by
// line within InputLimits (line length, ids, attributes, Parent lists, feature lines).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bioagent/seqio.h"
#include "genefamily/io/input_stream.h"
#include "genefamily/io/text_lines.h"

namespace bioagent {

using seqio_detail::InputStream;
using seqio_detail::LineReader;
using seqio_detail::quote_byte;
using seqio_detail::to_int;

namespace {

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

// Whether an attribute names the record (its identifiers, as opposed to its Parent, its
// coordinates' Target or free text): ID, Name, Alias, the locus tags, Phytozome's pacid,
// Dbxref, NCBI's gene symbol and original ids, and every key ending in "id".
bool names_the_record(const std::string& key) {
  static const std::set<std::string> kNames = {
      "ID",     "Name", "Alias",     "locus_tag",       "old_locus_tag",    "pacid",
      "Dbxref", "gene", "gene_name", "transcript_name", "protein_source_id"};
  if (kNames.count(key)) return true;
  if (key == "Parent" || key == "Target" || key == "derives_from") return false;
  std::string low;
  for (char c : key) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.size() > 2 && low.compare(low.size() - 2, 2, "id") == 0;
}

// Adds `id` once (GTF repeats a transcript's attributes on each of its rows).
void add_identifier(std::vector<GffIdentifier>& ids, GffIdentifier id) {
  for (auto& x : ids)
    if (x.key == id.key && x.value == id.value) return;
  ids.push_back(std::move(id));
}

// The identifiers a row's attributes carry, as written (values split at commas; a Dbxref's
// "GeneID:123" is keyed "Dbxref:GeneID"); `row` ("CDS ", "protein ") names a child row's keys.
// `keep(key)` chooses among the attributes (GTF rows carry their gene's and transcript's).
template <typename Keep>
void collect_identifiers(const std::map<std::string, std::string>& attrs, const std::string& row,
                         std::vector<GffIdentifier>& out, Keep&& keep) {
  for (auto& [key, value] : attrs) {
    if (!names_the_record(key) || !keep(key)) continue;
    for (size_t p = 0; p <= value.size();) {
      size_t comma = value.find(',', p);
      std::string v = value.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
      p = comma == std::string::npos ? value.size() + 1 : comma + 1;
      if (v.empty() || v.size() > 200 || v.find_first_of(" \t") != std::string::npos) continue;
      size_t colon = v.find(':');
      if (key == "Dbxref" && colon != std::string::npos && colon + 1 < v.size())
        add_identifier(out, {row + "Dbxref:" + v.substr(0, colon), v.substr(colon + 1)});
      else
        add_identifier(out, {row + key, v});
    }
  }
}

// The largest end a sequence is stated to have (##sequence-region, region rows).
void note_length(GffModel& m, const std::string& seqid, int64_t end) {
  int64_t& len = m.sequence_lengths[seqid];
  len = std::max(len, end);
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
  auto of_gene = [](const std::string& key) { return key.rfind("gene", 0) == 0; };
  if (!gid.empty()) {
    GffGene& g = m.genes[gid];
    if (g.id.empty()) g.name = attrs.count("gene_name") ? attrs["gene_name"] : gid;
    grow(g, gid, "gene", type == "gene");
    collect_identifiers(attrs, "", g.identifiers, of_gene);
  }
  if (type == "gene" || tid.empty()) return;
  GffTranscript& t = m.transcripts[tid];
  if (t.id.empty()) t.gene_id = gid;
  grow(t, tid, "transcript", type == "transcript" || type == "mRNA");
  collect_identifiers(attrs, type == "CDS" ? "CDS " : "", t.identifiers,
                      [&](const std::string& k) { return !of_gene(k); });
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
    std::vector<GffIdentifier> identifiers;  // a CDS or protein row's, lent to its transcript
  };
  explicit GffParser(const std::string& file_name) : name(file_name) {}
  const std::string& name;
  GffModel m;
  std::vector<Child> children;
  std::map<std::string, bool> seen_seqid;
  std::map<std::string, size_t> gene_line, transcript_line;  // ids are unique per feature type
  GtfState gtf;
  Status err;

  const InputLimits* limits = nullptr;
  int64_t features = 0;

  bool fail(size_t n, const std::string& why, const std::string& why_zh = "") {
    err = bad_input(name, n, why, why_zh);
    return false;
  }
  bool over(const char* key, const std::string& what) {
    err = input_limit_exceeded(*limits, key, name, what);
    return false;
  }

  // Column 9's attributes counted (';'-separated, empty ones aside) before any is stored.
  static int64_t count_attributes(std::string_view a) {
    int64_t count = 0;
    for (size_t p = 0; p < a.size();) {
      const size_t semi = std::min(a.find(';', p), a.size());
      count += a.substr(p, semi - p).find_first_not_of(' ') != std::string_view::npos;
      p = semi + 1;
    }
    return count;
  }

  // An id of column 1 or of an id attribute: at most id_bytes, UTF-8 text.
  bool check_id(size_t n, const std::string& what, std::string_view id) {
    if (int64_t(id.size()) > limits->id_bytes)
      return over("id_bytes", "line " + std::to_string(n) + ": the " + what + " is longer than " +
                                  std::to_string(limits->id_bytes) + " bytes");
    if (size_t at = invalid_utf8_at(id); at != std::string_view::npos)
      return fail(n,
                  "the " + what + " holds the byte " + quote_byte(static_cast<unsigned char>(id[at])) +
                      ", which is not UTF-8 text (ids must be text)",
                  what + " 中含有非 UTF-8 字节 " + quote_byte(static_cast<unsigned char>(id[at])));
    return true;
  }

  // The ids a line names: each at most id_bytes of UTF-8 text, a Parent list at most `parents` long.
  bool check_ids(const GffLine& l) {
    if (!check_id(l.n, "sequence name", l.seqid)) return false;
    for (const char* k : {"ID", "Parent", "Name", "protein_id", "transcript_id", "gene_id", "gene_name"}) {
      auto it = l.attrs.find(k);
      if (it == l.attrs.end()) continue;
      const std::string& v = it->second;
      if (std::string_view(k) != "Parent") {
        if (!check_id(l.n, k, v)) return false;
        continue;
      }
      const int64_t ids = 1 + int64_t(std::count(v.begin(), v.end(), ','));
      if (ids > limits->parents)
        return over("parents", "line " + std::to_string(l.n) + ": the Parent attribute lists " + std::to_string(ids) +
                                   " ids, more than " + std::to_string(limits->parents));
      for (size_t p = 0; p <= v.size();) {
        const size_t comma = std::min(v.find(',', p), v.size());
        if (!check_id(l.n, "Parent id", std::string_view(v).substr(p, comma - p))) return false;
        p = comma + 1;
      }
    }
    return true;
  }

  // One line; false stops the parse (at an embedded FASTA, or with err set).
  bool line(size_t n, std::string_view text) {
    if (text.rfind("##sequence-region", 0) == 0) sequence_region(text);
    if (text.empty() || text[0] == '#') return text.rfind("##FASTA", 0) != 0;  // stop at an embedded FASTA

    if (++features > limits->features)
      return over("features", "more than " + std::to_string(limits->features) + " feature lines");
    std::vector<std::string_view> f;
    size_t pos = 0;
    while (f.size() < 9) {
      size_t tab = text.find('\t', pos);
      f.push_back(text.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
      if (tab == std::string_view::npos) break;
      pos = tab + 1;
    }
    if (f.size() != 9)
      return fail(n, "expected 9 tab-separated columns, found " + std::to_string(f.size()),
                  "应有 9 列（以制表符分隔），实际为 " + std::to_string(f.size()) + " 列");
    GffLine l;
    l.n = n;
    l.seqid = f[0];
    l.type = f[2];
    if (!to_int(f[3], l.start) || !to_int(f[4], l.end) || l.start < 1 || l.end < l.start)
      return fail(n, "start/end must be integers with 1 <= start <= end", "起止位置须为整数且 1 <= 起点 <= 终点");
    l.strand = f[6].empty() ? '.' : f[6][0];
    if (std::string("+-.?").find(l.strand) == std::string::npos)
      return fail(n, "strand must be +, -, . or ?", "链方向须为 +、-、. 或 ?");
    if (l.type == "CDS" && !to_int(f[7], l.phase)) l.phase = 0;
    if (count_attributes(f[8]) > limits->attributes)
      return over("attributes",
                  "line " + std::to_string(n) + " has more than " + std::to_string(limits->attributes) + " attributes");
    l.attrs = parse_attributes(f[8]);
    if (!check_ids(l)) return false;
    if (l.attrs.count("transcript_id") && !l.attrs.count("ID") && !l.attrs.count("Parent")) {  // a GTF line
      gtf_feature(l);
      return true;
    }
    return feature(l);
  }

  // "##sequence-region seqid start end": the sequence's length (a malformed line is left out).
  void sequence_region(std::string_view text) {
    std::string_view f[4];
    size_t n = 0;
    for (size_t i = 0; n < 4 && i < text.size();) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
      size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
      if (j > i) f[n++] = text.substr(i, j - i);
      i = j;
    }
    int64_t start = 0, end = 0;
    if (n == 4 && to_int(f[2], start) && to_int(f[3], end) && end >= start) note_length(m, std::string(f[1]), end);
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
                            {l.start, l.end, int(l.phase)},
                            {}});
    }
  }

  // A GFF3 gene, mRNA or child feature line.
  bool feature(GffLine& l) {
    auto& attrs = l.attrs;
    const std::string& type = l.type;
    std::vector<GffIdentifier> ids;  // as written, before the type prefixes are dropped
    const bool child = type == "CDS" || type == "protein" || type == "polypeptide";
    if (type == "gene" || type == "mRNA" || type == "transcript" || child)
      collect_identifiers(attrs, child ? (type == "CDS" ? "CDS " : "protein ") : "", ids,
                          [](const std::string&) { return true; });
    for (const char* k : {"ID", "Parent", "protein_id"})
      if (attrs.count(k)) attrs[k] = strip_id_list(attrs[k]);
    if (!seen_seqid[l.seqid]) {
      seen_seqid[l.seqid] = true;
      m.seqids.push_back(l.seqid);
    }
    if (type == "region" || type == "chromosome" || type == "contig" || type == "scaffold" || type == "supercontig")
      note_length(m, l.seqid, l.end);
    if (type == "gene") {
      GffGene g{attrs["ID"], l.seqid,       attrs.count("Name") ? attrs["Name"] : attrs["ID"], l.strand, l.start, l.end,
                {},          std::move(ids)};
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
      t.identifiers = std::move(ids);
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
                            {l.start, l.end, static_cast<int>(l.phase)},
                            ids});
        if (comma == std::string::npos) break;
        p = comma + 1;
      }
    }
    return true;
  }

  // The children given to their transcripts (sorted by start), transcripts to their genes.
  void link() {
    for (auto& c : children)  // a CDS whose Parent is a gene: that gene's coding transcript, named as the gene
      if (c.type == "CDS" && !m.transcripts.count(c.parent))
        if (auto g = m.genes.find(c.parent); g != m.genes.end()) {
          GffTranscript t;
          t.id = t.gene_id = c.parent;
          t.seqid = g->second.seqid, t.strand = g->second.strand, t.start = g->second.start, t.end = g->second.end;
          m.transcripts[c.parent] = t;
        }
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
      for (auto& id : c.identifiers) add_identifier(t.identifiers, id);
    }
    for (auto& [id, t] : m.transcripts) {
      for (auto* v : {&t.exons, &t.cds, &t.utr5, &t.utr3})
        std::sort(v->begin(), v->end(), [](auto& a, auto& b) { return a.start < b.start; });
      if (auto g = m.genes.find(t.gene_id); g != m.genes.end()) g->second.transcripts.push_back(id);
    }
  }
};

Result<GffModel> parse_lines(LineReader& lines, const InputLimits& limits) {
  GffParser parser(lines.stream().name());
  parser.limits = &limits;
  for (std::string_view line; lines.next(line);)
    if (!parser.line(lines.line_number(), line)) break;
  if (!parser.err.is_ok()) return parser.err;
  if (!lines.status().is_ok()) return lines.status();
  parser.link();
  return std::move(parser.m);
}

}  // namespace

Result<GffModel> parse_gff3(std::string_view text, const std::string& name) {
  const InputLimits limits;
  auto in = InputStream::of_text(text, name, limits);
  LineReader lines(*in);
  return parse_lines(lines, limits);
}

Result<GffModel> read_gff3(const std::filesystem::path& path, const InputLimits& limits) {
  auto in = InputStream::open(path, path.filename().string(), limits);
  if (!in) return in.status();
  LineReader lines(**in);
  return parse_lines(lines, limits);
}

}  // namespace bioagent
