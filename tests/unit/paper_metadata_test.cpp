// Title, authors, DOI and year from a paper's first page, its sections and
// references: against CERMINE's ground truth and the fixture PDFs (skipped
// when absent), and on made-up layouts, including hostile ones.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "papers/paper_extract.h"
#include "papers/paper_metadata.h"
#include "papers/pdf_layout.h"
#include "test_util.h"

using namespace bioagent;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string squeeze(const std::string& s) {  // spaces collapsed, dots dropped, lower case
  std::string out;
  for (char c : s) {
    if (c == '.') continue;
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct Truth {
  std::string title, doi, abstract;
  std::vector<std::string> authors;
  int year = 0;
};

// The article-meta of a JATS file: title, author names, DOI, first year.
Truth read_truth(const fs::path& xml) {
  std::string s = read_all(xml);
  s = s.substr(0, s.find("</article-meta>"));
  Truth t;
  std::smatch m;
  if (std::regex_search(s, m, std::regex("<article-title>([^<]*)</article-title>"))) t.title = m[1];
  if (std::regex_search(s, m, std::regex("<article-id pub-id-type=\"doi\">([^<]*)<"))) t.doi = m[1];
  if (std::regex_search(s, m, std::regex("<year>(\\d{4})</year>"))) t.year = std::stoi(m[1]);
  if (std::regex_search(s, m, std::regex("<abstract[^>]*>([\\s\\S]*?)</abstract>")))
    t.abstract = std::regex_replace(std::string(m[1]), std::regex("<[^>]+>"), " ");
  static const std::regex kContrib("<contrib contrib-type=\"author\"[^>]*>([\\s\\S]*?)</contrib>");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kContrib); it != std::sregex_iterator(); ++it) {
    std::string c = (*it)[1];
    if (std::regex_search(c, m, std::regex("<string-name>([^<]*)</string-name>"))) t.authors.push_back(m[1]);
  }
  return t;
}

PdfDoc read_doc(const fs::path& pdf) {
  auto file = load_pdf_file(pdf);
  EXPECT_TRUE(file.is_ok());
  auto doc = read_pdf_layout(*file);
  EXPECT_TRUE(doc.is_ok()) << doc.status().to_string();
  return std::move(doc).value();
}

// A page made of lines: {text, font size}, stacked from the top, one block each.
PdfPage page_of(const std::vector<std::pair<std::string, float>>& lines) {
  PdfPage p;
  p.number = 1;
  p.width = 612;
  p.height = 792;
  float y = 60;
  for (auto& [text, size] : lines) {
    PdfBlock b;
    b.x0 = 72;
    b.x1 = 540;
    b.y0 = y;
    b.y1 = y + size * 1.2f;
    b.text = text;
    b.font_size = size;
    b.lines.push_back({b.x0, b.y0, b.x1, b.y1, size});
    p.blocks.push_back(b);
    y = b.y1 + 4;
  }
  return p;
}

}  // namespace

TEST(PaperMetadata, MatchesCermineGroundTruth) {
  const fs::path dir = bioagent::testing::fixtures_dir() / "pdfs" / "cermine_biomedical_oa";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  const std::pair<const char*, const char*> cases[] = {{"test1.pdf", "test1-metadata.xml"},
                                                       {"test2.pdf", "test2-content.xml"},
                                                       {"test3.pdf", "test3-metadata.xml"},
                                                       {"test5.pdf", "test5-content.xml"}};
  for (auto& [pdf, xml] : cases) {
    Truth truth = read_truth(dir / xml);
    ASSERT_FALSE(truth.title.empty()) << xml;
    PaperMetadata got = extract_metadata(read_doc(dir / pdf));
    EXPECT_EQ(squeeze(got.title), squeeze(truth.title)) << pdf;
    ASSERT_EQ(got.authors.size(), truth.authors.size()) << pdf;
    for (size_t i = 0; i < got.authors.size(); ++i)
      EXPECT_EQ(squeeze(got.authors[i]), squeeze(truth.authors[i])) << pdf;
    EXPECT_EQ(got.doi, truth.doi) << pdf << (truth.doi.empty() ? ": no DOI is printed, none may be made up" : "");
    EXPECT_EQ(got.year, truth.year) << pdf;
    std::string want = squeeze(truth.abstract).substr(0, 80), have = squeeze(got.abstract).substr(0, 80);
    EXPECT_EQ(have, want) << pdf << ": the abstract's start";
  }
}

