// One species folder in every portal's layout: the example genome's genes,
// transcripts, proteins and CDS written again as Phytozome, Ensembl Plants,
// Gramene (maize-style _T001/_P001), NCBI RefSeq, NCBI GenBank, PLAZA, a GTF
// and two labs' own conventions would ship them, crossed combinatorially with
// plain/gzip/bgzip files, five chromosome namings and CDS with or without
// their stop codons. Every combination must give the same genes, positions
// and gene structures as the plain folder, and pass the data check with every
// protein placed; a table of the combinations is printed.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/io/id_match.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

// ---- the plain folder, as the layouts see it ----

struct Tx {
  std::string id;  // as in the plain folder: <gene>.<n>
  int n = 1;
  const GffTranscript* model = nullptr;
  const FastaRecord *pep = nullptr, *cds = nullptr;
};
struct Gene {
  std::string id;  // as in the plain folder
  int k = 0;       // its order in the folder (numbers for accessions)
  const GffGene* model = nullptr;
  std::vector<Tx> tx;
  size_t longest = 0;  // the transcript with the longest CDS
};

struct Source {
  GffModel gff;
  std::vector<FastaRecord> pep, cds;
  std::map<std::string, int64_t> lengths;
  std::vector<Gene> genes;  // with proteins, in file order
};

// ---- one layout's rows ----

struct Out {
  std::ostringstream gff, pep, cds;
  std::map<std::string, std::string> gene_of;  // this layout's gene id -> the plain folder's
  std::map<std::string, std::string> tx_of;    // this layout's protein id -> the plain transcript it is
};

struct Options {
  std::string seqid;  // the chromosome as this combination names it
  bool stops = true;  // CDS end with their stop codon, proteins with '*'
};

std::string attr_row(const std::string& seqid, const char* source, const char* type, int64_t a, int64_t b, char strand,
                     const std::string& phase, const std::string& attrs) {
  std::ostringstream o;
  o << seqid << '\t' << source << '\t' << type << '\t' << a << '\t' << b << "\t.\t" << strand << '\t' << phase << '\t'
    << attrs << '\n';
  return o.str();
}

std::string pad(int n, int width) {
  std::string s = std::to_string(n);
  return std::string(size_t(std::max(0, width - int(s.size()))), '0') + s;
}

std::string seq_of(const FastaRecord* r, bool cds, const Options& o) {
  std::string s = r->seq;
  if (cds && !o.stops && s.size() >= 3 && translate(s.substr(s.size() - 3)) == "*") s.resize(s.size() - 3);
  if (!cds) {
    while (!s.empty() && s.back() == '*') s.pop_back();
    if (o.stops) s += '*';
  }
  return s;
}

void fasta(std::ostream& out, const std::string& header, const std::string& seq) {
  out << '>' << header << '\n';
  for (size_t i = 0; i < seq.size(); i += 60) out << seq.substr(i, 60) << '\n';
}

// A GFF3 transcript's sub-rows: exons, UTRs and CDS, each with the attributes `attrs(type, n)` gives.
void sub_rows(Out& out, const Options& o, const char* source, const GffTranscript& t,
              const std::function<std::string(const char*, size_t)>& attrs) {
  auto rows = [&](const char* type, const std::vector<GffSegment>& segs, bool phase) {
    for (size_t n = 0; n < segs.size(); ++n)
      out.gff << attr_row(o.seqid, source, type, segs[n].start, segs[n].end, t.strand,
                          phase ? std::to_string(segs[n].phase) : ".", attrs(type, n + 1));
  };
  rows("exon", t.exons, false);
  rows("five_prime_UTR", t.utr5, false);
  rows("CDS", t.cds, true);
  rows("three_prime_UTR", t.utr3, false);
}

using GeneWriter = std::function<void(Out&, const Options&, const Gene&)>;

struct Layout {
  std::string name;
  GeneWriter write;
  bool gtf = false, regions = false;  // a GTF; ##sequence-region and region rows (NCBI)
};

void phytozome(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  out.gene_of[g.id + ".v3.0"] = g.id;
  out.gff << attr_row(o.seqid, "phytozomev13", "gene", m.start, m.end, m.strand, ".",
                      "ID=" + g.id + ".v3.0;Name=" + g.id + ";ancestorIdentifier=" + g.id + ".g.v2.1");
  for (auto& t : g.tx) {
    const std::string id = t.id + ".v3.0", pacid = std::to_string(30000000 + g.k * 10 + t.n);
    out.gff << attr_row(o.seqid, "phytozomev13", "mRNA", t.model->start, t.model->end, m.strand, ".",
                        "ID=" + id + ";Name=" + t.id + ";pacid=" + pacid +
                            ";longest=" + (&t == &g.tx[g.longest] ? "1" : "0") + ";Parent=" + g.id + ".v3.0");
    sub_rows(out, o, "phytozomev13", *t.model, [&](const char* type, size_t n) {
      return "ID=" + id + "." + type + "." + std::to_string(n) + ";Parent=" + id + ";pacid=" + pacid;
    });
    const std::string header =
        t.id + " pacid=" + pacid + " transcript=" + t.id + " locus=" + g.id + " ID=" + id + " annot-version=v3.0";
    fasta(out.pep, header, seq_of(t.pep, false, o));
    fasta(out.cds, header, seq_of(t.cds, true, o));
    out.tx_of[t.id] = t.id;
  }
}

