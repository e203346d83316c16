// Retrieval that beats its parts: dictionary expansion of queries, the
// searchable columns a caller names, and ClassicRetrieve on real PDFs (one
// result per page, the hash collection never outvoting BM25, the limit cap
// said), and the offline agent answering with answer-bearing sentences.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "agents/answer_units.h"
#include "bioagent/agent.h"
#include "bioagent/collections.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "papers/identifier_votes.h"
#include "papers/proximity.h"
#include "papers/question_cues.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(QueryExpansions, ChineseAndCommonNamesBecomeTheEnglishPapersUse) {
  auto e = query_expansions("荔枝的SPL基因家族是否有发表过相关的文章");
  EXPECT_TRUE(has(e, "Litchi chinensis")) << Json(e).dump();
  EXPECT_TRUE(has(e, "gene family")) << Json(e).dump();
  EXPECT_TRUE(has(query_expansions("How many SPL genes does tomato have?"), "Solanum lycopersicum"));
  // The longest name wins where names overlap: 缺铁性贫血 is not also read as 贫血.
  auto ida = query_expansions("缺铁性贫血");
  EXPECT_TRUE(has(ida, "iron deficiency anaemia IDA")) << Json(ida).dump();
  EXPECT_FALSE(has(ida, "anaemia anemia")) << Json(ida).dump();
  // English names match whole words only; a query naming nothing expands to nothing.
  EXPECT_TRUE(query_expansions("pricey reagents").empty());
  EXPECT_TRUE(query_expansions("retrieval augmented generation").empty());
}

TEST(Collections, SearchableColumnsAreTheCallersChoice) {
  TempDir dir;
  std::vector<IndexEntry> entries = {{"chunks", "text_content", "c1", "P", 1, "SPL genes in rice"},
                                     {"notes", "body", "n1", "P", 1, "SPL genes in maize"}};
  {
    auto c = Collections::open(dir.path().string(), true, {make_hash_embedder(64)});
    ASSERT_TRUE(c.is_ok());
    ASSERT_TRUE((*c)->add_paper("P", entries).is_ok());
  }
  auto any = Collections::open(dir.path().string(), false, {make_hash_embedder(64)});
  ASSERT_TRUE(any.is_ok());
  EXPECT_TRUE((*any)->search({"SPL", "text_bm25_en", "notes", "body", "", 5}, {"P"}).is_ok());
  auto only = Collections::open(dir.path().string(), false, {make_hash_embedder(64)}, {{"chunks", "text_content"}});
  ASSERT_TRUE(only.is_ok());
  auto refused = (*only)->search({"SPL", "text_bm25_en", "notes", "body", "", 5}, {"P"});
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("not an encodable column"), std::string::npos);
  EXPECT_EQ((*only)->embed_type("text_bm25_en"), "bm25");
  EXPECT_EQ((*only)->embed_type("text_hash_ngram_64"), "hash");
  EXPECT_EQ((*only)->embed_type("milvus"), "");
}

class ClassicRetrieveOnPdfs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::path pdfs = bioagent::testing::fixtures_dir() / "pdfs" / "cermine_biomedical_oa";
    if (!fs::is_directory(pdfs)) return;
    dir_ = new TempDir();
    db_ = (dir_->path() / "papers.duckdb").string();
    auto lib = PaperLibrary::open(db_);
    ASSERT_TRUE(lib.is_ok()) << lib.status().to_string();
    for (const char* f : {"test5.pdf", "test2.pdf", "test1.pdf"}) ASSERT_TRUE((*lib)->add(pdfs / f).is_ok()) << f;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "fixtures absent: " << bioagent::testing::fixtures_dir();
    register_builtin_types(registry_);
    ASSERT_TRUE(registry_.load_builtin().is_ok());
    ctx_.set_option("papers_db", db_);
    ctx_.set_option("cache_dir", (dir_->path() / "cache").string());
    ctx_.set_option("offline", "1");
  }
  Json classic(const std::string& query, int limit) {
    auto r = registry_.call("ClassicRetrieve", {{"query", query}, {"limit", limit}}, ctx_);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? *r : Json::object();
  }
  static TempDir* dir_;
  static std::string db_;
  ToolRegistry registry_;
  ToolContext ctx_;
};
TempDir* ClassicRetrieveOnPdfs::dir_ = nullptr;
std::string ClassicRetrieveOnPdfs::db_;