// PaSa (arXiv 2501.10120) mentions "papers published at ICLR 2023" on its
// first page: prose, not its date, which the arXiv stamp gives. paper.pdf's
// abstract runs over several blocks and is kept whole.
TEST(PaperMetadata, YearAndAbstractOfThePaperQaFixtures) {
  const fs::path dir = bioagent::testing::fixtures_dir() / "pdfs" / "paperqa_stub";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  PaperMetadata pasa = extract_metadata(read_doc(dir / "pasa.pdf"));
  EXPECT_EQ(pasa.year, 2025);
  PaperMetadata paper = extract_metadata(read_doc(dir / "paper.pdf"));
  EXPECT_EQ(paper.abstract.rfind("Chemists can be skeptical", 0), 0u) << paper.abstract;
  EXPECT_GT(paper.abstract.size(), 700u) << paper.abstract;
  const std::string end = "uncover structure-property relationships.";
  ASSERT_GE(paper.abstract.size(), end.size());
  EXPECT_EQ(paper.abstract.substr(paper.abstract.size() - end.size()), end) << paper.abstract;
  // Lower-case prose never dates a paper; a capitalised "Published" line does.
  PdfDoc prose;
  prose.pages.push_back(page_of({{"A title about gene families in plants", 16},
                                 {"benchmarks published at ICLR 2023 and NeurIPS 2022", 10},
                                 {"Published: 12 March 2021", 9}}));
  EXPECT_EQ(extract_metadata(prose).year, 2021);
}

TEST(PaperMetadata, FrontMatterOfMadeUpPages) {
  PdfDoc doc;
  doc.info_title = "Microsoft Word - draft7.doc";
  doc.info_author = "uploader";
  doc.pages.push_back(page_of({{"RESEARCH ARTICLE", 12},
                               {"Auxin response factors shape", 22},
                               {"the root meristem of rice", 22},
                               {"Ana M. Silva1*, Bo Li2,3, Carla van der Berg3 and Dmitri", 11},
                               {"K. Ivanov\xe2\x80\xa0", 11},
                               {"1Department of Botany, Some University", 9},
                               {"Abstract", 11},
                               {"Big", 40}}));
  PaperMetadata m = extract_metadata(doc);
  EXPECT_EQ(m.title, "Auxin response factors shape the root meristem of rice") << "the label is not part of it";
  EXPECT_EQ(m.authors, (std::vector<std::string>{"Ana M. Silva", "Bo Li", "Carla van der Berg", "Dmitri K. Ivanov"}));

  // A big two-word figure label is not the title; lines that are not names
  // leave the PDF's own author list (without its "{et al.}") in charge.
  PdfDoc other;
  other.info_author = "Jane Roe {et al.}";
  other.pages.push_back(page_of({{"Deep learning for plant phenotyping at scale", 14},
                                 {"Demo: https://example.org", 12},
                                 {"Paper Search", 30},
                                 {"Abstract", 12}}));
  m = extract_metadata(other);
  EXPECT_EQ(m.title, "Deep learning for plant phenotyping at scale");
  EXPECT_EQ(m.authors, std::vector<std::string>{"Jane Roe"});

  // A rotated margin stamp is neither title nor author, but dates an arXiv paper.
  PdfDoc arxiv;
  arxiv.pages.push_back(page_of({{"Gene families of the green lineage", 16}}));
  PdfBlock stamp;
  stamp.x0 = 10, stamp.x1 = 38, stamp.y0 = 200, stamp.y1 = 600;
  stamp.text = "arXiv:2401.00001v2  [q-bio.GN]  3 Jan 2024";
  stamp.font_size = 20;
  stamp.lines.push_back({10, 200, 38, 600, 20});
  arxiv.pages[0].blocks.insert(arxiv.pages[0].blocks.begin(), stamp);
  m = extract_metadata(arxiv);
  EXPECT_EQ(m.title, "Gene families of the green lineage");
  EXPECT_EQ(m.year, 2024);
  EXPECT_TRUE(m.authors.empty());
}