// Ensembl Plants (transcript ids as protein ids) and Gramene's maize style (_T001 transcripts, _P001 proteins).
void ensembl_like(Out& out, const Options& o, const Gene& g, bool maize) {
  const GffGene& m = *g.model;
  out.gene_of[g.id] = g.id;
  out.gff << attr_row(o.seqid, "araport11", "gene", m.start, m.end, m.strand, ".",
                      "ID=gene:" + g.id + ";biotype=protein_coding;gene_id=" + g.id + ";logic_name=araport11");
  for (auto& t : g.tx) {
    const std::string tid = maize ? g.id + "_T" + pad(t.n, 3) : t.id, pid = maize ? g.id + "_P" + pad(t.n, 3) : t.id;
    out.gff << attr_row(
        o.seqid, "araport11", "mRNA", t.model->start, t.model->end, m.strand, ".",
        "ID=transcript:" + tid + ";Parent=gene:" + g.id + ";biotype=protein_coding;transcript_id=" + tid);
    sub_rows(out, o, "araport11", *t.model, [&](const char* type, size_t n) {
      if (std::string(type) == "CDS") return "ID=CDS:" + pid + ";Parent=transcript:" + tid + ";protein_id=" + pid;
      if (std::string(type) == "exon")
        return "Parent=transcript:" + tid + ";Name=" + tid + ".exon" + std::to_string(n) + ";rank=" + std::to_string(n);
      return "Parent=transcript:" + tid;
    });
    const std::string where = " chromosome:Exam1:" + o.seqid + ":" + std::to_string(t.model->start) + ":" +
                              std::to_string(t.model->end) + ":" + (m.strand == '+' ? "1" : "-1") + " gene:" + g.id +
                              " transcript:" + tid + " gene_biotype:protein_coding transcript_biotype:protein_coding";
    fasta(out.pep, pid + " pep" + where, seq_of(t.pep, false, o));
    fasta(out.cds, tid + " cds" + where, seq_of(t.cds, true, o));
    out.tx_of[pid] = t.id;
  }
}

void refseq(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  const std::string loc = "LOC" + std::to_string(100000 + g.k), gid = std::to_string(100000 + g.k);
  out.gene_of[loc] = g.id;
  out.gff << attr_row(o.seqid, "Gnomon", "gene", m.start, m.end, m.strand, ".",
                      "ID=gene-" + loc + ";Dbxref=GeneID:" + gid + ";Name=" + loc + ";gbkey=Gene;gene=" + loc +
                          ";gene_biotype=protein_coding");
  for (auto& t : g.tx) {
    const std::string xm = "XM_" + pad(g.k * 10 + t.n, 9) + ".1", xp = "XP_" + pad(g.k * 10 + t.n, 9) + ".1";
    const std::string product = "globin-like protein%2C transcript variant X" + std::to_string(t.n);
    out.gff << attr_row(o.seqid, "Gnomon", "mRNA", t.model->start, t.model->end, m.strand, ".",
                        "ID=rna-" + xm + ";Parent=gene-" + loc + ";Dbxref=GeneID:" + gid + ",GenBank:" + xm +
                            ";Name=" + xm + ";gbkey=mRNA;gene=" + loc +
                            ";model_evidence=Supporting evidence includes similarity to: 2 Proteins;product=" +
                            product + ";transcript_id=" + xm);
    sub_rows(out, o, "Gnomon", *t.model, [&](const char* type, size_t n) {
      if (std::string(type) == "CDS")
        return "ID=cds-" + xp + ";Parent=rna-" + xm + ";Dbxref=GeneID:" + gid + ",GenBank:" + xp + ";Name=" + xp +
               ";gbkey=CDS;gene=" + loc + ";product=globin-like protein isoform X" + std::to_string(t.n) +
               ";protein_id=" + xp;
      return "ID=" + std::string(type == std::string("exon") ? "exon-" : "id-") + xm + "-" + std::to_string(n) +
             ";Parent=rna-" + xm + ";gbkey=mRNA;gene=" + loc + ";transcript_id=" + xm;
    });
    fasta(out.pep, xp + " globin-like protein isoform X" + std::to_string(t.n) + " [Examplea examplea]",
          seq_of(t.pep, false, o));
    fasta(out.cds,
          "lcl|" + o.seqid + "_cds_" + xp + "_" + std::to_string(g.k * 10 + t.n) + " [gene=" + loc +
              "] [db_xref=GeneID:" + gid + "] [protein=globin-like protein isoform X" + std::to_string(t.n) +
              "] [protein_id=" + xp + "] [gbkey=CDS]",
          seq_of(t.cds, true, o));
    out.tx_of[xp] = t.id;
  }
}

