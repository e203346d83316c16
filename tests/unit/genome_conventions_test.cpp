// Real file conventions of plant genome folders (Phytozome, Ensembl Plants,
// NCBI RefSeq, PlantTFDB, a lab's own annotation), each on a small made-up
// file: gzip inputs, header styles, isoform suffixes, GFF3 and GTF, CDS with
// and without stop codons, chromosome names that differ between the GFF3 and
// the genome, proteins named by transcript, CDS, protein_id or gene; the gene
// map the check stage writes; and a folder mixing them all through the check
// and identify stages.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/io/gene_map.h"
#include "genefamily/io/genome_index.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

void write_gz(const fs::path& p, const std::string& text) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
}

const GeneMapRow* row_of(const GeneMap& m, const std::string& protein) {
  for (auto& r : m.rows)
    if (r.protein == protein) return &r;
  return nullptr;
}

}  // namespace

TEST(GenomeConventions, HeaderIdsAreCleaned) {
  EXPECT_EQ(clean_sequence_id("AT1G02065.1|Arabidopsis_thaliana|SBP|ath"), "AT1G02065.1");  // PlantTFDB
  EXPECT_EQ(clean_sequence_id("sp|Q9S840|SPL1_ARATH"), "Q9S840");                           // UniProt
  EXPECT_EQ(clean_sequence_id("gi|15218925|ref|NP_171609.1|"), "NP_171609.1");              // NCBI, old style
  EXPECT_EQ(clean_sequence_id("lcl|NC_003070.9_cds_NP_171609.1_1"), "NP_171609.1");         // NCBI cds_from_genomic
  EXPECT_EQ(clean_sequence_id("transcript:AT1G01010.1"), "AT1G01010.1");                    // Ensembl
  EXPECT_EQ(clean_sequence_id("gene:AT1G01010"), "AT1G01010");
  EXPECT_EQ(clean_sequence_id("rna-XM_010437890.2"), "XM_010437890.2");  // NCBI GFF3 ids
  EXPECT_EQ(clean_sequence_id("Lchi01g000010.1"), "Lchi01g000010.1");    // Phytozome: as it is
  EXPECT_EQ(clean_sequence_id("gene-1"), "gene-1") << "a lab's own id that only looks like a prefix";
  EXPECT_EQ(clean_sequence_id("jgi|Ostta1115_2|76843|e_gw1.24.660.1"), "jgi|Ostta1115_2|76843|e_gw1.24.660.1")
      << "an unknown piped style stays whole";
  // read_fasta cleans; the original word stays in the description.
  TempDir dir;
  auto p = dir.write("x.pep.fasta",
                     ">AT1G02065.1|Arabidopsis_thaliana|SBP|x\nMKV\n"
                     ">Lchi01g000010.1 pacid=41 transcript=Lchi01g000010.1 locus=Lchi01g000010\nMKL\n"
                     ">AT1G01010.1 pep chromosome:TAIR10:1:3631:5899:1 gene:AT1G01010 transcript:AT1G01010.1\nMA*\n");
  auto r = read_fasta(p);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].id, "AT1G02065.1");
  EXPECT_EQ((*r)[0].description, "AT1G02065.1|Arabidopsis_thaliana|SBP|x");
  EXPECT_EQ((*r)[1].id, "Lchi01g000010.1");
  EXPECT_EQ((*r)[2].id, "AT1G01010.1");
  // Two headers that clean to one id are refused with both named.
  auto dup = dir.write("d.fa", ">gene:A\nMK\n>A\nMK\n");
  auto bad = read_fasta(dup);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("gene:A"), std::string::npos) << bad.status().message();
}

TEST(GenomeConventions, IsoformSuffixesNameTheirGene) {
  std::string rule;
  EXPECT_EQ(isoform_base("AT1G01010.2", &rule), "AT1G01010");
  EXPECT_EQ(rule, ".1/.2");
  EXPECT_EQ(isoform_base("Lchi01g000010.1"), "Lchi01g000010");
  EXPECT_EQ(isoform_base("Solyc01g005000.3.1"), "Solyc01g005000.3");
  EXPECT_EQ(isoform_base("CG1234-PA", &rule), "CG1234");
  EXPECT_EQ(rule, "-PA/-PB");
  EXPECT_EQ(isoform_base("g1234.t1", &rule), "g1234");
  EXPECT_EQ(rule, ".t1/.t2");
  EXPECT_EQ(isoform_base("Zm00001d027230_P001", &rule), "Zm00001d027230");
  EXPECT_EQ(rule, "_P001/_P002");
  EXPECT_EQ(isoform_base("XP_012345.1"), "") << "a versioned accession is one protein";
  EXPECT_EQ(isoform_base("AT1G01010"), "");
  EXPECT_EQ(isoform_base("12.1"), "") << "no letter: not a locus id";
}