TEST_F(ClassicRetrieveOnPdfs, OneResultPerPage) {
  Json r = classic("H pylori eradication haemoglobin ferritin iron deficiency anaemia", 10);
  std::set<std::pair<std::string, int>> seen;
  ASSERT_GE(r["results"].size(), 5u);
  for (auto& h : r["results"])
    EXPECT_TRUE(seen.insert({h["pdf_id"].get<std::string>(), h["page_number"].get<int>()}).second)
        << "page repeated: " << h.dump();
}

TEST_F(ClassicRetrieveOnPdfs, TheHashCollectionNeverOutvotesBm25) {
  Json r = classic("bleeding risk of low molecular weight heparin in trauma patients", 20);
  ASSERT_FALSE(r["results"].empty());
  bool lexical_ended = false;
  double last = 1e9;
  for (auto& h : r["results"]) {
    bool lexical = h["ranks"].contains("text_bm25_en") || h.contains("fields");
    if (!lexical) lexical_ended = true;
    EXPECT_FALSE(lexical && lexical_ended) << "a page only the hash collection found ranks above a BM25 page";
    if (lexical) {
      EXPECT_LE(h["score"].get<double>(), last + 1e-12) << "pages BM25 found are in BM25's order";
      last = h["score"].get<double>();
    }
  }
  EXPECT_NE(r["fusion"].get<std::string>().find("not semantic"), std::string::npos);
}

TEST_F(ClassicRetrieveOnPdfs, SaysWhenTheLimitIsCapped) {
  Json r = classic("heart failure rehabilitation", 150);
  ASSERT_TRUE(r.contains("note"));
  EXPECT_NE(r["note"].get<std::string>().find("capped at 100"), std::string::npos);
  EXPECT_FALSE(classic("heart failure rehabilitation", 5).contains("note"));
}

TEST_F(ClassicRetrieveOnPdfs, ChineseQuestionsFindEnglishPages) {
  Json r = classic("根除幽门螺杆菌能改善缺铁性贫血吗？", 5);
  ASSERT_FALSE(r["results"].empty());
  ASSERT_TRUE(r.contains("query_expansions"));
  auto info =
      registry_.call("RetrieveFromDatabase",
                     {{"sql", "SELECT paper_id::VARCHAR FROM metadata WHERE pdf_path LIKE '%test5.pdf'"}}, ctx_);
  ASSERT_TRUE(info.is_ok()) << info.status().to_string();
  EXPECT_EQ(r["results"][0]["pdf_id"], (*info)["rows"][0][0]);
}

TEST_F(ClassicRetrieveOnPdfs, OfflineAnswerCarriesTheAnswerAndSaysNoModelWasUsed) {
  auto a = run_offline_agent("How many participants were involved in the meta-analysis of H pylori eradication?",
                             registry_, ctx_, AgentOptions{});
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_NE(a->answer.find("No language model was used"), std::string::npos) << a->answer;
  EXPECT_NE(a->answer.find("450"), std::string::npos) << a->answer;
}

// The question's words side by side score highest; spread out, less; one word or none, nothing.
TEST(Proximity, ScoresHowCloseTheQuestionsWordsStand) {
  const std::string q = "Which randomised trials measured ferritin levels?";
  const double tight = proximity(q, "Eight randomised trials measured serum ferritin levels in anaemic children.");
  const double spread = proximity(q,
                                  "Trials were many. In Asia, where anaemia is common, clinicians often measured "
                                  "haemoglobin, and some of them, later, the ferritin of each patient.");
  EXPECT_GT(tight, 0.7);
  EXPECT_GT(spread, 0);
  EXPECT_LT(spread, tight / 2);
  EXPECT_EQ(proximity(q, "Ferritin alone."), 0) << "one word is not proximity";
  EXPECT_EQ(proximity(q, ""), 0);
  EXPECT_EQ(proximity("the and of", "the and of"), 0) << "function words are not counted";
  EXPECT_EQ(proximity(std::string(100000, 'x'), std::string(100000, 'y')), 0);
  EXPECT_LE(proximity(q, q + " " + q), 1.0);
}

TEST(QuotedPhrases, AreFoundAsWrittenWhateverTheQuotesAndSpacing) {
  auto p = quoted_phrases("Who wrote \"as   Prescribed\" and \u201cthe discipline of\u201d, not \"one\"? \"open");
  ASSERT_EQ(p.size(), 2u) << Json(p).dump();
  EXPECT_EQ(p[0], "as prescribed");
  EXPECT_EQ(p[1], "the discipline of");
  EXPECT_TRUE(holds_phrase("medication AS\n prescribed.", "as prescribed"));
  EXPECT_FALSE(holds_phrase("as it was prescribed", "as prescribed"));
  EXPECT_FALSE(holds_phrase("anything", ""));
  EXPECT_TRUE(quoted_phrases(std::string(100000, '"')).empty());
}