void genbank(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  const std::string tag = "EXA_" + pad(g.k * 10, 5);
  out.gene_of[tag] = g.id;
  out.gff << attr_row(o.seqid, "Genbank", "gene", m.start, m.end, m.strand, ".",
                      "ID=gene-" + tag + ";Name=" + tag + ";gbkey=Gene;gene_biotype=protein_coding;locus_tag=" + tag);
  for (auto& t : g.tx) {
    const std::string rna = "gnl|WGS:EXAM|mrna." + t.id, kaf = "KAF" + pad(g.k * 10 + t.n, 7) + ".1";
    out.gff << attr_row(o.seqid, "Genbank", "mRNA", t.model->start, t.model->end, m.strand, ".",
                        "ID=rna-" + rna + ";Parent=gene-" + tag + ";gbkey=mRNA;locus_tag=" + tag +
                            ";orig_protein_id=gnl|WGS:EXAM|" + t.id + "-P;orig_transcript_id=" + rna +
                            ";product=hypothetical protein");
    sub_rows(out, o, "Genbank", *t.model, [&](const char* type, size_t n) {
      if (std::string(type) == "CDS")
        return "ID=cds-" + kaf + ";Parent=rna-" + rna + ";Dbxref=NCBI_GP:" + kaf + ";Name=" + kaf +
               ";gbkey=CDS;locus_tag=" + tag + ";orig_transcript_id=" + rna +
               ";product=hypothetical protein;protein_id=" + kaf;
      return "ID=" + std::string(type) + "-" + rna + "-" + std::to_string(n) + ";Parent=rna-" + rna +
             ";gbkey=mRNA;locus_tag=" + tag;
    });
    fasta(out.pep, kaf + " hypothetical protein " + tag + " [Examplea examplea]", seq_of(t.pep, false, o));
    fasta(out.cds,
          "lcl|" + o.seqid + "_cds_" + kaf + "_" + std::to_string(g.k * 10 + t.n) + " [locus_tag=" + tag +
              "] [protein=hypothetical protein] [protein_id=" + kaf + "] [gbkey=CDS]",
          seq_of(t.cds, true, o));
    out.tx_of[kaf] = t.id;
  }
}

// PLAZA's selected-transcript files: one transcript per gene, named as the annotation names it.
void plaza(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  const Tx& t = g.tx[g.longest];
  out.gene_of[g.id] = g.id;
  out.gff << attr_row(o.seqid, "PLAZA", "gene", m.start, m.end, m.strand, ".", "ID=" + g.id + ";Name=" + g.id);
  out.gff << attr_row(o.seqid, "PLAZA", "mRNA", t.model->start, t.model->end, m.strand, ".",
                      "ID=" + t.id + ";Parent=" + g.id + ";Name=" + t.id);
  sub_rows(out, o, "PLAZA", *t.model, [&](const char*, size_t) { return "Parent=" + t.id; });
  fasta(out.pep, t.id, seq_of(t.pep, false, o));
  fasta(out.cds, t.id, seq_of(t.cds, true, o));
  out.tx_of[t.id] = t.id;
}

// A GTF as gene predictors write it (BRAKER/AUGUSTUS-style .t1 transcripts; proteins named by them).
void gtf(Out& out, const Options& o, const Gene& g) {
  out.gene_of[g.id] = g.id;
  for (auto& t : g.tx) {
    const std::string tid = g.id + ".t" + std::to_string(t.n);
    const std::string attrs = "gene_id \"" + g.id + "\"; transcript_id \"" + tid + "\";";
    out.gff << attr_row(o.seqid, "AUGUSTUS", "transcript", t.model->start, t.model->end, t.model->strand, ".", attrs);
    for (auto& e : t.model->exons)
      out.gff << attr_row(o.seqid, "AUGUSTUS", "exon", e.start, e.end, t.model->strand, ".", attrs);
    for (auto& c : t.model->cds)
      out.gff << attr_row(o.seqid, "AUGUSTUS", "CDS", c.start, c.end, t.model->strand, std::to_string(c.phase), attrs);
    fasta(out.pep, tid, seq_of(t.pep, false, o));
    fasta(out.cds, tid, seq_of(t.cds, true, o));
    out.tx_of[tid] = t.id;
  }
}