TEST(PaperMetadata, HostileLayoutsGiveNothingRatherThanGarbage) {
  EXPECT_TRUE(extract_metadata(PdfDoc{}).title.empty());
  PdfDoc doc;
  doc.pages.push_back(page_of({{std::string(100000, 'A'), 30},
                               {"\xe2\x80\xa0\xe2\x80\xa1*12", 20},
                               {"'); DROP TABLE metadata; --", 20},
                               {"\xff\xfe\xfd broken utf8 title words", 18}}));
  doc.pages[0].blocks[0].lines.clear();  // text without line boxes: skipped, not misread
  PaperMetadata m = extract_metadata(doc);
  EXPECT_LE(m.title.size(), 400u);
  for (auto& a : m.authors) EXPECT_LE(a.size(), 60u);
  // A title line repeated a thousand times stops growing at 400 characters.
  std::vector<std::pair<std::string, float>> many(1000, {"a long title line that keeps going", 20});
  PdfDoc tall;
  tall.pages.push_back(page_of(many));
  tall.pages[0].height = 1e9f;
  EXPECT_LE(extract_metadata(tall).title.size(), 400u);
}

namespace {

// The text column of each row `prepare_paper` made for `table`, in order.
std::vector<std::string> column_of(const PreparedPaper& p, const std::string& table) {
  std::vector<std::string> out;
  for (auto& r : p.rows)
    if (r.sql.rfind("INSERT INTO " + table + " ", 0) == 0) out.push_back(std::get<std::string>(r.params[1]));
  return out;
}

}  // namespace

// Headings set on the first line of their paragraph's block, numbered and
// lettered (appendix) headings, running heads left out; reference lists split
// into entries whether numbered ("12.", "[12]", "(12)", the number alone on a
// line or each line a block) or author-year with hanging indents.
TEST(PaperStructure, SectionsAndReferencesOfTheFixtures) {
  const fs::path dir = bioagent::testing::fixtures_dir() / "pdfs";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  auto prepared = [&](const char* name) {
    auto p = prepare_paper(dir / name);
    EXPECT_TRUE(p.is_ok()) << name << ": " << p.status().to_string();
    return std::move(p).value();
  };
  auto hindawi = column_of(prepared("cermine_biomedical_oa/test2.pdf"), "sections");
  EXPECT_EQ(hindawi.front(), "1. Introduction");
  EXPECT_NE(std::find(hindawi.begin(), hindawi.end(), "11. Discussion"), hindawi.end());
  for (auto& s : hindawi)
    EXPECT_EQ(s.find("Rehabilitation Research and Practice"), std::string::npos) << "a running head";
  auto bmc = column_of(prepared("cermine_biomedical_oa/example2.pdf"), "sections");
  EXPECT_EQ(bmc, (std::vector<std::string>{"Abstract", "Background", "Methods", "Results",
                                           "Document review and participatory observations", "Discussion",
                                           "Conclusions", "Acknowledgments", "References"}))
      << "with the bold subsection heading of the results";
  auto pasa = prepared("paperqa_stub/pasa.pdf");
  auto pasa_sections = column_of(pasa, "sections");
  EXPECT_NE(std::find(pasa_sections.begin(), pasa_sections.end(), "B Implementation Details of the Selector"),
            pasa_sections.end());

  const std::pair<const char*, size_t> numbered[] = {
      {"cermine_biomedical_oa/example2.pdf", 31}, {"cermine_biomedical_oa/test1.pdf", 79},
      {"cermine_biomedical_oa/test2.pdf", 17},    {"cermine_biomedical_oa/test3.pdf", 15},
      {"cermine_biomedical_oa/test5.pdf", 40},    {"paperqa_stub/paper.pdf", 149}};
  for (auto& [name, count] : numbered) {
    auto refs = column_of(prepared(name), "reference");
    ASSERT_EQ(refs.size(), count) << name;
    for (size_t i = 0; i < refs.size(); ++i) {
      std::string n = std::to_string(i + 1);
      std::string head = refs[i].substr(refs[i].find_first_not_of(' '), 8);
      EXPECT_TRUE(head.rfind(n + ".", 0) == 0 || head.rfind("[" + n + "]", 0) == 0 || head.rfind("(" + n + ")", 0) == 0)
          << name << " entry " << i << ": " << refs[i].substr(0, 60);
    }
  }
  auto author_year = column_of(pasa, "reference");
  EXPECT_EQ(author_year.size(), 39u);
  EXPECT_EQ(author_year.front().rfind("Shubham Agarwal", 0), 0u);
  EXPECT_EQ(author_year.back().rfind("Shunyu Yao", 0), 0u) << "the appendix is not a reference";
  for (auto& r : author_year) EXPECT_LT(r.size(), 600u) << r.substr(0, 80);
}