TEST(QuestionCues, NamedPapersAreTheWordsBeforePaper) {
  EXPECT_EQ(named_paper("What does Figure 1 of the RAG paper give an overview of?"), "RAG");
  EXPECT_EQ(named_paper("Which universities are the authors of the Bethe lattice quantum criticality paper at?"),
            "Bethe lattice quantum criticality");
  EXPECT_EQ(named_paper("In the CIME article, what is shown?"), "CIME");
  EXPECT_EQ(named_paper("Which institutions are the authors of the retrieval-augmented generation paper at?"),
            "retrieval-augmented generation");
  EXPECT_EQ(named_paper("What did the systematic review calculate?"), "") << "a kind of paper names none";
  EXPECT_EQ(named_paper("What does this paper propose?"), "");
  EXPECT_EQ(named_paper("How many genes were found?"), "");
  EXPECT_EQ(named_paper(std::string(100000, 'x') + " paper"), "");
}

// Generated over the ways a question says which study it is about (a clause, a name before "paper",
// a Chinese 研究中) and the asks after it: the ask is left whole and the naming words are gone.
TEST(QuestionCues, TheWordsNamingTheStudyAreLeftOutWithinIt) {
  const std::vector<std::string> asks = {"under which SRA accession were the sequencing data deposited?",
                                         "what does DPPS stand for?", "how many lines were screened?"};
  for (const char* kind : {"study", "paper", "preprint"})
    for (const char* verb : {"showing that", "on", "about", "reporting that"})
      for (const std::string& ask : asks) {
        const std::string q =
            std::string("In the ") + kind + " " + verb + " enhancer variants disrupt Ciona heart development, " + ask;
        EXPECT_EQ(without_study_naming(q), ask) << q;
        const std::string named = "In the yeast brewing proteomics " + std::string(kind) + ", " + ask;
        const std::string left = without_study_naming(named);
        EXPECT_NE(left.find(ask), std::string::npos) << named;
        EXPECT_EQ(left.find("brewing"), std::string::npos) << named << " → " << left;
      }
  EXPECT_EQ(without_study_naming("线虫ADAR研究中，还使用了哪两株病原菌？"), "还使用了哪两株病原菌？");
  EXPECT_EQ(without_study_naming("在小鼠视网膜编辑研究中，共有多少个位点？"), "共有多少个位点？");
  for (const char* q : {"How many genes were found?", "What does this paper propose?", "In the study, which dose?",
                        "哪些基因参与了这个过程？"})
    EXPECT_EQ(without_study_naming(q), q) << "nothing names a study, or nothing would be left";
}

TEST(QuestionCues, CaptionLabelsMatchTheirKindAndNumberOnly) {
  auto fig = asked_caption_label("What does FIG. 1 of the Bethe lattice paper depict?");
  ASSERT_TRUE(fig);
  EXPECT_FALSE(fig->table);
  EXPECT_EQ(fig->number, "1");
  EXPECT_TRUE(caption_has_label("Figure 1: Overview of our approach.", *fig));
  EXPECT_TRUE(caption_has_label("  Fig.1. Schematic depiction", *fig));
  EXPECT_FALSE(caption_has_label("Figure 10: Other", *fig)) << "Figure 10 is not Figure 1";
  EXPECT_FALSE(caption_has_label("Table 1: Results", *fig)) << "a table is not a figure";
  EXPECT_FALSE(caption_has_label("As Figure 1 shows", *fig)) << "a caption begins with its label";
  auto table = asked_caption_label("表2 列出了什么？");
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->table);
  EXPECT_TRUE(caption_has_label("Table 2 – Yields", *table));
  EXPECT_TRUE(caption_has_label("表 2 产量", *table));
  auto supplementary = asked_caption_label("What is in table s3?");
  ASSERT_TRUE(supplementary);
  EXPECT_EQ(supplementary->number, "S3");
  EXPECT_TRUE(caption_has_label("Table S3. Primers", *supplementary));
  EXPECT_FALSE(asked_caption_label("Which figures of merit were used?"));
  EXPECT_FALSE(asked_caption_label("What is in the table?"));
}