TEST(GenomeConventions, ChromosomeNamesCompareAcrossFiles) {
  EXPECT_EQ(canonical_seqid("Chr1"), "1");
  EXPECT_EQ(canonical_seqid("chr01"), "1");
  EXPECT_EQ(canonical_seqid("1"), "1");
  EXPECT_EQ(canonical_seqid("Chromosome_10"), "10");
  EXPECT_EQ(canonical_seqid("scaffold_9"), "scaffold_9");
  EXPECT_EQ(genome_name_for("Chr1", {"1", "2", "scaffold_9"}), "1");
  EXPECT_EQ(genome_name_for("chr02", {"1", "2"}), "2");
  EXPECT_EQ(genome_name_for("Chr3", {"1", "2"}), "");
  EXPECT_EQ(genome_name_for("Chr1", {"1", "chr1"}), "") << "ambiguous";
}

TEST(GenomeConventions, MinusStrandComplementsIupacCodes) {
  EXPECT_EQ(reverse_complement("ACGTKYSWMRBDHVN"), "NBDHVYKWSRMACGT");
  EXPECT_EQ(reverse_complement("acgtky"), "rmacgt");
  EXPECT_EQ(reverse_complement("A?"), "NT");
}

TEST(GenomeConventions, GzipFilesReadAsPlainOnes) {
  TempDir dir;
  write_gz(dir.path() / "x.pep.fasta.gz", ">p1\nMKV\n>p2\nMKLA\n");
  write_gz(dir.path() / "x.gff3.gz",
           "c1\tx\tgene\t1\t90\t.\t+\t.\tID=g1\nc1\tx\tmRNA\t1\t90\t.\t+\t.\tID=t1;Parent=g1\n");
  write_gz(dir.path() / "x.genome.fasta.gz", ">c1 one\nACGTACGTAC\nACG\n>c2\nAC\n");
  auto pep = read_fasta(dir.path() / "x.pep.fasta.gz");
  ASSERT_TRUE(pep.is_ok()) << pep.status().to_string();
  EXPECT_EQ(pep->size(), 2u);
  EXPECT_EQ((*pep)[1].seq, "MKLA");
  auto gff = read_gff3(dir.path() / "x.gff3.gz");
  ASSERT_TRUE(gff.is_ok()) << gff.status().to_string();
  EXPECT_EQ(gff->transcript_of("t1"), "t1");
  auto len = fasta_lengths(dir.path() / "x.genome.fasta.gz");
  ASSERT_TRUE(len.is_ok()) << len.status().to_string();
  EXPECT_EQ(len->at("c1"), 13);
  EXPECT_EQ(len->at("c2"), 2);
  // htslib indexes only bgzip: a plain gzip genome is inflated once into the index folder.
  auto g = GenomeIndex::open(dir.path() / "x.genome.fasta.gz", dir.path() / "index");
  ASSERT_TRUE(g.is_ok()) << g.status().to_string();
  EXPECT_EQ((*g)->fetch("c1", 2, 5).value(), "CGTA");
  // A truncated gzip file is an error, not a short read.
  std::ifstream in(dir.path() / "x.pep.fasta.gz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  dir.write("cut.fa.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(read_fasta(dir.path() / "cut.fa.gz").is_ok());
}

TEST(GenomeConventions, GenomeIndexResolvesChromosomeNameVariants) {
  TempDir dir;
  auto fa = dir.write("g.fasta", ">1\nACGTACGT\n>chr02\nTTTTGGGG\n");
  auto g = GenomeIndex::open(fa, dir.path() / "index");
  ASSERT_TRUE(g.is_ok());
  EXPECT_EQ((*g)->resolve("Chr1"), "1");
  EXPECT_EQ((*g)->resolve("Chr2"), "chr02");
  EXPECT_EQ((*g)->fetch("Chr2", 5, 8).value(), "GGGG");
  EXPECT_EQ((*g)->length("chr1"), 8);
  EXPECT_EQ((*g)->resolve("Chr3"), "");
}

TEST(GenomeConventions, GtfGivesGenesTranscriptsAndCds) {
  std::string gtf =
      "1\tx\texon\t100\t300\t.\t-\t.\tgene_id \"G1\"; transcript_id \"G1.1\"; gene_name \"SPL1\";\n"
      "1\tx\tCDS\t120\t300\t.\t-\t0\tgene_id \"G1\"; transcript_id \"G1.1\"; protein_id \"G1.1.p\";\n"
      "1\tx\texon\t500\t900\t.\t-\t.\tgene_id \"G1\"; transcript_id \"G1.1\";\n"
      "1\tx\tCDS\t500\t800\t.\t-\t2\tgene_id \"G1\"; transcript_id \"G1.1\"; protein_id \"G1.1.p\";\n"
      "1\tx\texon\t500\t950\t.\t-\t.\tgene_id \"G1\"; transcript_id \"G1.2\";\n";
  auto m = parse_gff3(gtf, "x.gtf");
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  ASSERT_TRUE(m->genes.count("G1"));
  EXPECT_EQ(m->genes.at("G1").name, "SPL1");
  EXPECT_EQ(m->genes.at("G1").start, 100);
  EXPECT_EQ(m->genes.at("G1").end, 950);
  EXPECT_EQ(m->genes.at("G1").transcripts.size(), 2u);
  const GffTranscript& t = m->transcripts.at("G1.1");
  EXPECT_EQ(t.start, 100);
  EXPECT_EQ(t.end, 900);
  EXPECT_EQ(t.strand, '-');
  EXPECT_EQ(t.cds.size(), 2u);
  EXPECT_EQ(t.exons.size(), 2u);
  EXPECT_EQ(m->transcript_of("G1.1.p"), "G1.1");
}

TEST(GenomeConventions, EnsemblAndNcbiGff3IdsLoseTheirTypePrefixes) {
  std::string ensembl =
      "1\taraport11\tgene\t3631\t5899\t.\t+\t.\tID=gene:AT1G01010;Name=NAC001\n"
      "1\taraport11\tmRNA\t3631\t5899\t.\t+\t.\tID=transcript:AT1G01010.1;Parent=gene:AT1G01010\n"
      "1\taraport11\tCDS\t3760\t3913\t.\t+\t0\tID=CDS:AT1G01010.1;Parent=transcript:AT1G01010.1;protein_id=AT1G01010."
      "1\n";
  auto e = parse_gff3(ensembl);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_TRUE(e->genes.count("AT1G01010"));
  EXPECT_EQ(e->transcripts.at("AT1G01010.1").gene_id, "AT1G01010");
  ProteinLocus l = locate_protein(*e, "AT1G01010.1");
  EXPECT_EQ(l.gene, "AT1G01010");
  EXPECT_EQ(l.seqid, "1");
  std::string ncbi =
      "NC_1\tGnomon\tgene\t10\t500\t.\t-\t.\tID=gene-LOC1;Name=LOC1\n"
      "NC_1\tGnomon\tmRNA\t10\t500\t.\t-\t.\tID=rna-XM_1.1;Parent=gene-LOC1\n"
      "NC_1\tGnomon\tCDS\t50\t400\t.\t-\t0\tID=cds-XP_1.1;Parent=rna-XM_1.1;protein_id=XP_1.1\n";
  auto n = parse_gff3(ncbi);
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  for (const char* protein : {"XP_1.1", "XM_1.1"}) {  // >XP_... by protein_id; >rna-XM_... cleaned to the mRNA
    ProteinLocus x = locate_protein(*n, clean_sequence_id(protein == std::string("XM_1.1") ? "rna-XM_1.1" : protein));
    EXPECT_EQ(x.gene, "LOC1") << protein;
    EXPECT_EQ(x.strand, '-') << protein;
    EXPECT_EQ(x.start, 10) << protein;
  }
}

TEST(GenomeConventions, GeneMapLocatesEveryNamingAndPicksTheLongestIsoform) {
  std::string gff =
      "Chr1\tx\tgene\t100\t900\t.\t+\t.\tID=g1\n"
      "Chr1\tx\tmRNA\t100\t900\t.\t+\t.\tID=g1.1;Parent=g1\n"
      "Chr1\tx\tCDS\t100\t400\t.\t+\t0\tParent=g1.1\n"
      "Chr1\tx\tmRNA\t100\t600\t.\t+\t.\tID=g1.2;Parent=g1\n"
      "Chr1\tx\tCDS\t100\t200\t.\t+\t0\tParent=g1.2\n"
      "Chr2\tx\tgene\t50\t800\t.\t-\t.\tID=g2\n"
      "Chr2\tx\tmRNA\t50\t800\t.\t-\t.\tID=g2.1;Parent=g2\n"
      "Chr2\tx\tCDS\t50\t800\t.\t-\t0\tParent=g2.1;protein_id=P2\n"
      "scaffold_9\tx\tgene\t1\t90\t.\t+\t.\tID=g3\n";
  auto m = parse_gff3(gff);
  ASSERT_TRUE(m.is_ok());
  std::vector<FastaRecord> pep = {{"g1.1", "", "MKVLAAAAAA*"}, {"g1.2", "", "MKVL"},   {"P2", "", "MSTTT"},
                                  {"g3", "", "MQQ"},           {"orphan.1", "", "MK"}, {"orphan.2", "", "MKK"}};
  std::vector<FastaRecord> cds = {{"g1.1", "", "ATG"}, {"g2.1", "", "ATG"}};
  GeneMap map = build_gene_map(*m, pep, cds, {"1", "chr02"});
  EXPECT_EQ(row_of(map, "g1.1")->locus.via, "FASTA id = mRNA ID");
  EXPECT_EQ(row_of(map, "P2")->locus.via, "FASTA id = CDS protein_id");
  EXPECT_EQ(row_of(map, "P2")->cds, "g2.1") << "the CDS named by the transcript";
  EXPECT_EQ(row_of(map, "g3")->locus.via, "FASTA id = gene ID");
  EXPECT_EQ(row_of(map, "orphan.2")->locus.via, "isoform suffix");
  EXPECT_TRUE(row_of(map, "g1.1")->longest);
  EXPECT_FALSE(row_of(map, "g1.2")->longest);
  EXPECT_EQ(row_of(map, "g1.1")->length, 10) << "the stop is not a residue";
  EXPECT_TRUE(row_of(map, "orphan.2")->longest);
  EXPECT_EQ(map.seqid_aliases.at("Chr1"), "1");
  EXPECT_EQ(map.seqid_aliases.at("Chr2"), "chr02");
  EXPECT_EQ(map.seqids_not_in_genome, std::vector<std::string>{"scaffold_9"});
  Json s = map.summary();
  EXPECT_EQ(s["genes"], 4);
  EXPECT_EQ(s["isoforms_merged"], 2);
  EXPECT_EQ(s["unplaced"], 2);
  ASSERT_EQ(s["fix"].size(), 2u) << s.dump(2);
  EXPECT_NE(s["fix"][0].get<std::string>().find("orphan"), std::string::npos);
  EXPECT_NE(s["fix"][1].get<std::string>().find("scaffold_9"), std::string::npos);
  std::string tsv = map.tsv();
  EXPECT_NE(tsv.find("orphan.1\torphan\t—\t—\t—\t—\t—\t—\t—\t2\tno\tisoform suffix"), std::string::npos) << tsv;
  EXPECT_NE(tsv.find("g1.1\tg1\tg1.1\tg1.1\tChr1\t1\t100\t900\t+\t10\tyes\tFASTA id = mRNA ID"), std::string::npos)
      << tsv;
}

// A folder from mixed sources: a gzip proteome in PlantTFDB style whose ids are
// mRNA ids of an Ensembl-style GFF3 with gene:/transcript: prefixes and
// chromosomes named "Chr1" while the genome says "1"; CDS with and without
// their stop codon. The check passes and writes the gene map.
TEST(GenomeConventions, AMixedFolderPassesTheCheck) {
  TempDir dir;
  const fs::path d = dir.path() / "Mix";
  fs::create_directories(d);
  // Gene on 1:1-60, CDS 1..12 (ATG AAA GTG TAA) on +; gene 2 on the minus strand.
  std::string chr = "ATGAAAGTGTAA" + std::string(36, 'C') + "TTAGACCTTCAT";  // 60 bp
  std::ofstream(d / "Mix.genome.fasta") << ">1 dna:chromosome\n" << chr << "\n";
  std::ofstream(d / "Mix.gff3") << "##gff-version 3\n"
                                << "Chr1\tx\tgene\t1\t12\t.\t+\t.\tID=gene:MX1G001\n"
                                << "Chr1\tx\tmRNA\t1\t12\t.\t+\t.\tID=transcript:MX1G001.1;Parent=gene:MX1G001\n"
                                << "Chr1\tx\tCDS\t1\t12\t.\t+\t0\tParent=transcript:MX1G001.1\n"
                                << "Chr1\tx\tgene\t49\t60\t.\t-\t.\tID=gene:MX1G002\n"
                                << "Chr1\tx\tmRNA\t49\t60\t.\t-\t.\tID=transcript:MX1G002.1;Parent=gene:MX1G002\n"
                                << "Chr1\tx\tCDS\t49\t60\t.\t-\t0\tParent=transcript:MX1G002.1\n";
  write_gz(d / "Mix.pep.fasta", ">MX1G001.1|Mixus_mixtus|SBP|x\nMKV\n>MX1G002.1|Mixus_mixtus|SBP|x\nMKV*\n");
  std::ofstream(d / "Mix.cds.fasta") << ">transcript:MX1G001.1\nATGAAAGTG\n>MX1G002.1\nATGAAGGTCTAA\n";
  std::ofstream(d / "SBP.hmm") << "HMMER3/f\nNAME x\n//\n";
  auto r = check_species_data(d);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE((*r)["ok"].get<bool>()) << r->dump(2);
  const Json& c = (*r)["consistency"];
  EXPECT_EQ(c["proteins_without_gff_mrna"], 0) << c.dump(2);
  EXPECT_EQ(c["cds_checked"], 2);
  EXPECT_EQ(c["cds_not_translating_to_protein"], 0);
  EXPECT_EQ(c["gff_seqids_matched_by_name_variant"]["Chr1"], "1");
}

// tests/data/file_names.tsv: names as Phytozome, Ensembl Plants and NCBI ship
// them, and misspellings, with the kind and the name a run reads each as.
TEST(GenomeConventions, DownloadNamesAreReadAsTheRulesNames) {
  std::ifstream in(bioagent::testing::source_dir() + "/tests/data/file_names.tsv");
  size_t cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    for (size_t a = 0, b; a <= line.size(); a = b + 1) {
      b = line.find('\t', a);
      if (b == std::string::npos) b = line.size();
      f.push_back(line.substr(a, b - a));
    }
    ASSERT_EQ(f.size(), 4u) << line;
    Json c = check_file_name(f[0], f[1] == "-" ? "" : f[1]);
    ++cases;
    if (f[2] == "-") {
      EXPECT_TRUE(c["kind"].is_null()) << line << ": " << c.dump();
      continue;
    }
    EXPECT_EQ(c["kind"], f[2]) << line << ": " << c.dump();
    if (f[3] == "-")
      EXPECT_EQ(c["ok"], true) << line;
    else
      EXPECT_EQ(c.value("fix", std::string()), f[3]) << line << ": " << c.dump();
  }
  EXPECT_GE(cases, 30u);
}