// MAKER: -RA transcripts, -PA proteins with AED words in the header.
void maker(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  out.gene_of[g.id] = g.id;
  out.gff << attr_row(o.seqid, "maker", "gene", m.start, m.end, m.strand, ".", "ID=" + g.id + ";Name=" + g.id);
  for (auto& t : g.tx) {
    const char letter = char('A' + t.n - 1);
    const std::string rid = g.id + "-R" + letter, pid = g.id + "-P" + letter;
    out.gff << attr_row(
        o.seqid, "maker", "mRNA", t.model->start, t.model->end, m.strand, ".",
        "ID=" + rid + ";Parent=" + g.id + ";Name=" + rid + ";_AED=0.05;_eAED=0.05;_QI=0|0|0|1|1|1|3|0|250");
    sub_rows(out, o, "maker", *t.model, [&](const char* type, size_t n) {
      return "ID=" + rid + ":" + type + ":" + std::to_string(n) + ";Parent=" + rid;
    });
    fasta(out.pep, pid + " protein AED:0.05 eAED:0.05 QI:0|0|0|1|1|1|3|0|250", seq_of(t.pep, false, o));
    fasta(out.cds, rid + " mRNA AED:0.05 eAED:0.05 QI:0|0|0|1|1|1|3|0|250", seq_of(t.cds, true, o));
    out.tx_of[pid] = t.id;
  }
}

// A lab's own GFF3 with a primary-transcript proteome named by gene.
void lab_by_gene(Out& out, const Options& o, const Gene& g) {
  const GffGene& m = *g.model;
  out.gene_of[g.id] = g.id;
  out.gff << attr_row(o.seqid, "lab", "gene", m.start, m.end, m.strand, ".", "ID=" + g.id);
  for (auto& t : g.tx) {
    out.gff << attr_row(o.seqid, "lab", "mRNA", t.model->start, t.model->end, m.strand, ".",
                        "ID=" + t.id + ";Parent=" + g.id);
    sub_rows(out, o, "lab", *t.model, [&](const char*, size_t) { return "Parent=" + t.id; });
  }
  const Tx& t = g.tx[g.longest];
  fasta(out.pep, g.id, seq_of(t.pep, false, o));
  fasta(out.cds, g.id, seq_of(t.cds, true, o));
  out.tx_of[g.id] = t.id;
}

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> k = {
      {"Phytozome gene_exons", phytozome},
      {"Ensembl Plants", [](Out& out, const Options& o, const Gene& g) { ensembl_like(out, o, g, false); }},
      {"Gramene maize _T/_P", [](Out& out, const Options& o, const Gene& g) { ensembl_like(out, o, g, true); }},
      {"NCBI RefSeq", refseq, false, true},
      {"NCBI GenBank", genbank, false, true},
      {"PLAZA selected", plaza},
      {"GTF (AUGUSTUS .t1)", gtf, true},
      {"MAKER -RA/-PA", maker},
      {"lab, proteins by gene", lab_by_gene},
  };
  return k;
}

// ---- files ----

void write_gz(const fs::path& p, const std::string& text) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
}

// BGZF (bgzip): gzip members of at most 64 KiB with a "BC" extra field giving the member's size, then
// the empty end-of-file member.
void write_bgzf(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  auto le16 = [&](unsigned v) { out.put(char(v & 0xff)), out.put(char((v >> 8) & 0xff)); };
  auto le32 = [&](unsigned long v) { le16(unsigned(v & 0xffff)), le16(unsigned((v >> 16) & 0xffff)); };
  for (size_t at = 0; at < text.size(); at += 60000) {
    const std::string chunk = text.substr(at, 60000);
    std::string packed(compressBound(uLong(chunk.size())) + 64, '\0');
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
    z.avail_in = uInt(chunk.size());
    z.next_out = reinterpret_cast<Bytef*>(packed.data());
    z.avail_out = uInt(packed.size());
    deflate(&z, Z_FINISH);
    packed.resize(z.total_out);
    deflateEnd(&z);
    const unsigned char head[] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0};
    out.write(reinterpret_cast<const char*>(head), sizeof head);
    le16(unsigned(packed.size() + 25));  // the member's size less one
    out.write(packed.data(), std::streamsize(packed.size()));
    le32(crc32(0, reinterpret_cast<const Bytef*>(chunk.data()), uInt(chunk.size())));
    le32(chunk.size());
  }
  const unsigned char eof[] = {0x1f, 0x8b, 8,    4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                               2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0,    0, 0, 0,    0};
  out.write(reinterpret_cast<const char*>(eof), sizeof eof);
}