TEST(QuestionCues, DefinitionQuestionsNameTheirTermAndPagesThatDefineItAreKnown) {
  EXPECT_EQ(defined_term("What is CIME?"), "CIME");
  EXPECT_EQ(defined_term("What are matched molecular pairs?"), "matched molecular pairs");
  EXPECT_EQ(defined_term("What does the term node refer to in the Bethe lattice paper?"), "node");
  EXPECT_EQ(defined_term("In the RAG paper, what does the abbreviation DPR stand for?"), "DPR");
  EXPECT_EQ(defined_term("什么是miR156？"), "miR156");
  EXPECT_EQ(defined_term("What is the overall DVT rate in trauma patients without thromboprophylaxis?"), "")
      << "not a definition question: too many words";
  EXPECT_EQ(defined_term("Which databases were searched?"), "");
  EXPECT_TRUE(defines_term("the ChemInformatics Model Explorer (CIME) shows", "CIME"));
  EXPECT_TRUE(defines_term("CIME is a tool for", "CIME"));
  EXPECT_TRUE(defines_term("Matched molecular pairs (MMPs) differ", "matched molecular pairs"));
  EXPECT_TRUE(defines_term("a structure known as a node", "node"));
  EXPECT_TRUE(defines_term("Throughout this paper, the term \u201cnode\u201d shall refer to", "node"));
  EXPECT_FALSE(defines_term("describing the i = 0 node is then", "node")) << "\"X is\" alone defines nothing";
  EXPECT_FALSE(defines_term("we used CIME to plot", "CIME")) << "a mention is not a definition";
  EXPECT_FALSE(defines_term("cime is", "CIME")) << "an acronym is matched as written";
  EXPECT_FALSE(defines_term("anything", ""));
}

TEST(QuestionCues, QuantityQuestionsAndNumbersByTheirWords) {
  EXPECT_TRUE(asks_for_quantity("What risks of bleeding did the review calculate for LMWH prophylaxis?"));
  EXPECT_TRUE(asks_for_quantity("How many SPL genes does rice have?"));
  EXPECT_TRUE(asks_for_quantity("低分子肝素导致出血的风险是多少？"));
  EXPECT_FALSE(asks_for_quantity("Which databases were searched?"));
  const std::string q = "What risk of bleeding was calculated for LMWH?";
  EXPECT_TRUE(number_near_question_words(q, "we calculated the risk of bleeding and HIT to be 3.9% and 0.7%"));
  EXPECT_FALSE(number_near_question_words(q, "The risks of heparin include bleeding and thrombocytopenia."))
      << "no number";
  EXPECT_FALSE(number_near_question_words(q, "bleeding was first reported in 1998 [9] by miR156 carriers"))
      << "a year, a citation mark and a name are not measured numbers";
  EXPECT_FALSE(number_near_question_words(
      q, "bleeding was seen. " + std::string(200, 'x') + " one two three four five six seven eight nine ten 42"))
      << "too far from the question's words";
  EXPECT_FALSE(number_near_question_words("", "3.9%"));
}

// A first page's front matter ends where its body's first heading opens a paragraph.
TEST(FrontMatter, EndsAtTheBodysFirstHeading) {
  const std::vector<std::string> rag = {"Retrieval-Augmented Generation for\nPatrick Lewis, Ethan Perez",
                                        "Abstract\nLarge pre-trained language models have been shown",
                                        "seq2seq baseline.\n1 Introduction\nPre-trained neural language models",
                                        "implicit knowledge base [51, 52]."};
  EXPECT_EQ(front_matter_chunks(rag, true), 2u) << "the chunk opening the introduction is body text";
  EXPECT_EQ(front_matter_chunks({"Title\nAuthors", "I. INTRODUCTION It is often the case"}, true), 1u);
  EXPECT_EQ(front_matter_chunks({"Title", "Introduction\nMultisystem traumatic injury"}, false), 1u);
  EXPECT_EQ(front_matter_chunks({"Title", "1. Introduction"}, true), 1u);
  const std::vector<std::string> structured = {"Title\nAbstract\nBackground: Knowledge regarding the best",
                                               "Methods: A mix of quantitative methods"};
  EXPECT_EQ(front_matter_chunks(structured, true), 2u)
      << "a structured abstract's \"Background:\" is no heading: with an abstract the whole page is front matter";
  EXPECT_EQ(front_matter_chunks(structured, false), 0u) << "no heading and no abstract: nothing is known";
  EXPECT_EQ(front_matter_chunks({"Title", "Introduction of heparin lowered the rate"}, true), 2u)
      << "a sentence beginning with the word is no heading";
  EXPECT_EQ(front_matter_chunks({}, true), 0u);
}