// A portal's folder as downloaded: one file of each kind is read (soft-masked
// genome over plain and hard-masked, all isoforms over primary only, a file
// already named by the rules over any variant), through links; nothing is renamed.
TEST(GenomeConventions, APortalFolderIsReadInPlaceThroughLinks) {
  TempDir dir;
  const fs::path d = dir.path() / "ensembl";
  fs::create_directories(d);
  for (const char* name :
       {"Arabidopsis_thaliana.TAIR10.dna_rm.toplevel.fa.gz", "Arabidopsis_thaliana.TAIR10.dna.toplevel.fa.gz",
        "Arabidopsis_thaliana.TAIR10.dna_sm.toplevel.fa.gz", "Arabidopsis_thaliana.TAIR10.pep.all.fa.gz",
        "Athaliana_447_Araport11.protein_primaryTranscriptOnly.fa.gz", "Atha.cds.fasta",
        "Arabidopsis_thaliana.TAIR10.cds.all.fa.gz", "Arabidopsis_thaliana.TAIR10.59.gff3.gz",
        "Arabidopsis_thaliana.TAIR10.59.chr.gff3.gz", "CHECKSUMS", "SPL.hmm"})
    std::ofstream(d / name) << "x\n";
  Json plan = data_view_plan(d);
  std::map<std::string, std::string> read;
  for (auto& f : plan["read"]) read[f.value("read_as", f["name"].get<std::string>())] = f["name"];
  EXPECT_EQ(read["Atha.genome.fasta"], "Arabidopsis_thaliana.TAIR10.dna_sm.toplevel.fa.gz");
  EXPECT_EQ(read["Atha.pep.fasta"], "Arabidopsis_thaliana.TAIR10.pep.all.fa.gz");
  EXPECT_EQ(read["Atha.cds.fasta"], "Atha.cds.fasta");
  EXPECT_EQ(read["Atha.gff3"], "Arabidopsis_thaliana.TAIR10.59.gff3.gz");
  EXPECT_EQ(read["SPL.hmm"], "SPL.hmm");
  EXPECT_EQ(read.size(), 5u) << plan.dump(2);
  EXPECT_EQ(plan["not_read"].size(), 6u) << plan.dump(2);  // two genomes, one pep, one cds, one GFF3, CHECKSUMS
  const fs::path view = dir.path() / "view";
  Status linked = link_data_view(d, plan, view);
  ASSERT_TRUE(linked.is_ok()) << linked.to_string();
  EXPECT_TRUE(fs::is_symlink(view / "Atha.genome.fasta"));
  EXPECT_EQ(fs::read_symlink(view / "Atha.genome.fasta").filename(),
            "Arabidopsis_thaliana.TAIR10.dna_sm.toplevel.fa.gz");
  EXPECT_TRUE(fs::exists(d / "Arabidopsis_thaliana.TAIR10.dna_sm.toplevel.fa.gz")) << "never renamed";
  size_t entries = 0;
  for (auto& e : fs::directory_iterator(view)) entries += e.is_symlink();
  EXPECT_EQ(entries, 5u);
}