void write_file(const fs::path& p, const std::string& text, int compression) {
  if (compression == 0) std::ofstream(p) << text;
  if (compression == 1) write_gz(p, text);
  if (compression == 2) write_bgzf(p, text);
}

const char* kCompression[] = {"plain", "gzip", "bgzip"};

// The chromosome "Chr<n>" as each naming writes it.
std::string chromosome_named(const std::string& plain, int naming) {
  const int n = std::stoi(plain.substr(3));
  switch (naming) {
    case 0:
      return "Chr" + std::to_string(n);
    case 1:
      return std::to_string(n);
    case 2:
      return "chr" + pad(n, 2);
    case 3:
      return "Chr_" + std::to_string(n);
    default:
      return "chrom_" + pad(n, 2);
  }
}
const int kNamings = 5;

bool have_tools() { return fs::exists("/usr/bin/hmmemit"); }

// The example genome's folder, generated once (hmmemit).
const fs::path& source_folder() {
  static TempDir dir;
  static const fs::path d = dir.path() / "data";
  return d;
}

const Source& source() {
  static Source s = [] {
    Source src;
    const fs::path& d = source_folder();
    auto r = write_example_genome(d);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    auto gff = read_gff3(d / "Exam.gff3");
    auto pep = read_fasta(d / "Exam.pep.fasta");
    auto cds = read_fasta(d / "Exam.cds.fasta");
    auto len = fasta_lengths(d / "Exam.genome.fasta");
    EXPECT_TRUE(gff && pep && cds && len);
    if (!gff || !pep || !cds || !len) return src;
    src.gff = std::move(*gff), src.pep = std::move(*pep), src.cds = std::move(*cds), src.lengths = *len;
    return src;
  }();
  static bool linked = [] {  // pointers into s, taken once it has its final address
    std::map<std::string, const FastaRecord*> pep, cds;
    for (auto& r : s.pep) pep[r.id] = &r;
    for (auto& r : s.cds) cds[r.id] = &r;
    std::vector<const GffGene*> genes;
    for (auto& [id, g] : s.gff.genes) genes.push_back(&g);
    std::sort(genes.begin(), genes.end(),
              [](auto* a, auto* b) { return std::tie(a->seqid, a->start) < std::tie(b->seqid, b->start); });
    for (const GffGene* m : genes) {
      Gene g{m->id, int(s.genes.size()) + 1, m, {}, 0};
      for (auto& tid : m->transcripts) {
        const GffTranscript& t = s.gff.transcripts.at(tid);
        if (!pep.count(tid) || !cds.count(tid)) continue;
        g.tx.push_back({tid, std::stoi(tid.substr(tid.rfind('.') + 1)), &t, pep[tid], cds[tid]});
      }
      if (g.tx.empty()) continue;
      std::sort(g.tx.begin(), g.tx.end(), [](auto& a, auto& b) { return a.n < b.n; });
      for (size_t i = 1; i < g.tx.size(); ++i)
        if (g.tx[i].model->cds_length() > g.tx[g.longest].model->cds_length()) g.longest = i;
      s.genes.push_back(std::move(g));
    }
    return true;
  }();
  (void)linked;
  return s;
}

// One combination written as a folder: the GFF3 (or GTF), proteins, CDS, the plain genome and the profile.
Out write_combination(const Layout& layout, int compression, int naming, bool stops, const fs::path& d) {
  const Source& s = source();
  Out out;
  if (!layout.gtf) out.gff << "##gff-version 3\n";
  std::map<std::string, std::string> named;  // plain chromosome -> this naming
  for (auto& [c, len] : s.lengths) named[c] = chromosome_named(c, naming);
  if (layout.regions)
    for (auto& [c, len] : s.lengths) out.gff << "##sequence-region " << named[c] << " 1 " << len << '\n';
  std::string last;
  for (auto& g : s.genes) {
    Options o{named[g.model->seqid], stops};
    if (layout.regions && o.seqid != last)
      out.gff << attr_row(o.seqid, "RefSeq", "region", 1, s.lengths.at(g.model->seqid), '+', ".",
                          "ID=" + o.seqid + ":1.." + std::to_string(s.lengths.at(g.model->seqid)) +
                              ";Dbxref=taxon:3702;Name=" + o.seqid + ";genome=chromosome");
    last = o.seqid;
    layout.write(out, o, g);
  }
  fs::create_directories(d);
  const std::string ext = compression ? ".gz" : "";
  write_file(d / ("Exam." + std::string(layout.gtf ? "gtf" : "gff3") + ext), out.gff.str(), compression);
  write_file(d / ("Exam.pep.fasta" + ext), out.pep.str(), compression);
  write_file(d / ("Exam.cds.fasta" + ext), out.cds.str(), compression);
  return out;
}