// A quoted phrase raises the page that holds it as written.
TEST_F(ClassicRetrieveOnPdfs, AQuotedPhraseRaisesThePageThatHoldsIt) {
  // Unquoted, the medication page (p4, "why it is prescribed") comes first; quoted, p5 ("took
  // their medication as prescribed").
  Json r = classic("medication \"as prescribed\" exercise regimen", 5);
  ASSERT_FALSE(r["results"].empty());
  EXPECT_TRUE(holds_phrase(r["results"][0]["text"].get<std::string>(), "as prescribed")) << r["results"][0].dump();
}

namespace {

// A one-page PDF written by hand, one line of Helvetica text per entry of `lines`.
std::string one_page_pdf(const std::vector<std::string>& lines) {
  std::string content = "BT /F1 11 Tf 72 720 Td 14 TL";
  for (auto& l : lines) content += " (" + l + ") Tj T*";
  content += " ET";
  const std::vector<std::string> objs = {
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream"};
  std::string pdf = "%PDF-1.7\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objs.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objs[i] + "\nendobj\n";
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objs.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[24];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objs.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

// The offline agent's answer to `question` over a library of one page holding `lines`.
std::string offline_answer_over(const std::vector<std::string>& lines, const std::string& question) {
  TempDir dir;
  const std::string db = (dir.path() / "papers.duckdb").string();
  {
    auto lib = PaperLibrary::open(db);
    EXPECT_TRUE(lib.is_ok()) << lib.status().to_string();
    if (!lib.is_ok()) return "";
    auto added = (*lib)->add(dir.write("page.pdf", one_page_pdf(lines)));
    EXPECT_TRUE(added.is_ok()) << added.status().to_string();
  }
  ToolRegistry registry;
  register_builtin_types(registry);
  EXPECT_TRUE(registry.load_builtin().is_ok());
  ToolContext ctx;
  ctx.set_option("papers_db", db);
  ctx.set_option("cache_dir", (dir.path() / "cache").string());
  ctx.set_option("offline", "1");
  auto a = run_offline_agent(question, registry, ctx, AgentOptions{});
  EXPECT_TRUE(a.is_ok()) << a.status().to_string();
  return a.is_ok() ? a->answer : "";
}

}  // namespace

// The page was found, but no sentence on it states the number asked for: the answer says so,
// and says nothing of the kind when a sentence does state it.
TEST(OfflineAnswer, SaysWhenThePageWasFoundButTheFactWasNot) {
  const std::string question = "How many SPL genes does the rice genome encode?";
  const std::string without =
      offline_answer_over({"SPL genes of rice regulate tillering and panicle branching.",
                           "The rice SPL genes are targets of miR156 and respond to the age pathway."},
                          question);
  EXPECT_NE(without.find("tillering"), std::string::npos) << "the page was found: " << without;
  EXPECT_NE(without.find("none of the sentences above states the number asked for"), std::string::npos) << without;
  const std::string with = offline_answer_over(
      {"The rice genome encodes 19 SPL genes.", "SPL genes of rice regulate tillering and panicle branching."},
      question);
  EXPECT_NE(with.find("19 SPL genes"), std::string::npos) << with;
  EXPECT_EQ(with.find("none of the sentences"), std::string::npos) << with;
}

// A keyword list shares the question's words and states no fact: it is never quoted as an answer.
TEST(OfflineAnswer, AKeywordListIsNoAnswer) {
  const std::string answer = offline_answer_over({"Key words: SPL genes, rice, tillering, panicle branching, miR156.",
                                                  "SPL genes of rice regulate tillering and panicle branching."},
                                                 "What do the SPL genes of rice regulate?");
  EXPECT_NE(answer.find("regulate tillering"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("Key words"), std::string::npos) << answer;
}

// A question mixing the scripts glues its English terms to Chinese ("在SMN数据中", "Cajal body条目"):
// the terms are still the words that find the sentence holding them.
TEST(OfflineAnswer, EnglishTermsGluedToChineseStillCount) {
  const std::vector<std::string> page = {
      "The enrichment analysis was run on the purified complexes.",
      "The SMN complex and Cajal body proteins gave an adjusted P value of 0.00038."};
  for (const std::string question : {"在SMN数据中，Cajal body条目的P值是多少？", "SMN数据里Cajal body的P值？",
                                     "Cajal body条目在SMN富集分析中的P值是多少"}) {
    const std::string answer = offline_answer_over(page, question);
    EXPECT_NE(answer.find("0.00038"), std::string::npos) << question << "\n" << answer;
    EXPECT_EQ(answer.find("None of the passages"), std::string::npos) << question << "\n" << answer;
  }
}

// The question's words meet the sentence's in other forms: stems ("coat" and "coated") and the parts
// of a hyphenated word ("sputter-coat" and "sputter coated").
TEST(OfflineAnswer, WordsMeetInOtherForms) {
  const std::string answer =
      offline_answer_over({"The cuticle of each worm was imaged by electron microscopy at high magnification.",
                           "Worms were sputter coated with gold:palladium (80:20) for two minutes."},
                          "Which metal was used to sputter-coat the worm cuticles?");
  ASSERT_NE(answer.find("Worms were sputter coated with gold:palladium (80:20)"), std::string::npos) << answer;
  EXPECT_LT(answer.find("Worms were sputter coated"), answer.find("The cuticle of each worm")) << answer;
}

// A table as the text extractor writes it (a cell per line, a row per block) is read as rows
// with their header and caption, every value as printed; the prose around it as sentences.
// Generated over column counts, row counts and the forms numbers are printed in.
TEST(AnswerUnits, TablesAsRowsWithHeaderAndCaption) {
  const std::vector<std::string> values = {"105.9 ± 13.4", "23,984", "1.4 μM", "12.5%", "−0.31", "0.024", "7 (3.5)"};
  for (size_t columns = 2; columns <= 4; ++columns)
    for (size_t rows = 1; rows <= 3; ++rows) {
      std::string page = "Results of the assay are summarised below and discussed in the next section.\n\n";
      page += "Table 2. Kinetic parameters of the enzymes tested\n\n";
      std::vector<std::string> header = {"Template:dNTP"};
      for (size_t c = 1; c < columns; ++c) header.push_back("Measure " + std::string(1, char('A' + c)) + " (units)");
      for (auto& h : header) page += h + "\n";
      std::vector<std::vector<std::string>> table;
      for (size_t r = 0; r < rows; ++r) {
        std::vector<std::string> row = {"dG:row" + std::to_string(r)};
        for (size_t c = 1; c < columns; ++c) row.push_back(values[(r * columns + c) % values.size()]);
        page += "\n";
        for (auto& cell : row) page += cell + " \n";
        table.push_back(row);
      }
      page += "\na Relative efficiency compared with the control incorporation of the correct nucleotide.\n\n";
      page += "The turnover numbers were similar for both incorporations in every replicate.\n";
      const auto units = answer_units(page);
      SCOPED_TRACE(page);
      std::vector<std::string> row_units;
      for (auto& u : units)
        if (u.table_row) row_units.push_back(u.text);
      ASSERT_EQ(row_units.size(), rows);
      for (size_t r = 0; r < rows; ++r) {
        EXPECT_EQ(row_units[r].rfind("Table 2. Kinetic parameters", 0), 0u) << row_units[r];
        std::string cells;
        for (auto& h : header) cells += (cells.empty() ? "" : " | ") + h;
        EXPECT_NE(row_units[r].find(cells + ": "), std::string::npos) << row_units[r];
        std::string row_cells;
        for (auto& c : table[r]) row_cells += (row_cells.empty() ? "" : " | ") + c;
        EXPECT_NE(row_units[r].find(": " + row_cells), std::string::npos) << row_units[r];
      }
      auto has = [&](const std::string& s) {
        return std::any_of(units.begin(), units.end(),
                           [&](const AnswerUnit& u) { return !u.table_row && u.text == s; });
      };
      EXPECT_TRUE(has("Results of the assay are summarised below and discussed in the next section."));
      EXPECT_TRUE(has("The turnover numbers were similar for both incorporations in every replicate."));
    }
}

// A table the extractor writes a row per line (cells spaced on one line), with or without its caption
// in the same block: each row is a unit with the caption and the header; prose around stays sentences,
// and a line-numbered preprint's prose (one number among many words per line) is never read as rows.
TEST(AnswerUnits, TablesPrintedARowPerLine) {
  const std::vector<std::string> values = {"1.65E-25", "0.00371319", "7266", "12.5%", "(3.5)", "−0.31", "203"};
  for (bool caption_in_block : {true, false})
    for (size_t rows = 3; rows <= 6; ++rows) {
      std::string page = "The enrichment of the purified complex is summarised below.\n\n";
      page += caption_in_block ? "Table 1\n" : "Table 1\n\n";
      page += "GO term Term ID P.adj Term size Query size\n";
      std::vector<std::string> lines;
      for (size_t r = 0; r < rows; ++r)
        lines.push_back("complex number " + std::to_string(r) + " GO:00" + std::to_string(34719 + r) + " " +
                        values[r % values.size()] + " " + values[(r + 3) % values.size()] + " " +
                        std::to_string(r + 9));
      for (auto& l : lines) page += l + "\n";
      page += "\n12 Cells were grown for two weeks in 8 ml of medium on every plate we had in the lab\n";
      page += "13 and then counted by two people who did not know the genotypes of the 4 lines.\n";
      SCOPED_TRACE(page);
      std::vector<std::string> row_units, other;
      for (auto& u : answer_units(page)) (u.table_row ? row_units : other).push_back(u.text);
      ASSERT_EQ(row_units.size(), rows);
      for (size_t r = 0; r < rows; ++r) {
        EXPECT_EQ(row_units[r].rfind("Table 1 — ", 0), 0u) << row_units[r];
        EXPECT_NE(row_units[r].find("GO term Term ID P.adj Term size Query size: " + lines[r]), std::string::npos)
            << row_units[r];
      }
      EXPECT_NE(std::find(other.begin(), other.end(), "The enrichment of the purified complex is summarised below."),
                other.end());
      EXPECT_EQ(other.back().rfind("12 Cells were grown", 0), 0u) << "line-numbered prose stays a sentence";
    }
}

// A table the library stored a row per line of cells (papers/page_chunks.h), with or without a caption
// above it, a header row and group labels between rows: each row is read with all three.
TEST(AnswerUnits, CellRowsReadWithTitleHeaderAndLabel) {
  for (int bits = 0; bits < 8; ++bits) {
    const bool caption = bits & 1, header = bits & 2, labels = bits & 4;
    std::string page = "Reagents were used as listed.\n\n";
    page += caption ? "Table 2. Key resources\n\n" : "Key resources table\n\n";
    if (header) page += "REAGENT or RESOURCE | SOURCE | IDENTIFIER\n\n";
    for (int r = 0; r < 6; ++r) {
      if (labels && r % 3 == 0) page += "Group " + std::string(1, char('A' + r / 3)) + "\n\n";
      page += "Reagent " + std::string(1, char('a' + r)) + " | Lab " + std::to_string(r) +
              " | ID:" + std::to_string(100 + r) + "\n\n";
    }
    page += "After the table, the prose goes on about the reagents. It has a second sentence about them too.\n";
    SCOPED_TRACE(page);
    std::vector<std::string> rows, other;
    for (auto& u : answer_units(page)) (u.table_row ? rows : other).push_back(u.text);
    ASSERT_EQ(rows.size(), 6u);
    for (int r = 0; r < 6; ++r) {
      const std::string& row = rows[size_t(r)];
      EXPECT_EQ(row.rfind(caption ? "Table 2. Key resources" : "Key resources table", 0), 0u) << row;
      if (header) {
        EXPECT_NE(row.find(" — REAGENT or RESOURCE | SOURCE | IDENTIFIER"), std::string::npos) << row;
      }
      if (labels) {
        EXPECT_NE(row.find(" — Group " + std::string(1, char('A' + r / 3)) + ": "), std::string::npos) << row;
      }
      EXPECT_NE(row.find("Reagent " + std::string(1, char('a' + r)) + " | Lab " + std::to_string(r) + " | ID:"),
                std::string::npos)
          << row;
    }
    EXPECT_EQ(other.back(), "It has a second sentence about them too.") << "prose after the table";
  }
}

// The units quoted: the best five, each text once, none without a score; the best unit of the page
// retrieval ranked first always among them (a sixth when it is not), wherever its own score put it. Generated over
// where that unit stands among the others and how many units there are.
TEST(AnswerUnits, TheFirstPagesBestUnitIsAlwaysQuoted) {
  for (size_t n = 0; n <= 9; ++n)
    for (size_t at = 0; at <= n; ++at) {  // at == n: the first page holds no unit with a score
      std::vector<ScoredUnit> scored;
      for (size_t i = 0; i < n; ++i)
        scored.push_back({10.0 - double(i), "unit " + std::to_string(i), i == at ? 1 : 2, i == at ? 0 : 1 + int(i)});
      scored.push_back({0, "no score", 1, 0});
      scored.push_back({9.5, "unit 0", 3, 4});  // a text twice (scored below the first): quoted once
      std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.score > b.score; });
      const auto chosen = quoted_units(scored, 5);
      EXPECT_LE(chosen.size(), at < 5 ? 5u : 6u) << "one more than the limit only for the first page's unit";
      std::set<std::string> texts;
      for (const ScoredUnit* u : chosen) {
        EXPECT_GT(u->score, 0) << u->text;
        EXPECT_TRUE(texts.insert(u->text).second) << u->text << " quoted twice";
      }
      const bool first_page_quoted =
          std::any_of(chosen.begin(), chosen.end(), [](const ScoredUnit* u) { return u->rank == 0; });
      EXPECT_EQ(first_page_quoted, at < n) << n << " units, the first page's at " << at;
      for (size_t i = 0; i < std::min<size_t>(n, 5); ++i)  // the best five always stay
        EXPECT_TRUE(texts.count("unit " + std::to_string(i))) << i;
    }
  EXPECT_TRUE(quoted_units({}, 5).empty());
}

TEST(AnswerUnits, ProseNumbersAsPrintedAndCaptionsWhole) {
  const auto units = answer_units(
      "the catalytic efficiency of 10 .3 in terms of kcat/Km and the\nrelative efficiency of 0 .76 was seen. "
      "A 1,200-fold change was not.\n\nFigure 3. Steady-state kinetics of pol η with 5FdUTP opposite dG.\n");
  std::vector<std::string> texts;
  for (auto& u : units) texts.push_back(u.text);
  EXPECT_NE(
      std::find(texts.begin(), texts.end(),
                "the catalytic efficiency of 10.3 in terms of kcat/Km and the relative efficiency of 0.76 was seen."),
      texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "A 1,200-fold change was not."), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "Figure 3. Steady-state kinetics of pol η with 5FdUTP opposite dG."),
            texts.end());
}