// A figure's region is the cluster of graphics next to its caption: not the
// running-head bar above it, not the other column's drawing at the same height.
// arXiv 1111.2011 (APS, revtex) sets its 20 references without a heading, each
// opening with a bare number, in two columns beside the acknowledgments.
TEST(PaperStructure, ReferencesWithoutAHeading) {
  const fs::path pdf = bioagent::testing::fixtures_dir() / "pdfs" / "arxiv" / "1111.2011v2.pdf";
  if (!fs::exists(pdf)) GTEST_SKIP() << "fixture absent: " << pdf;
  auto prepared = prepare_paper(pdf);
  ASSERT_TRUE(prepared.is_ok()) << prepared.status().to_string();
  auto refs = column_of(*prepared, "reference");
  ASSERT_EQ(refs.size(), 20u);
  for (size_t i = 0; i < refs.size(); ++i)
    EXPECT_EQ(refs[i].rfind(std::to_string(i + 1) + " ", 0), 0u) << "entry " << i << ": " << refs[i];
  EXPECT_EQ(refs[0], "1 D. C. Johnston, Adv. Phys. 59, 803 (2010).");
  EXPECT_EQ(refs[10], "11 S. Sachdev, Quantum Phase Transitions, Cambridge Univ. Press (2011).") << "across columns";
  EXPECT_EQ(refs[19].rfind("20 A. Del Maestro", 0), 0u);
  for (auto& r : refs) EXPECT_EQ(r.find("Predrag Nikolic"), std::string::npos) << "the acknowledgments are not in it";
}

// CERMINE's ground truth for test5 lists 19 section titles, most of them
// unnumbered subsections set as bold lines of their own: every one is found,
// and little else.
TEST(PaperStructure, SubsectionsMatchCermineGroundTruth) {
  const fs::path dir = bioagent::testing::fixtures_dir() / "pdfs" / "cermine_biomedical_oa";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  std::string xml = read_all(dir / "test5-content.xml");
  xml = xml.substr(xml.find("<body"), xml.find("</body>") - xml.find("<body"));
  std::set<std::string> truth;
  static const std::regex kTitle("<title>([\\s\\S]*?)</title>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), kTitle); it != std::sregex_iterator(); ++it) {
    std::string t = squeeze(std::regex_replace(std::string((*it)[1]), std::regex("<[^>]+>"), " "));
    if (t.size() > 1) truth.insert(t);
  }
  ASSERT_EQ(truth.size(), 19u);
  auto prepared = prepare_paper(dir / "test5.pdf");
  ASSERT_TRUE(prepared.is_ok()) << prepared.status().to_string();
  std::set<std::string> ours;
  for (auto& t : column_of(*prepared, "sections")) ours.insert(squeeze(t));
  std::string all;
  for (auto& t : ours) all += "\n  " + t;
  for (auto& t : truth) EXPECT_TRUE(ours.count(t)) << "missing section '" << t << "'; found:" << all;
  size_t extra = 0;
  for (auto& t : ours) extra += truth.count(t) == 0;
  EXPECT_LE(extra, 4u) << "headings CERMINE does not list (abstract, references and the like at most):" << all;
}

TEST(PaperStructure, FigureRegionIsTheGraphicsNextToTheCaption) {
  PdfPage page;
  page.width = 612;
  page.height = 792;
  page.graphics = {{0, 20, 612, 45},      // running-head bar
                   {320, 80, 550, 120},   // the figure: two boxes and an arrow
                   {320, 130, 550, 200},  //
                   {430, 120, 440, 130},  //
                   {60, 90, 290, 210}};   // the other column's figure
  PdfBlock caption;
  caption.x0 = 310, caption.x1 = 560, caption.y0 = 215, caption.y1 = 240;
  caption.text = "Figure 1 Flow chart";
  PdfBlock label;  // a label inside the drawing
  label.x0 = 325, label.x1 = 400, label.y0 = 85, label.y1 = 95;
  label.text = "n = 1267";
  page.blocks = {label, caption};
  PdfRect r;
  ASSERT_TRUE(figure_region(page, page.blocks[1], &r));
  EXPECT_EQ(r.x0, 320);
  EXPECT_EQ(r.y0, 80);
  EXPECT_EQ(r.x1, 550);
  EXPECT_EQ(r.y1, 200);
  // A caption with nothing drawn near it has no region (the caller falls back).
  PdfBlock lonely = caption;
  lonely.y0 = 600, lonely.y1 = 620;
  EXPECT_FALSE(figure_region(page, lonely, &r));
  // Captioned above: the drawing below is found.
  page.graphics = {{100, 300, 500, 450}};
  PdfBlock above = caption;
  above.x0 = 100, above.x1 = 500, above.y0 = 270, above.y1 = 290;
  ASSERT_TRUE(figure_region(page, above, &r));
  EXPECT_EQ(r.y0, 300);
  EXPECT_EQ(r.y1, 450);
}