// What a gene map says of each plain transcript that has a protein: its gene (the plain folder's id),
// position and the structure of the transcript it was led to.
struct Placement {
  std::string gene, chromosome, structure;
  int64_t start = 0, end = 0;
  char strand = '+';
  bool operator==(const Placement& o) const {
    return std::tie(gene, chromosome, structure, start, end, strand) ==
           std::tie(o.gene, o.chromosome, o.structure, o.start, o.end, o.strand);
  }
};

std::string structure_of(const GffModel& gff, const std::string& tid) {
  auto t = gff.transcripts.find(tid);
  if (t == gff.transcripts.end()) return "no transcript " + tid;
  std::ostringstream o;
  for (auto& e : t->second.exons) o << 'e' << e.start << '-' << e.end << ',';
  for (auto& c : t->second.cds) o << 'c' << c.start << '-' << c.end << ':' << c.phase << ',';
  return o.str();
}

std::map<std::string, Placement> placements(const GffModel& gff, const GeneMap& map, const Out* out) {
  std::map<std::string, Placement> by_tx;
  for (auto& r : map.rows) {
    const std::string tx = out ? (out->tx_of.count(r.protein) ? out->tx_of.at(r.protein) : "?" + r.protein) : r.protein;
    const std::string gene =
        out ? (out->gene_of.count(r.locus.gene) ? out->gene_of.at(r.locus.gene) : "?" + r.locus.gene) : r.locus.gene;
    by_tx[tx] = {gene,
                 r.locus.placed() ? canonical_seqid(r.locus.seqid) : "—",
                 structure_of(gff, r.locus.transcript),
                 r.locus.start,
                 r.locus.end,
                 r.locus.strand};
  }
  return by_tx;
}

// Reads a combination's folder as a run does (the portal's names read as the rules' names) and checks it.
struct Outcome {
  GffModel gff;
  GeneMap map;
  Json check;
};
Outcome read_combination(const fs::path& d, const fs::path& view) {
  Outcome o;
  std::error_code ec;
  fs::copy_file(source_folder() / "Exam.genome.fasta", d / "Exam.genome.fasta", ec);
  fs::copy_file(source_folder() / "GLOBIN.hmm", d / "GLOBIN.hmm", ec);
  Json plan = data_view_plan(d, "Exam");
  EXPECT_TRUE(link_data_view(d, plan, view).is_ok());
  auto check = check_species_data(view, "Exam", "GLOBIN", true);
  EXPECT_TRUE(check.is_ok()) << check.status().to_string();
  if (check) o.check = *check;
  auto gff = read_gff3(view / "Exam.gff3");
  auto pep = read_fasta(view / "Exam.pep.fasta");
  auto cds = read_fasta(view / "Exam.cds.fasta");
  EXPECT_TRUE(gff && pep && cds) << plan.dump(2);
  if (!gff || !pep || !cds) return o;
  o.gff = std::move(*gff);
  o.map = build_gene_map(o.gff, *pep, *cds, {});
  return o;
}

}  // namespace

// Every layout x compression x chromosome naming x CDS stops: the same genes, positions and
// structures as the plain folder, every protein placed, every CDS translating to its protein.
TEST(GenomeLayouts, EveryPortalLayoutMapsAsThePlainFolder) {
  if (!have_tools()) GTEST_SKIP() << "hmmer is not installed (scripts/setup.sh installs it)";
  const Source& s = source();
  ASSERT_FALSE(s.genes.empty());
  GeneMap plain_map = build_gene_map(s.gff, s.pep, s.cds, {});
  const auto plain = placements(s.gff, plain_map, nullptr);
  ASSERT_EQ(plain_map.summary()["unplaced"], 0);
  TempDir dir;
  std::ostringstream table;
  table << "layout                   files  chromosome  stops  proteins  placed  same  check  linked by\n";
  size_t combinations = 0;
  for (auto& layout : layouts())
    for (int compression = 0; compression < 3; ++compression)
      for (int naming = 0; naming < kNamings; ++naming)
        for (bool stops : {true, false}) {
          const std::string name = layout.name + "/" + kCompression[compression] + "/" +
                                   chromosome_named("Chr1", naming) + (stops ? "/stops" : "/no stops");
          const fs::path d = dir.path() / std::to_string(combinations++);
          const Out out = write_combination(layout, compression, naming, stops, d / "in");
          const Outcome got = read_combination(d / "in", d / "view");
          const auto mine = placements(got.gff, got.map, &out);
          size_t same = 0, placed = 0;
          for (auto& [tx, p] : mine) {
            placed += p.chromosome != "—";
            // A layout of one protein per gene is compared with the plain folder's transcript of that gene.
            auto want = plain.find(tx);
            if (want == plain.end()) {
              ADD_FAILURE() << name << ": " << tx << " is not a plain transcript";
              continue;
            }
            Placement w = want->second;
            w.chromosome = canonical_seqid(w.chromosome);
            if (p == w)
              ++same;
            else
              ADD_FAILURE() << name << ": " << tx << " mapped to " << p.gene << " " << p.chromosome << ":" << p.start
                            << "-" << p.end << p.strand << " [" << p.structure << "], the plain folder to " << w.gene
                            << " " << w.chromosome << ":" << w.start << "-" << w.end << w.strand << " [" << w.structure
                            << "]";
          }
          EXPECT_EQ(mine.size(), out.tx_of.size()) << name;
          const Json& cons = got.check.value("consistency", Json::object());
          EXPECT_EQ(cons.value("proteins_without_gff_mrna", -1), 0) << name << ": " << cons.dump(2);
          EXPECT_EQ(cons.value("cds_not_translating_to_protein", -1), 0) << name << ": " << cons.dump(2);
          EXPECT_EQ(cons.value("cds_checked", 0), mine.size()) << name;
          EXPECT_TRUE(got.check.value("ok", false)) << name << ": " << got.check["problems"].dump(2);
          std::string key = got.map.evidence.empty() ? "—" : got.map.evidence[0].first;
          char line[400];
          std::snprintf(line, sizeof line, "%-24s %-6s %-11s %-6s %8zu  %6zu  %4zu  %-5s  %s\n", layout.name.c_str(),
                        kCompression[compression], chromosome_named("Chr1", naming).c_str(), stops ? "yes" : "no",
                        mine.size(), placed, same, got.check.value("ok", false) ? "ok" : "FAIL", key.c_str());
          table << line;
        }
  EXPECT_EQ(combinations, layouts().size() * 3 * kNamings * 2);
  std::printf("%s", table.str().c_str());
}