// A point after an abbreviation or an initial ends no sentence; a point after a word does. Generated:
// every abbreviation and initial papers print mid-sentence, before a number, a name and a lower-case word.
TEST(AnswerUnits, SentencesGoOnPastAbbreviationsAndInitials) {
  for (const std::string abbreviation : {"Fig.", "Figs.", "Dr.", "Prof.", "et al.", "e.g.", "i.e.", "vs.", "cf.",
                                         "approx.", "No.", "Ref.", "Eq.", "Suppl.", "C.", "P. A."})
    for (const std::string next : {"2 shows the rise of the counts", "Sharp provided the cell lines", "roots grew"}) {
      const std::string sentence = "The lines studied here (see " + abbreviation + " " + next + ") were kept.";
      const auto got = sentences("Cells were grown for two weeks. " + sentence + " Then they were counted again.");
      ASSERT_EQ(got.size(), 3u) << sentence;
      EXPECT_EQ(got[1], sentence);
    }
}

// Greek letters are found whichever way they are written.
TEST(QueryTerms, GreekLettersBothWays) {
  const std::pair<const char*, const char*> letters[] = {{"eta", "η"}, {"alpha", "α"}, {"kappa", "κ"}, {"beta", "β"}};
  for (auto& [name, letter] : letters) {
    auto named = query_expansions(std::string("Which residue of pol ") + name + " binds the template?");
    EXPECT_NE(std::find(named.begin(), named.end(), letter), named.end()) << name;
    auto symbol = query_expansions(std::string("Which residue of pol ") + letter + " binds the template?");
    EXPECT_NE(std::find(symbol.begin(), symbol.end(), name), symbol.end()) << letter;
    auto inside = query_expansions(std::string("the ") + name + "ine content");  // a word holding the name: no letter
    EXPECT_EQ(std::find(inside.begin(), inside.end(), letter), inside.end()) << name;
  }
}