// A misnamed upload is read under the species prefix of the folder's files named by the rules, never a
// prefix made from another word of its own name; PLAZA's names are read too.
// A misnamed file alone (no folder prefix, no species named yet): the prefix its name suggests is the code it
// starts with, or a binomial's genus initial and three epithet letters; never a word after the code
// (Lchi_annotation.gff is Lchi.gff3, not Lann.gff3). Generated: codes and binomials x trailing words x kinds.
TEST(GenomeLayouts, AMisnamedFilesPrefixIsItsCodeNeverAnotherWord) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {".gff", ".gff3"}, {".pep.fa", ".pep.fasta"}, {".cds.fa", ".cds.fasta"}, {".genome.fa", ".genome.fasta"}};
  size_t n = 0;
  for (const std::string code : {"Lchi", "Exam", "Zea", "Ath", "Osa1", "Ptri"})
    for (const std::string word : {"annotation", "genes", "final", "v2", "longest_isoforms"})
      for (auto& [ext, rule] : kinds) {
        const std::string name = code + "_" + word + ext;
        Json c = check_file_name(name);
        ASSERT_EQ(c.value("fixable", false), true) << name << " " << c.dump();
        EXPECT_EQ(c["fix"], code + rule) << name;
        ++n;
      }
  for (auto& [binomial, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"Arabidopsis_thaliana", "Atha"}, {"Oryza_sativa", "Osat"}, {"Populus_trichocarpa", "Ptri"}})
    for (const std::string tail : {"", ".TAIR10", ".IRGSP_1.0"})
      for (auto& [ext, rule] : kinds) {
        const std::string name = binomial + tail + ext;
        Json c = check_file_name(name);
        if (!c.value("fixable", false)) continue;  // a kind whose variants need the assembly part
        EXPECT_EQ(c["fix"], prefix + rule) << name;
        ++n;
      }
  EXPECT_GE(n, 130u);
}