// Phytozome's gene_exons.gff3 as the portal writes it: versioned ids, Names without the version, pacid
// on every row; its proteins named by transcript Name. Every protein is placed, the evidence names the
// key that linked them, and an unmatched protein is reported with three examples and the fix.
TEST(GenomeLayouts, PhytozomeIdsMapAndTheEvidenceIsReported) {
  const std::string gff =
      "##gff-version 3\n"
      "Chr01\tphytozomev13\tgene\t100\t900\t.\t+\t.\tID=Potri.001G000100.v3.0;Name=Potri.001G000100\n"
      "Chr01\tphytozomev13\tmRNA\t100\t900\t.\t+\t.\tID=Potri.001G000100.1.v3.0;Name=Potri.001G000100.1;"
      "pacid=41;longest=1;Parent=Potri.001G000100.v3.0\n"
      "Chr01\tphytozomev13\tCDS\t150\t800\t.\t+\t0\tID=Potri.001G000100.1.v3.0.CDS.1;"
      "Parent=Potri.001G000100.1.v3.0;pacid=41\n"
      "Chr01\tphytozomev13\tmRNA\t100\t700\t.\t+\t.\tID=Potri.001G000100.2.v3.0;Name=Potri.001G000100.2;"
      "pacid=42;longest=0;Parent=Potri.001G000100.v3.0\n"
      "Chr01\tphytozomev13\tCDS\t150\t600\t.\t+\t0\tID=Potri.001G000100.2.v3.0.CDS.1;"
      "Parent=Potri.001G000100.2.v3.0;pacid=42\n";
  auto m = parse_gff3(gff);
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  std::vector<FastaRecord> pep;
  for (int i : {1, 2})
    pep.push_back({"Potri.001G000100." + std::to_string(i),
                   "Potri.001G000100." + std::to_string(i) + " pacid=4" + std::to_string(i) +
                       " transcript=Potri.001G000100." + std::to_string(i) +
                       " locus=Potri.001G000100 ID=Potri.001G000100." + std::to_string(i) + ".v3.0 annot-version=v3.0",
                   "MKV"});
  for (const char* orphan : {"Potri.019G999900.1", "Potri.019G999800.1", "Potri.019G999700.1", "Potri.019G999600.1"})
    pep.push_back({orphan, "", "MKV"});
  GeneMap map = build_gene_map(*m, pep, {}, {});
  EXPECT_EQ(map.rows[0].locus.gene, "Potri.001G000100.v3.0");
  EXPECT_EQ(map.rows[0].locus.transcript, "Potri.001G000100.1.v3.0");
  EXPECT_EQ(map.rows[1].locus.transcript, "Potri.001G000100.2.v3.0");
  EXPECT_EQ(map.rows[1].locus.start, 100);
  Json s = map.summary();
  EXPECT_EQ(s["placed"], 2);
  EXPECT_EQ(s["unplaced"], 4);
  ASSERT_FALSE(s["evidence"].empty());
  EXPECT_EQ(s["evidence"][0]["proteins"], 2) << s.dump(2);
  ASSERT_EQ(s["fix"].size(), 1u) << s.dump(2);
  const std::string fix = s["fix"][0];
  for (const char* shown : {"Potri.019G999900.1", "Potri.019G999800.1", "Potri.019G999700.1", "Potri.001G000100"})
    EXPECT_NE(fix.find(shown), std::string::npos) << shown << " in " << fix;
  EXPECT_EQ(fix.find("Potri.019G999600.1"), std::string::npos) << "three examples, not every one";
}