// On the real PDFs: the vector drawing of the RAG paper's Figure 1, and only
// the right column's flow chart on a two-column page.
TEST(PaperStructure, FigureRegionsOfTheFixtures) {
  const fs::path dir = bioagent::testing::fixtures_dir() / "pdfs";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures absent: " << dir;
  auto images = [&](const char* name) {
    auto p = prepare_paper(dir / name);
    EXPECT_TRUE(p.is_ok()) << name;
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;  // caption, [x, y, w, h]
    for (auto& r : p->rows)
      if (r.sql.rfind("INSERT INTO images ", 0) == 0 && r.params.size() >= 6 &&
          std::holds_alternative<std::string>(r.params[1]))
        out.push_back({std::get<std::string>(r.params[1]),
                       {std::get<int64_t>(r.params[2]), std::get<int64_t>(r.params[3]), std::get<int64_t>(r.params[4]),
                        std::get<int64_t>(r.params[5])}});
    return out;
  };
  auto rag = images("neusym_rag/test_pdf.pdf");
  ASSERT_FALSE(rag.empty());
  EXPECT_EQ(rag[0].first.rfind("Figure 1:", 0), 0u);
  EXPECT_GT(rag[0].second[2], 350) << "the whole drawing's width";
  EXPECT_GT(rag[0].second[3], 90) << "and height (it was a 5-point sliver)";
  auto iron = images("cermine_biomedical_oa/test5.pdf");
  ASSERT_FALSE(iron.empty());
  EXPECT_EQ(iron[0].first.rfind("Figure 1 Flow chart", 0), 0u);
  EXPECT_GE(iron[0].second[0], 300) << "the right column only";
  EXPECT_GT(iron[0].second[2], 200) << "both columns of boxes of the flow chart";
  EXPECT_GT(iron[0].second[3], 150);
  for (auto& [caption, box] : images("paperqa_stub/pasa.pdf"))
    EXPECT_EQ(caption.find(" shows"), std::string::npos) << "prose about a figure is not its caption: " << caption;
}

// Ruled tables: two tables captioned under them, one above the other, each
// get their own rules (the nearest-first pairing gave the first caption the
// second table); a table without rules has no region.
TEST(PaperStructure, TableRegionsPairCaptionsWithTheirRules) {
  PdfPage page;
  page.width = 612;
  page.height = 792;
  auto rule = [](float y) { return PdfRect{80, y, 500, y + 0.5f}; };
  page.graphics = {rule(70),  rule(90),  rule(190),   // table 1
                   rule(225), rule(245), rule(350)};  // table 2
  PdfBlock first, second, plain;
  first.x0 = 100, first.x1 = 480, first.y0 = 205, first.y1 = 217;
  first.text = "Table 1: Results on set A.";
  second.x0 = 100, second.x1 = 480, second.y0 = 360, second.y1 = 372;
  second.text = "Table 2: Results on set B.";
  plain.x0 = 100, plain.x1 = 480, plain.y0 = 600, plain.y1 = 612;
  plain.text = "Table 3: Not ruled.";
  page.blocks = {first, second, plain};
  auto r = table_regions(page, {&page.blocks[0], &page.blocks[1], &page.blocks[2]});
  ASSERT_EQ(r.size(), 3u);
  ASSERT_TRUE(r[0] && r[1]);
  EXPECT_EQ(r[0]->y0, 70);
  EXPECT_EQ(r[0]->y1, 190.5f);
  EXPECT_EQ(r[1]->y0, 225);
  EXPECT_EQ(r[1]->y1, 350.5f);
  EXPECT_FALSE(r[2]);
  EXPECT_TRUE(table_regions(page, {}).empty());
}

