// Acronyms asked about and spelled out (papers/question_cues.h), generated: long forms built from
// words, their acronyms from the words' initials, in the sentence shapes papers print them.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "papers/question_cues.h"

using namespace bioagent;

namespace {

const std::vector<std::string> kWords = {"differential", "pathway",    "perturbation", "scores",  "damage",
                                         "tolerance",    "binding",    "affinity",     "mass",    "spectrometry",
                                         "high",         "osmolarity", "glycerol",     "lineage", "determining"};

struct Case {
  std::string long_form, acronym;
};

// Every run of two to four consecutive words, spaced or hyphenated (the parts of a fusion
// protein, "DN1S-Cas9-XTEN-hExo1"), and its acronym of initials (upper case).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* joint : {" ", "-"})
    for (size_t n = 2; n <= 4; ++n)
      for (size_t at = 0; at + n <= kWords.size(); ++at) {
        Case c;
        for (size_t i = at; i < at + n; ++i) {
          c.long_form += (c.long_form.empty() ? "" : joint) + kWords[i];
          c.acronym += static_cast<char>(std::toupper(static_cast<unsigned char>(kWords[i][0])));
        }
        out.push_back(c);
      }
  return out;
}

TEST(Acronyms, ALongFormBeforeItsParenthesisIsFoundInEveryShapePapersPrint) {
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"We computed the ", " ({A}) for each sample."},
      {"Cells have evolved two sets of ", " ({A}) strategies [5]."},
      {"In brief, ", " ({A}s) were defined as follows."},
      {"Results.\n", " ({A}, see Methods) rose."},
      {"the ", " ({A}; Fig. 2) fell."},
      {"{A} (", ") denotes the value."}};
  for (auto& c : cases())
    for (auto& [before, after] : shapes) {
      std::string head = before, tail = after;
      for (std::string* part : {&head, &tail})
        if (part->find("{A}") != std::string::npos) part->replace(part->find("{A}"), 3, c.acronym);
      const std::string text = head + c.long_form + tail;
      EXPECT_EQ(acronym_long_form(text, c.acronym), c.long_form) << text;
    }
}

TEST(Acronyms, NoLongFormWhereTheWordsCannotSpellIt) {
  EXPECT_EQ(acronym_long_form("samples were frozen (DDT) overnight", "DDT"), "");
  EXPECT_EQ(acronym_long_form("the DDT (Fig. 2) rose", "DDT"), "");  // used, not spelled out
  EXPECT_EQ(acronym_long_form("(DDT) at the start of a page", "DDT"), "");
  EXPECT_EQ(acronym_long_form("damage tolerance (DDTX) assays", "DDT"), "");  // another acronym
  EXPECT_EQ(acronym_long_form("", "DDT"), "");
  EXPECT_EQ(acronym_long_form("x (D)", "D"), "");                      // one letter is no acronym
  EXPECT_EQ(acronym_long_form("the DCXE (DCXE-1) line", "DCXE"), "");  // a variant, not a spelling out
}

TEST(Acronyms, TheAcronymAskedAboutIsTheOneTheQuestionSpellsOut) {
  for (const std::string a : {"DDT", "AP-MS", "dTE", "LDTFs", "DCXE", "HOG"}) {
    for (std::string q :
         {"What does {A} stand for in the A-to-I editing paper?", "In the REV1 study, what does {A} stand for?",
          "{A}的全称是什么？", "外切核酸酶编辑器论文中，缩写 {A} 指的是哪种融合蛋白？", "What is the full name of {A}?",
          "Which fusion protein does {A} denote in the paper?"}) {
      q.replace(q.find("{A}"), 3, a);
      EXPECT_EQ(asked_acronym(q), a) << q;
    }
  }
  EXPECT_EQ(asked_acronym("How many DDT genes were found?"), "");  // no spelling out asked
}

}  // namespace

// Every acronym a text introduces is listed with its long form, whatever shape introduces it; acronyms
// only used, and parentheses holding no acronym, are not.
TEST(Acronyms, EveryAcronymATextIntroducesIsListed) {
  const std::vector<std::pair<std::string, std::string>> shapes = {{"We computed the ", " ({A}) for each sample. "},
                                                                   {"In brief, ", " ({A}s) were defined as follows. "},
                                                                   {"the ", " ({A}; Fig. 2) fell. "},
                                                                   {"Results: ", " ({A}, see Methods) rose. "}};
  const auto all = cases();
  for (size_t s = 0; s < shapes.size(); ++s) {
    std::string text = "Cells (n = 12) were grown (Fig. 1A) at 37 C (see Methods). ";
    std::vector<Case> introduced;
    std::set<std::string> acronyms;
    for (size_t i = s; i < all.size(); i += 7) {
      if (all[i].long_form.find('-') != std::string::npos || !acronyms.insert(all[i].acronym).second) continue;
      std::string tail = shapes[s].second;
      tail.replace(tail.find("{A}"), 3, all[i].acronym);
      text += shapes[s].first + all[i].long_form + tail + "Later the " + all[i].acronym + " (Fig. 3) held. ";
      introduced.push_back(all[i]);
    }
    SCOPED_TRACE(text);
    const auto found = defined_acronyms(text);
    for (const Case& c : introduced) {
      ASSERT_TRUE(found.count(c.acronym)) << c.acronym;
      EXPECT_EQ(found.at(c.acronym), c.long_form);
    }
    EXPECT_EQ(found.size(), acronyms.size()) << "nothing else: (n = 12), (Fig. 1A), (see Methods), (Fig. 3)";
  }
}