namespace bioagent {
namespace {

// Identifiers as papers print them, each inside several question frames: found whole, with the trailing
// punctuation of the sentence cut; ordinary words, capitalised words, numbers and short acronyms are not.
TEST(QuestionIdentifiers, WholeIdentifiersInAnyFrameAndNoOrdinaryWords) {
  const std::vector<std::string> ids = {"LGALS1",     "Hs00355202_m1", "GO:0035370",        "chr5A:35277942-35282999",
                                        "CiHAT1",     "CsMURE",        "Pp3c8_19720_int_F", "AT4G14540",
                                        "SALK_146574"};
  const std::vector<std::string> frames = {"What is %?", "Which gene does % affect, and why", "%.",
                                           "在表中，%的P值是多少？", "Is (%) listed?"};
  for (auto& id : ids)
    for (auto& f : frames) {
      std::string q = f;
      q.replace(q.find('%'), 1, id);
      EXPECT_EQ(question_identifiers(q), std::vector<std::string>{id}) << q;
    }
  for (const char* plain : {"What is the Km of the enzyme in 2024?", "Which Valencia trees were used?",
                            "How many TFs and DNA motifs?", "What p-value (0.05) was used?"})
    EXPECT_TRUE(question_identifiers(plain).empty()) << plain;
}

}  // namespace
}  // namespace bioagent
