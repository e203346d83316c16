// Family names and messages as people type them, generated from the knowledge base itself: every
// family symbol that is no English word in lower case and in the plural, after a species prefix with a
// member number, joined to another name by '-', and a name of several parts with its separators dropped;
// chat spellings, stretched letters, a verb before its object and a refused search, in both languages.
#include <gtest/gtest.h>

#include <fstream>
#include <unordered_set>

#include "assistant/assistant_internal.h"
#include "assistant/message_form.h"
#include "assistant/route_sources.h"
#include "bioagent/assistant.h"
#include "bioagent/bundle.h"
#include "test_util.h"

namespace bioagent {
namespace {

// The system word list the knowledge base reads (wamerican); without it lower-case symbols are not read.
bool english(const std::string& lower) {
  static const std::unordered_set<std::string> words = [] {
    std::unordered_set<std::string> w;
    std::ifstream in("/usr/share/dict/words");
    for (std::string line; std::getline(in, line);) w.insert(line);
    return w;
  }();
  return words.contains(lower);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Letters only: a member number after a symbol ending in a digit (SnRK2) would be another symbol.
bool plain_symbol(const std::string& s) {
  return s.size() >= 3 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalpha(c); });
}

// The family `text` names, "" when none.
std::string family_in(const std::string& text) {
  Mentions m = find_mentions(text);
  return m.family ? m.family->value("name", "") : "";
}

TEST(FamilySpellings, EverySymbolIsReadAsPeopleTypeIt) {
  if (!std::ifstream("/usr/share/dict/words"))
    GTEST_SKIP() << "no /usr/share/dict/words (wamerican): setup.sh installs it";
  int checked = 0;
  for (auto& f : gene_family_kb()["families"]) {
    const std::string name = f.value("name", "");
    if (!plain_symbol(name) || english(lower(name))) continue;
    for (const std::string& text :
         {"what do " + lower(name) + " genes do in plants", "the " + lower(name) + "s of rice, briefly",
          "Os" + name + "12 and Zm" + name + "3 are members", "Zm" + name + "s in maize", name + "-GFP fusions"}) {
      EXPECT_EQ(family_in(text), name) << text;
      ++checked;
    }
  }
  EXPECT_GE(checked, 100);
  // A name of several parts, its separators dropped or changed, and a plural of it.
  for (auto& f : gene_family_kb()["families"]) {
    const std::string name = f.value("name", "");
    if (name.find_first_of("/-") == std::string::npos || name.size() < 6) continue;
    std::string joined;
    for (char c : name)
      if (c != '/' && c != '-') joined += c;
    EXPECT_EQ(family_in("tell me about " + lower(joined) + " subfamilies"), name) << joined;
  }
  // An English word that is also a short symbol is never read in lower case ("pin", "tip").
  EXPECT_EQ(family_in("how do I pin a file, any tip?"), "");
  // Of two families, the one named first; the longest name where two start at one place.
  EXPECT_EQ(family_in("ARF跟Aux/IAA怎么互作"), "ARF");
  EXPECT_EQ(family_in("AP2/ERF genes"), "AP2/ERF");
}

TEST(FamilySpellings, AFamilyBesideThePlansIsTheOneAskedAbout) {
  EXPECT_EQ(find_mentions("forget globin, plan a WRKY analysis instead", "GLOBIN").family->value("name", ""), "WRKY");
  EXPECT_EQ(find_mentions("which HMM for the globins?", "GLOBIN").family->value("name", ""), "GLOBIN");
}

TEST(MessageSpellings, ChatSpellingsStretchedLettersAndVerbsBeforeTheirObjects) {
  for (const char* m : {"stopppp", "pleeease stop it", "stop it plz", "STOP"}) {
    MessageForm f = read_form(m);
    EXPECT_TRUE(f.has(Act::kStop)) << m;
  }
  EXPECT_TRUE(read_form("can u do the TCP thing for Exam").request);
  for (const char* m : {"map the ARF genes onto chromosomes", "plot a tree of all bHLH genes", "draw my MYB tree"})
    EXPECT_TRUE(read_form(m).order) << m;
  for (const char* m : {"whats the MBW complex", "genes the size of", "GO enrichment for wave 5"})
    EXPECT_FALSE(read_form(m).order) << m;
  // "HMM" and "GO" written in capitals are abbreviations, not "hmm" or "go".
  EXPECT_FALSE(read_form("can I use my own HMM profile?").phatic);
  EXPECT_FALSE(read_form("GO enrichment for wave 5?").has(Act::kRun));
}

TEST(MessageSpellings, ARefusedSearchDropsTheSearchAndRefusesNoRun) {
  for (const char* m : {"don't search the literature, just identify WRKY genes in my tomato genome",
                        "别看文献了，直接帮我在我的番茄基因组里鉴定WRKY", "不用查我的文献，说个大概就行"}) {
    MessageForm f = read_form(m);
    EXPECT_FALSE(f.has(Act::kLiterature)) << m;
    EXPECT_FALSE(f.refusal) << m;
  }
  EXPECT_FALSE(read_form("之前没做过这种分析，你能帮我跑一遍吗").existence);
  EXPECT_TRUE(read_form("有人做过油茶MYB家族的分析吗").existence);
}

TEST(MessageSpellings, RequestsAboutAFamilyInAGenomeArePlansInAnyForm) {
  for (const char* m :
       {"Phoenix dactylifera基因组里的NAC家族能做全基因组鉴定吗", "如何分析水稻的bHLH基因家族？",
        "map the ARF genes onto chromosomes for Populus trichocarpa and do synteny", "find all myb genes in my genome"})
    EXPECT_EQ(route_by_rules(m).intent, Intent::kAnalysis) << m;
  EXPECT_EQ(route_by_rules("SPL能调控开花吗").intent, Intent::kFaq);
}

// The user's own sequence files named, in any of the names genome projects give them: whatever is asked
// about a family in them, and however it is put, only an analysis can answer it.
TEST(MessageSpellings, AFamilyInTheUsersSequenceFilesIsAnAnalysis) {
  const std::vector<std::string> files = {"Sbic.pep.fasta",    "Athaliana_447_Araport11.protein.fa.gz",
                                          "genome.fna",        "Mdom.gff3",
                                          "annotation.gtf.gz", "/data/genomes/Osat"};
  const std::vector<std::string> asks = {"how many {F} genes are in {P}?", "{P} 里面的{F}都给我找出来",
                                         "{F} members from {P}, with a tree",
                                         "can you tell me how the {F} cluster in {P}"};
  for (const std::string& file : files)
    for (const char* family : {"NAC", "bHLH", "WRKY"})
      for (std::string m : asks) {
        m.replace(m.find("{F}"), 3, family);
        m.replace(m.find("{P}"), 3, file);
        EXPECT_TRUE(read_form(m).names_sequence_file) << m;
        EXPECT_EQ(route_by_rules(m).intent, Intent::kAnalysis) << m;
      }
  for (const char* m :
       {"what is the NAC domain?", "Ka/Ks of the WRKY pairs", "e.g. the GO/KEGG plot", "p300/CBP sites"})
    EXPECT_FALSE(read_form(m).names_sequence_file) << m;
}

// A deed a condition supposes is asked about, not ordered: every subject and tense of a supposed stop, run
// or resume, in both languages, orders none of them; said to the reader, without a subject, or before its
// condition, the same verb orders.
TEST(MessageSpellings, ADeedAConditionSupposesIsNoOrder) {
  const std::vector<std::pair<std::string, Act>> deeds = {{"stop it", Act::kStop},
                                                          {"stop the run", Act::kStop},
                                                          {"run it again", Act::kRun},
                                                          {"resume it tomorrow", Act::kResume}};
  for (const char* cond : {"if", "If", "unless"})
    for (const char* subject : {"I", "we", "someone", "my student"})
      for (auto& [deed, act] : deeds)
        for (const char* tail : {", will I lose the tree?", " now, can I pick it up later?", " what happens"}) {
          const std::string m = std::string(cond) + " " + subject + " " + deed + tail;
          EXPECT_FALSE(read_form(m).has(act)) << m;
        }
  for (const char* m : {"如果我现在停止，以后还能接着跑吗？", "要是我停掉它会丢结果吗", "万一它停了怎么办"})
    EXPECT_FALSE(read_form(m).has(Act::kStop)) << m;
  for (const char* m : {"if you could stop it that would be great", "stop it if it takes too long",
                        "if possible stop the run", "如果可以的话，停掉吧", "要是跑太久就停掉"})
    EXPECT_TRUE(read_form(m).has(Act::kStop)) << m;
}

// "when" inside a clause joins a time to it; it asks where the clause opens with it.
TEST(MessageSpellings, WhenInsideAClauseAsksNothing) {
  for (const char* m :
       {"ping me when the tree is done", "let me know when it finishes", "stop it when the tree is done"})
    EXPECT_FALSE(read_form(m).question) << m;
  for (const char* m : {"when will the tree be done", "and when does it finish", "when was SPL first described"})
    EXPECT_TRUE(read_form(m).question) << m;
}

}  // namespace
}  // namespace bioagent

namespace bioagent {
namespace {

// A bundle's name asked by the long form its own texts spell it out with ("tissue-resident memory
// (TRM)" in the example bundle's UI texts): the data bundle holds it, with or without the hyphen.
TEST(MessageSpellings, ABundleNameAskedByTheLongFormItsTextsGive) {
  bioagent::testing::TempDir dir;
  ASSERT_TRUE(write_example_bundle(dir.path()).is_ok());
  for (const char* m : {"tissue resident memory cells, top regulators?", "which TFs lead in tissue-resident memory"}) {
    SourceMatch s = match_data_bundle(dir.path().string(), m, read_form(m), KbMatch{});
    EXPECT_TRUE(std::find(s.matched.begin(), s.matched.end(), "TRM") != s.matched.end()) << m << " " << s.to_json();
  }
  SourceMatch none = match_data_bundle(dir.path().string(), "memory of a tissue", read_form("memory of a tissue"), {});
  EXPECT_TRUE(std::find(none.matched.begin(), none.matched.end(), "TRM") == none.matched.end());
}

}  // namespace
}  // namespace bioagent