// Normal forms: type prefixes, versions, isoform letters and case set aside, one step at a time.
TEST(GenomeLayouts, IdentifierNormalForms) {
  EXPECT_EQ(id_forms("Potri.001G000100.1.v3.0").form[2], "potri.001g000100.1");
  EXPECT_EQ(id_forms("AT1G01010.1.Araport11.447").form[2], "at1g01010.1");
  EXPECT_EQ(id_forms("transcript:AT1G01010.1").form[1], "at1g01010.1");
  EXPECT_EQ(id_forms("rna-XM_000011.1").form[1], "xm_000011.1");
  EXPECT_EQ(id_forms("g1234.t1").form[2], "g1234.t1") << "an isoform is not a version";
  EXPECT_EQ(id_forms("Zm00001d027230_P001").form[3], id_forms("Zm00001d027230_T001").form[3]);
  EXPECT_EQ(id_forms("CG1234-PA").form[3], id_forms("CG1234-RA").form[3]);
  EXPECT_EQ(id_forms("g1.p1").form[3], id_forms("g1.t1").form[3]);
  EXPECT_EQ(id_forms("AT1G01010.2").form[4], "at1g01010");
  EXPECT_EQ(id_forms("XP_012345.1").form[4], "") << "a versioned accession is one protein";
}

namespace {

// identify and structure on a folder (read through its data view); the members (gene, chromosome as
// canonical, start, end, strand) and structures (exons, introns, CDS length) keyed by `gene_of`'s plain gene.
std::set<std::string> members_and_structures(const fs::path& data, const fs::path& run_dir,
                                             const std::map<std::string, std::string>& gene_of) {
  auto cfg = genefamily_run_config("Exam", "GLOBIN", data, Json::object());
  EXPECT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  if (!cfg) return {};
  PipelineOptions o;
  o.run_dir = run_dir;
  o.stages = {"identify", "structure"};
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  if (!r) return {};
  std::set<std::string> out;
  auto plain = [&](const std::string& g) { return gene_of.count(g) ? gene_of.at(g) : g; };
  for (auto& st : *r) {
    EXPECT_TRUE(finished_with_outputs(st.state)) << st.stage << ": " << st.message;
    std::ifstream in(fs::path(st.folder) /
                     (st.stage == "identify" ? "members.tsv" : "final/Exam.GLOBIN.gene_structure.tsv"));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
      // members.tsv: name, gene_id, protein_id, seqid, start, end, strand, ...; the member's name (numbered by
      // position) and its placement must not depend on the layout.
      if (st.stage == "identify" && f.size() >= 7)
        out.insert("member " + plain(f[0]) + " " + canonical_seqid(f[3]) + ":" + f[4] + "-" + f[5] + f[6]);
      if (st.stage == "structure" && f.size() >= 6)
        out.insert("structure " + plain(f[0]) + " " + f[3] + " exons, " + f[4] + " introns, CDS " + f[5] + " bp");
    }
  }
  return out;
}

}  // namespace

// The stages themselves on a few combinations (one per group of portals, each file form and naming once):
// identify's members with their positions and structure's exon-intron rows are the plain folder's.
TEST(GenomeLayouts, IdentifyAndStructureGiveThePlainFoldersMembers) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/diamond") || !have_tools())
    GTEST_SKIP() << "hmmer/diamond are not installed (scripts/setup.sh installs them)";
  ASSERT_FALSE(source().genes.empty());  // the example folder is generated
  TempDir dir;
  const auto plain = members_and_structures(source_folder(), dir.path() / "plain_run", {});
  ASSERT_GT(plain.size(), 20u);
  const size_t picks[][4] = {{0, 2, 4, 0}, {3, 1, 2, 1}, {8, 0, 3, 0}};  // layout, compression, naming, no stops
  for (auto& p : picks) {
    const Layout& layout = layouts()[p[0]];
    const fs::path d = dir.path() / layout.name.substr(0, 4);
    const Out out = write_combination(layout, int(p[1]), int(p[2]), p[3] == 0, d / "in");
    (void)read_combination(d / "in", d / "view");
    EXPECT_EQ(members_and_structures(d / "view", d / "run", out.gene_of), plain) << layout.name;
  }
}