TEST(GenomeLayouts, AMisnamedFileTakesTheFoldersPrefix) {
  TempDir dir;
  for (const char* f : {"Exam.pep.fasta", "Exam.genome.fasta", "Exam_annotation.gff", "GLOBIN.hmm"})
    dir.write(f, "x\n");
  Json plan = data_view_plan(dir.path());
  std::map<std::string, std::string> read_as;
  for (auto& f : plan["read"]) read_as[f["name"]] = f.value("read_as", f["name"].get<std::string>());
  EXPECT_EQ(read_as["Exam_annotation.gff"], "Exam.gff3") << plan.dump(2);
  EXPECT_EQ(plan["prefix"], "Exam");
  TempDir plaza;
  for (const char* f :
       {"proteome.selected_transcript.exa.fasta.gz", "annotation.selected_transcript.all_features.exa.gff3.gz"})
    plaza.write(f, "x\n");
  Json p = data_view_plan(plaza.path(), "Exam");
  std::set<std::string> as;
  for (auto& f : p["read"]) as.insert(f.value("read_as", std::string()));
  EXPECT_EQ(as, (std::set<std::string>{"Exam.pep.fasta", "Exam.gff3"})) << p.dump(2);
}

namespace {

bool have_tools() {
  return fs::exists("/usr/bin/hmmsearch") && fs::exists("/usr/bin/hmmemit") && fs::exists("/usr/bin/diamond");
}

// The example genome, generated once (hmmemit), shared by the stage tests below.
const fs::path& example() {
  static TempDir dir;
  static fs::path data = [] {
    fs::path d = dir.path() / "data";
    auto r = write_example_genome(d);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return d;
  }();
  return data;
}

Result<std::vector<StageStatus>> run_stages(const fs::path& d, const fs::path& run_dir,
                                            std::vector<std::string> stages) {
  auto cfg = genefamily_run_config("", "", d, Json::object());
  if (!cfg) return cfg.status();
  PipelineOptions o;
  o.run_dir = run_dir;
  o.stages = std::move(stages);
  auto runner = make_local_runner();
  return run_genefamily(*cfg, *runner, o);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// identify on a protein-only copy of the example whose FASTA header lines
// `header` writes (from each record and its index); identify.json, its folder in `folder`.
Json identify_protein_only(const TempDir& dir, const std::function<std::string(const FastaRecord&, size_t)>& header,
                           fs::path& folder) {
  fs::create_directories(dir.path() / "data");
  fs::copy_file(example() / "GLOBIN.hmm", dir.path() / "data" / "GLOBIN.hmm");
  auto pep = read_fasta(example() / "Exam.pep.fasta");
  EXPECT_TRUE(pep.is_ok());
  if (!pep) return Json();
  std::ofstream out(dir.path() / "data" / "Exam.pep.fasta");
  for (size_t i = 0; i < pep->size(); ++i) out << ">" << header((*pep)[i], i) << "\n" << (*pep)[i].seq << "\n";
  out.close();
  auto r = run_stages(dir.path() / "data", dir.path() / "run", {"identify"});
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  if (!r) return Json();
  for (auto& st : *r)
    if (st.stage == "identify") folder = st.folder;
  return Json::parse(slurp(folder / "identify.json"));
}

}  // namespace

// Without a GFF3, isoforms (".1/.2") are merged by their ids: the member count
// is the number of member genes, not of proteins; positions are "—".
TEST(GenomeConventions, ProteinOnlyFolderMergesIsoformsByTheirIds) {
  if (!have_tools()) GTEST_SKIP() << "hmmer/diamond are not installed (scripts/setup.sh installs them)";
  TempDir dir;
  fs::path identify;  // ids only: no gene in the headers
  const Json summary = identify_protein_only(
      dir, [](const FastaRecord& r, size_t) { return r.id; }, identify);
  ASSERT_FALSE(identify.empty());
  const Json truth = Json::parse(slurp(example() / "truth.json"));
  EXPECT_EQ(summary["members"], truth["members"].size()) << summary.dump(2);
  EXPECT_GT(summary["isoforms_collapsed"].get<int>(), 0) << "the example has members with two isoforms";
  EXPECT_EQ(summary["isoform_suffixes"], Json::array({".1/.2"}));
  std::string members = slurp(identify / "members.tsv");
  EXPECT_NE(members.find("\t—\t—\t—\t—\t"), std::string::npos) << members;
  EXPECT_EQ(members.find("\t0\t0\t+\t"), std::string::npos) << "no invented coordinates";
  std::set<std::string> genes;
  for (auto& g : truth["members"]) genes.insert(g.get<std::string>());
  std::istringstream ids(slurp(dir.path() / "run" / "final" / "Exam.GLOBIN.geneID.txt"));
  for (std::string id; std::getline(ids, id);)  // a gene, or a lone protein that keeps its own id
    EXPECT_TRUE(genes.count(id) || genes.count(isoform_base(id))) << id << " is not a member gene";
}

TEST(GenomeConventions, HeadersNameTheirGene) {
  EXPECT_EQ(header_gene("AT1G01010.1 pep chromosome:TAIR10:1:3631:5899:1 gene:AT1G01010 transcript:AT1G01010.1 "
                        "gene_biotype:protein_coding gene_symbol:NAC001"),
            "AT1G01010");  // Ensembl Plants
  EXPECT_EQ(
      header_gene("AT1G01010.1 pacid=19655142 transcript=AT1G01010.1 locus=AT1G01010 ID=AT1G01010.1.Araport11.447"),
      "AT1G01010");  // Phytozome
  EXPECT_EQ(
      header_gene("lcl|NC_003070.9_cds_NP_171609.1_1 [gene=NAC001] [locus_tag=AT1G01010] [protein_id=NP_171609.1]"),
      "AT1G01010");  // NCBI cds_from_genomic
  EXPECT_EQ(header_gene("x [gene=NAC001] [protein=NAC domain containing protein 1]"), "NAC001");
  EXPECT_EQ(header_gene("Lchi01g000010.1 gene=gene:Lchi01g000010"), "Lchi01g000010");
  EXPECT_EQ(header_gene("NP_171609.1 NAC domain containing protein 1 [Arabidopsis thaliana]"), "");  // NCBI protein.faa
  EXPECT_EQ(header_gene("x gene_biotype:protein_coding gene_symbol:NAC001"), "");
}

// Ensembl's proteins of some species carry ids without an isoform suffix
// (sorghum's EER90453): the gene their header names groups them.
TEST(GenomeConventions, ProteinOnlyFolderMergesIsoformsByTheGeneTheirHeadersName) {
  if (!have_tools()) GTEST_SKIP() << "hmmer/diamond are not installed (scripts/setup.sh installs them)";
  TempDir dir;
  fs::path identify;
  const Json summary = identify_protein_only(
      dir,
      [](const FastaRecord& r, size_t i) {
        const std::string gene = isoform_base(r.id).empty() ? r.id : isoform_base(r.id),
                          id = "EER" + std::to_string(90000 + i);
        return id + " pep chromosome:v3:1:1:9:1 gene:" + gene + " transcript:" + id + " gene_biotype:protein_coding";
      },
      identify);
  const Json truth = Json::parse(slurp(example() / "truth.json"));
  EXPECT_EQ(summary["members"], truth["members"].size()) << summary.dump(2);
  EXPECT_GT(summary["isoforms_collapsed"].get<int>(), 0);
  EXPECT_EQ(summary["located_by"]["gene in the FASTA header"], summary["proteins_passing"]) << summary.dump(2);
  std::set<std::string> genes;
  for (auto& g : truth["members"]) genes.insert(g.get<std::string>());
  std::istringstream ids(slurp(dir.path() / "run" / "final" / "Exam.GLOBIN.geneID.txt"));
  for (std::string id; std::getline(ids, id);) EXPECT_TRUE(genes.count(id)) << id << " is not a member gene";
}

// Synteny with fewer placed genes than two blocks need is skipped with the count, not failed.
TEST(GenomeConventions, SyntenyWithTooFewGenesIsSkippedWithTheReason) {
  if (!have_tools()) GTEST_SKIP() << "hmmer/diamond are not installed (scripts/setup.sh installs them)";
  TempDir dir;
  const fs::path d = dir.path() / "data";
  fs::create_directories(d);
  for (const char* f : {"Exam.pep.fasta", "GLOBIN.hmm", "Exam.genome.fasta"}) fs::copy_file(example() / f, d / f);
  // The GFF3 keeps six genes (and their mRNAs, exons and CDS).
  std::istringstream in(slurp(example() / "Exam.gff3"));
  std::ofstream out(d / "Exam.gff3");
  std::set<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string gene = line.substr(line.find("Examg"), 10);
    if (line.find("\tgene\t") != std::string::npos && kept.size() < 6) kept.insert(gene);
    if (kept.count(gene)) out << line << '\n';
  }
  out.close();
  auto r = run_stages(d, dir.path() / "run", {"synteny"});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  for (auto& s : *r)
    if (s.stage == "synteny") {
      EXPECT_EQ(s.state, StageState::kSkipped) << to_string(s.state) << " " << s.message;
      EXPECT_NE(s.message.find("places 6 genes"), std::string::npos) << s.message;
    }
}