// On PaSa, whose tables are captioned underneath: each table row holds its own
// table's text, not the body text after the caption.
// A table without rules whose caption sits under it: its rows are the short
// blocks clustered above the caption, not the prose that follows it.
TEST(PaperStructure, UnruledTableCaptionedUnderItsRows) {
  PdfDoc doc;
  doc.sha256 = std::string(64, 'a');
  doc.page_count = 1;
  PdfPage page = page_of(
      {{"Introduction", 11}, {"The SPL family was surveyed in three species, as described in the methods above.", 10}});
  auto cell = [&](float x0, float y0, const std::string& text) {
    PdfBlock b;
    b.x0 = x0, b.x1 = x0 + 90, b.y0 = y0, b.y1 = y0 + 10, b.text = text, b.font_size = 9;
    b.lines.push_back({b.x0, b.y0, b.x1, b.y1, 9});
    page.blocks.push_back(b);
  };
  for (int row = 0; row < 4; ++row) {
    const float y = 200 + 13.0f * static_cast<float>(row);
    cell(80, y, row == 0 ? "Gene" : "SPL" + std::to_string(row));
    cell(200, y, row == 0 ? "Length (aa)" : std::to_string(300 + row));
    cell(320, y, row == 0 ? "Chromosome" : "Chr" + std::to_string(row + 1));
  }
  PdfBlock caption;
  caption.x0 = 80, caption.x1 = 420, caption.y0 = 258, caption.y1 = 270, caption.font_size = 9;
  caption.text = "Table 1. SPL genes of litchi.";
  caption.lines.push_back({80, 258, 420, 270, 9});
  page.blocks.push_back(caption);
  PdfBlock prose;
  prose.x0 = 72, prose.x1 = 540, prose.y0 = 280, prose.y1 = 320, prose.font_size = 10;
  prose.text =
      "Each gene carries the SBP domain, and the longest isoform was kept for the analysis.\nThe tree in "
      "Figure 2 places them in eight groups that match the Arabidopsis subfamilies well.";
  prose.lines = {{72, 280, 540, 292, 10}, {72, 294, 540, 306, 10}};
  page.blocks.push_back(prose);
  doc.pages.push_back(page);
  PreparedPaper p = prepare_paper(doc, "made-up.pdf");
  std::string content;
  std::vector<int64_t> box;
  for (auto& r : p.rows)
    if (r.sql.rfind("INSERT INTO tables ", 0) == 0) {
      content = std::get<std::string>(r.params[2]);
      for (size_t k = 3; k < 7; ++k) box.push_back(std::get<int64_t>(r.params[k]));
    }
  EXPECT_NE(content.find("SPL3"), std::string::npos) << content;
  EXPECT_NE(content.find("Length (aa)"), std::string::npos) << content;
  EXPECT_EQ(content.find("SBP domain"), std::string::npos)
      << "the prose under the caption is not the table: " << content;
  ASSERT_EQ(box.size(), 4u);
  EXPECT_EQ(box[1], 200) << "the region starts at the table's first row";
  EXPECT_EQ(box[1] + box[3], 270) << "and ends with the caption under it";
}

TEST(PaperStructure, TableContentOfTheFixtures) {
  const fs::path pdf = bioagent::testing::fixtures_dir() / "pdfs" / "paperqa_stub" / "pasa.pdf";
  if (!fs::exists(pdf)) GTEST_SKIP() << "fixtures absent: " << pdf;
  auto p = prepare_paper(pdf);
  ASSERT_TRUE(p.is_ok());
  std::map<std::string, std::string> content;  // caption start → content
  for (auto& r : p->rows)
    if (r.sql.rfind("INSERT INTO tables ", 0) == 0)
      content[std::get<std::string>(r.params[1]).substr(0, 8)] = std::get<std::string>(r.params[2]);
  EXPECT_EQ(content["Table 1:"].rfind("Query:", 0), 0u) << content["Table 1:"].substr(0, 80);
  EXPECT_EQ(content["Table 2:"].rfind("Conference", 0), 0u) << content["Table 2:"].substr(0, 80);
  EXPECT_EQ(content["Table 5:"].rfind("Method", 0), 0u) << content["Table 5:"].substr(0, 80);
  EXPECT_EQ(content["Table 6:"].rfind("Method", 0), 0u) << content["Table 6:"].substr(0, 80);
  EXPECT_NE(content["Table 6:"].find("PaSa-7b"), std::string::npos);
}
