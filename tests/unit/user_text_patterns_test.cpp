// The patterns that read text a user supplies (FASTA descriptions, file names,
// questions, PDF page text, Slurm output naming the user's job) on hostile
// input: megabyte-long lines, deeply nested brackets, bytes that are not UTF-8.
// libstdc++'s std::regex recursed per character on such text and overflowed the
// stack; each function must answer as on ordinary text.
#include <gtest/gtest.h>

#include <string>

#include "bioagent/genefamily.h"
#include "genefamily/algo/reference_groups.h"
#include "papers/question_cues.h"
#include "pipeline/slurm_fields.h"

using namespace bioagent;

namespace {

const std::string kLong(2'000'000, 'a');              // one 2 MB word
const std::string kNested(200'000, '[');              // brackets that never close
const std::string kInvalid = "\xff\xfe\xc3\x28\x80";  // no valid UTF-8 sequence

}  // namespace

TEST(UserTextPatterns, GroupInDescriptionHostile) {
  EXPECT_EQ(group_in_description(kLong + " group=G1"), "G1");
  EXPECT_EQ(group_in_description(kNested + "group=G2]"), "G2");
  EXPECT_EQ(group_in_description(kInvalid + " subfamily:G3" + kInvalid), "G3");
  EXPECT_EQ(group_in_description(kLong + kNested + kInvalid), "");
  EXPECT_EQ(group_in_description(std::string(100'000, ' ') + "clade"), "");
}

TEST(UserTextPatterns, GeneNameInDescriptionHostile) {
  EXPECT_EQ(gene_name_in_description(kLong + " GN=SPL3 PE=1"), "SPL3");
  EXPECT_EQ(gene_name_in_description("GN=" + kLong), kLong);
  EXPECT_EQ(gene_name_in_description(kNested + " GN=" + kInvalid + " x"), kInvalid);
  EXPECT_EQ(gene_name_in_description(kLong + "GN=SPL3"), "");  // inside a word
}

TEST(UserTextPatterns, SlurmFieldHostile) {
  std::string repeated;
  for (int i = 0; i < 100'000; ++i) repeated += "OldJobState=X ";
  EXPECT_EQ(slurm_field(repeated + "JobState=FAILED Reason=None", "JobState"), "FAILED");
  EXPECT_EQ(slurm_field("JobName=" + kLong + " ExitCode=1:0", "ExitCode"), "1:0");
  EXPECT_EQ(slurm_field("JobName=" + kInvalid + "\nJobState= JobState=DONE", "JobState"), "DONE");
  EXPECT_EQ(slurm_field(kNested + kInvalid, "JobState"), "");
  EXPECT_EQ(slurm_field("JobName=" + kInvalid, "JobName"), kInvalid);
}

TEST(UserTextPatterns, CheckFileNameHostile) {
  EXPECT_EQ(check_file_name(kLong + ".pep.fasta")["ok"], true);
  const Json genome = check_file_name(std::string(100'000, '.') + "_genomic.fna.gz");
  EXPECT_EQ(genome["kind"], "genome");
  const Json invalid = check_file_name(kInvalid + ".dna.toplevel.fa");
  EXPECT_EQ(invalid["kind"], "genome");
  EXPECT_EQ(invalid["fix"], std::string(kInvalid.size(), '_') + ".genome.fasta");
  // 200,000 unclosed brackets before ".gff3": answered at once (RE2: no backtracking), with a message.
  const Json nested = check_file_name(kNested + ".gff3");
  EXPECT_EQ(nested["ok"], false);
  EXPECT_FALSE(nested.value("message", std::string()).empty());
  EXPECT_TRUE(check_file_name(kLong + kInvalid)["kind"].is_null());
  // The Ensembl and Phytozome stems still give their species prefix.
  EXPECT_EQ(check_file_name("Arabidopsis_thaliana.TAIR10.dna.toplevel.fa.gz")["fix"], "Atha.genome.fasta");
  EXPECT_EQ(check_file_name("Athaliana_447_Araport11.protein.fa")["fix"], "Atha.pep.fasta");
}

TEST(UserTextPatterns, QuestionAndPageCuesHostile) {
  std::string years;
  for (int i = 0; i < 100'000; ++i) years += "2001 ";
  EXPECT_NEAR(reference_density(years), 200.0 / 5.0, 1e-9);
  EXPECT_EQ(reference_density(kLong), 0.0);
  EXPECT_GT(reference_density(kInvalid + " et al " + kInvalid), 0.0);
  EXPECT_TRUE(asks_for_front_matter("when was it " + kLong + " published"));
  EXPECT_FALSE(asks_for_front_matter(kLong + kNested + kInvalid));
  EXPECT_TRUE(asks_for_caption(kInvalid + " figure " + kInvalid));
  EXPECT_TRUE(asks_for_caption(kNested + "图"));
  EXPECT_FALSE(asks_for_caption(kLong));
  EXPECT_TRUE(asks_for_references(kInvalid + " references"));
  EXPECT_FALSE(asks_for_references(kNested + kInvalid));
}