// Every problem, warning and absent file the check reports carries a Chinese message too (a Chinese
// plan and diagnosis show it), for each kind of check: truncated profile, internal stop, lowercase
// residues, a gene beyond its sequence, unknown seqids, unmatched proteins, CDS that do not translate,
// two profile sets, an empty file, a missing required file and an absent optional one.
TEST(SpeciesCheck, EveryMessageHasItsChineseText) {
  bioagent::testing::TempDir broken, sparse;
  broken.write("Tbad.genome.fasta", ">chr1\n" + std::string(60, 'A') + "\n");
  broken.write("Tbad.gff3",
               "##gff-version 3\n"
               "chr1\t.\tgene\t1\t300\t.\t+\t.\tID=g1\n"
               "chr1\t.\tmRNA\t1\t300\t.\t+\t.\tID=p1;Parent=g1\n"
               "chr1\t.\tCDS\t1\t9\t.\t+\t0\tID=c1;Parent=p1\n"
               "chrZ\t.\tgene\t1\t30\t.\t+\t.\tID=g2\n");
  broken.write("Tbad.pep.fasta", ">p1\nMK*LLk\n>orphan\nMAAAA\n");
  broken.write("Tbad.cds.fasta", ">p1\nATGCCCGGG\n");
  broken.write("Fam.hmm", "HMMER3/f [3.3 | Nov 2019]\nNAME  Fam\nLENG  10\n");
  const std::string two_profiles = "HMMER3/f\nNAME  a\n//\nHMMER3/f\nNAME  b\n//\n";
  broken.write("domains_one.hmm", two_profiles);
  broken.write("domains_two.hmm", two_profiles);
  sparse.write("Tsp.pep.fasta", "");
  size_t seen = 0;
  for (auto [dir, prefix, family] :
       {std::tuple{broken.path(), "Tbad", "Fam"}, std::tuple{sparse.path(), "Tsp", "Fam"}}) {
    auto check = check_species_data(dir, prefix, family, true);
    ASSERT_TRUE(check.is_ok()) << check.status().to_string();
    for (const char* list : {"problems", "warnings", "absent"})
      for (auto& p : (*check)[list]) {
        if (p.value("rule", "") == "readable") continue;  // a parser's own error, quoted as it is
        ++seen;
        ASSERT_TRUE(p.contains("message_zh")) << list << ": " << p.dump();
        const std::string zh = p["message_zh"];
        EXPECT_TRUE(std::any_of(zh.begin(), zh.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE4; }))
            << zh;
      }
  }
  EXPECT_GE(seen, 10u) << "each kind of check was reached";
}
