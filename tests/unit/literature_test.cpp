// Literature parsers and de-duplication: on responses written here in each
// API's documented format, and on the real recorded responses in
// ../shared/fixtures/api when present.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bioagent/literature.h"
#include "json_mutations.h"
#include "test_util.h"

using namespace bioagent;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& rel) {
  std::ifstream in(bioagent::testing::fixtures_dir() / "api" / rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool have_fixtures() { return fs::is_directory(bioagent::testing::fixtures_dir() / "api"); }

Evidence paper(const std::string& source, const std::string& title, const std::string& doi,
               std::vector<std::string> authors) {
  Evidence e;
  e.citation.source = source;
  e.citation.title = title;
  e.citation.doi = doi;
  e.citation.authors = std::move(authors);
  return e;
}

}  // namespace

TEST(Literature, PubmedEfetchStructuredAbstract) {
  const char* xml = R"(<?xml version="1.0"?>
<!DOCTYPE PubmedArticleSet SYSTEM "https://example.invalid/never-fetched.dtd">
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">12345678</PMID><Article>
<Journal><JournalIssue><PubDate><Year>2021</Year><Month>Mar</Month><Day>5</Day></PubDate></JournalIssue>
<Title>Plant Physiology</Title></Journal>
<ArticleTitle>SPL genes in <i>Litchi chinensis</i>: a genome-wide survey.</ArticleTitle>
<Abstract><AbstractText Label="BACKGROUND">SPL genes regulate flowering.</AbstractText>
<AbstractText Label="RESULTS">We found 17   members.</AbstractText></Abstract>
<AuthorList><Author><LastName>Chen</LastName><ForeName>Wei</ForeName></Author>
<Author><CollectiveName>Litchi Consortium</CollectiveName></Author></AuthorList>
<PublicationTypeList><PublicationType>Journal Article</PublicationType></PublicationTypeList></Article>
<MeshHeadingList><MeshHeading><DescriptorName>Litchi</DescriptorName></MeshHeading></MeshHeadingList>
</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">12345678</ArticleId>
<ArticleId IdType="doi">10.1104/pp.21.00001</ArticleId></ArticleIdList></PubmedData></PubmedArticle></PubmedArticleSet>)";
  auto r = parse_pubmed_efetch(xml);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  const Evidence& e = (*r)[0];
  EXPECT_EQ(e.citation.title, "SPL genes in Litchi chinensis: a genome-wide survey.");
  EXPECT_EQ(e.content, "BACKGROUND: SPL genes regulate flowering.\nRESULTS: We found 17 members.");
  EXPECT_EQ(e.citation.authors, (std::vector<std::string>{"Wei Chen", "Litchi Consortium"}));
  EXPECT_EQ(e.citation.date, "2021-03-05");
  EXPECT_EQ(e.citation.venue, "Plant Physiology");
  EXPECT_EQ(e.citation.doi, "10.1104/pp.21.00001");
  EXPECT_EQ(e.citation.url, "https://pubmed.ncbi.nlm.nih.gov/12345678/");
  EXPECT_EQ(e.extra["mesh_terms"][0], "Litchi");
  EXPECT_EQ(e.extra["publication_types"][0], "Journal Article");
  EXPECT_EQ(parse_pubmed_efetch("<not xml").status().code(), ErrorCode::kParseError);
  EXPECT_EQ(parse_pubmed_efetch("<other/>").status().code(), ErrorCode::kParseError);
}

TEST(Literature, RealPubmedAndEsearchResponses) {
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  auto ids = parse_esearch(fixture("ncbi_eutils/esearch1.xml"));
  ASSERT_TRUE(ids.is_ok()) << ids.status().to_string();
  EXPECT_EQ(ids->count, 63u);
  EXPECT_EQ(ids->ids.size(), 20u);
  EXPECT_EQ(ids->ids[0], "41282813");
  auto two = parse_pubmed_efetch(fixture("ncbi_eutils/pubmed2.xml"));
  ASSERT_TRUE(two.is_ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].citation.pmid, "11748933");
  EXPECT_EQ((*two)[0].citation.doi, "10.1006/cryo.2001.2328");
  EXPECT_EQ((*two)[0].citation.venue, "Cryobiology");
  EXPECT_EQ((*two)[0].citation.date, "2001-06");
  EXPECT_EQ((*two)[0].citation.title.rfind("Is cryopreservation a homogeneous process?", 0), 0u);
  EXPECT_FALSE((*two)[0].content.empty());
  auto structured = parse_pubmed_efetch(fixture("ncbi_eutils/pubmed4.xml"));
  ASSERT_TRUE(structured.is_ok());
  ASSERT_EQ(structured->size(), 1u);
  EXPECT_EQ((*structured)[0].citation.doi, "10.1136/gutjnl-2016-312510");
  EXPECT_NE((*structured)[0].content.find(": "), std::string::npos) << "labelled sections";
  for (int n : {1, 5, 6, 7}) {
    auto r = parse_pubmed_efetch(fixture("ncbi_eutils/pubmed" + std::to_string(n) + ".xml"));
    ASSERT_TRUE(r.is_ok()) << n;
    EXPECT_FALSE(r->empty()) << n;
    EXPECT_FALSE((*r)[0].citation.title.empty()) << n;
  }
}

TEST(Literature, EuropePmcPreprintsAndLinks) {
  const char* json = R"({"hitCount": 2, "resultList": {"result": [
    {"id": "PPR123", "source": "PPR", "doi": "10.1101/2024.01.01.000001", "title": "A preprint on SPL",
     "authorString": "Li X, Wang Y.", "pubYear": "2024", "abstractText": "<h4>Aim</h4>Study <i>SPL</i>."},
    {"id": "33000001", "source": "MED", "pmid": "33000001", "title": "Peer reviewed",
     "authorList": {"author": [{"fullName": "Smith J"}]}, "journalInfo": {"journal": {"title": "Plant Cell"}},
     "firstPublicationDate": "2020-10-01"}]}})";
  auto r = parse_europepmc(json);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].citation.title, "[PREPRINT - Not peer-reviewed] A preprint on SPL");
  EXPECT_EQ((*r)[0].citation.url, "https://doi.org/10.1101/2024.01.01.000001");
  EXPECT_EQ((*r)[0].citation.authors, (std::vector<std::string>{"Li X", "Wang Y"}));
  EXPECT_EQ((*r)[0].content, "[PREPRINT - Not peer-reviewed] Aim Study SPL .");
  EXPECT_EQ((*r)[0].citation.source, "europepmc_preprint");  // the source says it, not the text alone
  EXPECT_EQ((*r)[1].citation.source, "europepmc");
  EXPECT_EQ((*r)[1].content.find("PREPRINT"), std::string::npos);
  EXPECT_EQ((*r)[1].citation.url, "https://pubmed.ncbi.nlm.nih.gov/33000001/");
  EXPECT_EQ((*r)[1].citation.venue, "Plant Cell");
  EXPECT_EQ((*r)[1].citation.date, "2020-10-01");
  EXPECT_GT((*r)[0].relevance, (*r)[1].relevance);
  EXPECT_EQ(parse_europepmc("{").status().code(), ErrorCode::kParseError);
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  auto real = parse_europepmc(fixture("europepmc/search_cancer_core.json"));
  ASSERT_TRUE(real.is_ok());
  ASSERT_FALSE(real->empty());
  EXPECT_EQ((*real)[0].citation.pmid, "39709209");
  EXPECT_EQ((*real)[0].citation.doi, "10.1016/s0140-6736(24)02600-x");
  EXPECT_EQ((*real)[0].citation.venue, "Lancet (London, England)");
  auto none = parse_europepmc(fixture("europepmc/search_no_results.json"));
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->empty());
}

TEST(Literature, ClinicalTrialsKeepsOnlyOpenInterventionalStudies) {
  const char* json = R"({"studies": [
    {"protocolSection": {"identificationModule": {"nctId": "NCT1", "briefTitle": "Open trial"},
      "statusModule": {"overallStatus": "RECRUITING", "startDateStruct": {"date": "2023-01"}},
      "designModule": {"studyType": "INTERVENTIONAL", "phases": ["PHASE2", "PHASE3"]},
      "conditionsModule": {"conditions": ["Melanoma"]},
      "armsInterventionsModule": {"interventions": [{"name": "Drug A"}]}}},
    {"protocolSection": {"identificationModule": {"nctId": "NCT2", "briefTitle": "Withdrawn"},
      "statusModule": {"overallStatus": "WITHDRAWN"}, "designModule": {"studyType": "INTERVENTIONAL"}}},
    {"protocolSection": {"identificationModule": {"nctId": "NCT3", "briefTitle": "Observational"},
      "statusModule": {"overallStatus": "COMPLETED"}, "designModule": {"studyType": "OBSERVATIONAL"}}}]})";
  auto r = parse_ctgov(json);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->size(), 1u);
  const Evidence& e = (*r)[0];
  EXPECT_EQ(e.citation.url, "https://clinicaltrials.gov/study/NCT1");
  EXPECT_EQ(e.extra["phase"], "PHASE2/PHASE3");
  EXPECT_EQ(e.extra["conditions"][0], "Melanoma");
  EXPECT_EQ(e.extra["interventions"][0], "Drug A");
  EXPECT_EQ(e.extra["status"], "RECRUITING");
  EXPECT_EQ(e.content.rfind(
                "Trial NCT1. Status: RECRUITING. Phase: PHASE2/PHASE3. Conditions: Melanoma. Interventions: Drug A. "
                "Primary outcome measures: not stated in the record. Results posted: not stated in the record.\n",
                0),
            0u)
      << e.content;
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  auto real = parse_ctgov(fixture("clinicaltrials_v2/search_keytruda_limit3_20260811.json"));
  ASSERT_TRUE(real.is_ok());
  ASSERT_FALSE(real->empty());
  EXPECT_EQ((*real)[0].extra["nct_id"], "NCT05431270");
  EXPECT_EQ((*real)[0].citation.authors[0], "Phanes Therapeutics");
  auto one = parse_ctgov(fixture("clinicaltrials_v2/get_nct06382129_20260811.json"));
  ASSERT_TRUE(one.is_ok()) << one.status().to_string();
}

// Primary outcome measures and posted results, for each combination the registry can give:
// results posted with a date, not posted, and a record that does not say (never read as "no").
TEST(Literature, ClinicalTrialsOutcomesAndResults) {
  struct Case {
    const char* has_results;  // the study's hasResults member, verbatim ("" leaves it out)
    const char* first_posted;
    const char* expect;
  } cases[] = {{"true", "2021-06-04", "Results posted: yes (first posted 2021-06-04)."},
               {"true", "", "Results posted: yes."},
               {"false", "", "Results posted: no."},
               {"", "", "Results posted: not stated in the record."},
               {"", "2019-02-01", "Results posted: yes (first posted 2019-02-01)."}};
  for (int outcomes = 0; outcomes <= 2; ++outcomes)
    for (auto& c : cases) {
      std::string primary;
      for (int i = 1; i <= outcomes; ++i)
        primary += std::string(i > 1 ? "," : "") + R"({"measure": "Overall survival )" + std::to_string(i) +
                   R"(", "timeFrame": "Up to )" + std::to_string(12 * i) + R"( months", "description": "d"})";
      std::string status = R"({"overallStatus": "COMPLETED")";
      if (*c.first_posted)
        status += std::string(R"(, "resultsFirstPostDateStruct": {"date": ")") + c.first_posted + "\"}";
      std::string study = R"({"protocolSection": {"identificationModule": {"nctId": "NCT9", "briefTitle": "T"},
        "statusModule": )" +
                          status + R"(}, "designModule": {"studyType": "INTERVENTIONAL"},
        "outcomesModule": {"primaryOutcomes": [)" +
                          primary + "]}}" + (*c.has_results ? std::string(R"(, "hasResults": )") + c.has_results : "") +
                          "}";
      auto r = parse_ctgov("{\"studies\": [" + study + "]}");
      ASSERT_TRUE(r.is_ok()) << r.status().to_string() << study;
      ASSERT_EQ(r->size(), 1u);
      const Evidence& e = (*r)[0];
      SCOPED_TRACE(study);
      EXPECT_NE(e.content.find(c.expect), std::string::npos) << e.content;
      ASSERT_EQ(e.extra["primary_outcomes"].size(), size_t(outcomes));
      for (int i = 1; i <= outcomes; ++i) {
        const std::string m = "Overall survival " + std::to_string(i);
        EXPECT_EQ(e.extra["primary_outcomes"][i - 1]["measure"], m);
        EXPECT_NE(e.content.find(m + " (time frame: Up to " + std::to_string(12 * i) + " months)"), std::string::npos);
      }
      if (outcomes == 0) {
        EXPECT_NE(e.content.find("Primary outcome measures: not stated"), std::string::npos);
      }
      const bool posted = std::string(c.has_results) == "true" || (!*c.has_results && *c.first_posted);
      EXPECT_EQ(e.extra["has_results"], *c.has_results || *c.first_posted ? Json(posted) : Json());
      EXPECT_EQ(e.extra["results_first_posted"], *c.first_posted && posted ? Json(c.first_posted) : Json());
    }
}

// Authors in the order each source lists them (first author first), whatever the format.
TEST(Literature, AuthorsInTheSourcesOrder) {
  const std::vector<std::string> names = {"Zhou Q", "Abe K", "Müller T", "Brown A"};
  std::string list, string_form;
  for (auto& n : names) {
    list += (list.empty() ? "" : ",") + std::string(R"({"fullName": ")") + n + "\"}";
    string_form += (string_form.empty() ? "" : ", ") + n;
  }
  for (const std::string& authors :
       {R"("authorList": {"author": [)" + list + "]}", R"("authorString": ")" + string_form + ".\""}) {
    auto r =
        parse_europepmc(R"({"resultList": {"result": [{"id": "1", "source": "MED", "title": "T", )" + authors + "}]}}");
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ((*r)[0].citation.authors, names) << authors;
  }
  std::string s2;
  for (auto& n : names) s2 += (s2.empty() ? "" : ",") + std::string(R"({"name": ")") + n + "\"}";
  auto r = parse_semantic_scholar(R"({"data": [{"paperId": "p", "title": "T", "authors": [)" + s2 + "]}]}");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].citation.authors, names);
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  // Recorded answers: the first author of each record is the one the source lists first.
  auto epmc = parse_europepmc(fixture("europepmc/search_cancer_core.json"));
  ASSERT_TRUE(epmc.is_ok());
  Json raw = Json::parse(fixture("europepmc/search_cancer_core.json"));
  size_t checked = 0;
  for (size_t i = 0; i < epmc->size(); ++i) {
    const Json& rec = raw["resultList"]["result"][i];
    if (!rec.contains("authorList")) continue;
    std::vector<std::string> want;
    for (auto& a : rec["authorList"]["author"])
      want.push_back(a.contains("fullName") ? a["fullName"].get<std::string>() : a.value("collectiveName", ""));
    std::erase(want, "");
    EXPECT_EQ((*epmc)[i].citation.authors, want) << i;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(Literature, ArxivFeedsAndErrors) {
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  auto r = parse_arxiv(fixture("arxiv/id_1707.08567_s0_m100.atom.xml"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].extra["arxiv_id"].get<std::string>().rfind("1707.08567", 0), 0u);
  EXPECT_FALSE((*r)[0].citation.authors.empty());
  EXPECT_EQ((*r)[0].citation.date.size(), 10u);
  auto err = parse_arxiv(fixture("arxiv/id_abc_s0_m100.atom.xml"));
  EXPECT_EQ(err.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(err.status().message().find("arXiv rejected"), std::string::npos);
  auto empty = parse_arxiv(fixture("arxiv/id_0000.0000_s0_m100.atom.xml"));
  ASSERT_TRUE(empty.is_ok());
  // The recorded answer for two ids holds one entry: arXiv has no paper 0808.05394.
  auto two = parse_arxiv(fixture("arxiv/id_0808.05394_1707.08567_s0_m100.atom.xml"));
  ASSERT_TRUE(two.is_ok());
  ASSERT_EQ(two->size(), 1u);
  EXPECT_NE((*two)[0].citation.url.find("arxiv.org/abs/1707.08567"), std::string::npos);
}

TEST(Literature, SemanticScholarShapes) {
  if (!have_fixtures()) GTEST_SKIP() << "fixtures absent";
  auto match = parse_semantic_scholar(fixture("semantic_scholar/01_match_http200.json"));
  ASSERT_TRUE(match.is_ok());
  ASSERT_FALSE(match->empty());
  EXPECT_EQ((*match)[0].citation.title, "Attention is All you Need");
  EXPECT_EQ((*match)[0].citation.date.substr(0, 4), "2017");
  auto missing = parse_semantic_scholar(fixture("semantic_scholar/09_paper_http404.json"));
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  auto batch = parse_semantic_scholar(fixture("semantic_scholar/biomcp/pmid20516115-batch.json"));
  ASSERT_TRUE(batch.is_ok()) << batch.status().to_string();
  EXPECT_FALSE(batch->empty());
  size_t parsed = 0;
  for (auto& e : fs::directory_iterator(bioagent::testing::fixtures_dir() / "api/semantic_scholar")) {
    if (e.path().extension() != ".json" || e.path().filename().string().find("http200") == std::string::npos) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = parse_semantic_scholar(ss.str());
    EXPECT_TRUE(r.is_ok()) << e.path() << ": " << r.status().to_string();
    ++parsed;
  }
  EXPECT_GE(parsed, 20u);
}

TEST(Literature, NormalisationRules) {
  EXPECT_EQ(normalize_doi("https://doi.org/10.1104/PP.21.00001"), "10.1104/pp.21.00001");
  EXPECT_EQ(normalize_doi("doi:10.1104/pp.21.00001."), "10.1104/pp.21.00001");
  EXPECT_EQ(normalize_doi(" DOI 10.1/X "), "10.1/x");
  EXPECT_EQ(normalize_title("SPL genes: a genome-wide survey!"), normalize_title("SPL Genes - A Genome Wide Survey"));
  EXPECT_EQ(first_author_surname({"Wei Chen", "X"}), "chen");
  EXPECT_EQ(first_author_surname({"Chen W"}), "chen");
  EXPECT_EQ(first_author_surname({"Chen, Wei"}), "chen");
  EXPECT_EQ(first_author_surname({}), "");
}

TEST(Literature, DeduplicationMergesTheSamePaperFromTwoSources) {
  std::vector<Evidence> in = {
      paper("pubmed", "SPL genes in litchi.", "10.1104/PP.21.00001", {"Wei Chen"}),
      paper("semantic_scholar", "SPL Genes in Litchi", "https://doi.org/10.1104/pp.21.00001", {"W. Chen"}),
      paper("arxiv", "SPL genes in litchi", "", {"Chen W"}),       // no DOI: title + first author
      paper("europepmc", "SPL genes in litchi", "", {"Zhang Q"}),  // other first author: distinct
      paper("arxiv", "Something else", "10.9/other", {"Wei Chen"}),
  };
  in[0].citation.pmid = "12345678";
  in[1].content = "abstract from S2";
  auto out = deduplicate(in);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].citation.source, "pubmed");
  EXPECT_EQ(out[0].content, "abstract from S2") << "empty fields filled from the duplicates";
  EXPECT_EQ(out[0].extra["also_found_in"], Json::array({"semantic_scholar", "arxiv"}));
  EXPECT_EQ(out[1].citation.authors[0], "Zhang Q");
  EXPECT_EQ(out[2].citation.title, "Something else");
  Evidence round = Evidence::from_json(out[0].to_json());
  EXPECT_EQ(round.citation.pmid, "12345678");
  EXPECT_EQ(round.citation.doi, out[0].citation.doi);
}

// Seed 000: de-duplication is by DOI first; title + first author only for a
// record without one. Same title and first author under two DOIs stay two papers.
TEST(Literature, DeduplicationKeepsDifferentDoisApart) {
  std::vector<Evidence> in = {
      paper("pubmed", "SPL genes in litchi", "10.1/a", {"Wei Chen"}),
      paper("semantic_scholar", "SPL genes in litchi", "10.1/b", {"Wei Chen"}),  // erratum, preprint: other DOI
      paper("arxiv", "SPL genes in litchi", "", {"Chen W"}),                     // no DOI: merges by title
  };
  auto out = deduplicate(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].citation.doi, "10.1/a");
  EXPECT_EQ(out[1].citation.doi, "10.1/b");
  EXPECT_EQ(out[0].extra["also_found_in"], Json::array({"arxiv"}));
  // A DOI-less record first: the later record with a DOI merges into it and lends it the DOI.
  auto late = deduplicate({paper("arxiv", "T", "", {"A B"}), paper("pubmed", "T", "10.1/c", {"A B"}),
                           paper("europepmc", "T", "10.1/d", {"A B"})});
  ASSERT_EQ(late.size(), 2u);
  EXPECT_EQ(late[0].citation.doi, "10.1/c");
  EXPECT_EQ(late[1].citation.doi, "10.1/d");
}

// Every recorded response in ../shared/fixtures/api parses with the parser of
// its API (error answers give a Status, never a crash or a silent empty).
TEST(Literature, EveryRecordedResponseParses) {
  fs::path api = bioagent::testing::fixtures_dir() / "api";
  if (!fs::is_directory(api)) GTEST_SKIP() << "fixtures absent";
  struct Kind {
    const char* folder;
    const char* ext;
    Result<std::vector<Evidence>> (*parse)(std::string_view);
  } kinds[] = {{"europepmc", ".json", parse_europepmc},
               {"clinicaltrials_v2", ".json", parse_ctgov},
               {"arxiv", ".xml", parse_arxiv},
               {"semantic_scholar", ".json", parse_semantic_scholar}};
  size_t files = 0, records = 0;
  for (auto& k : kinds) {
    for (auto& e : fs::recursive_directory_iterator(api / k.folder)) {
      if (e.path().extension() != k.ext) continue;
      std::string name = e.path().filename().string();
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      auto r = k.parse(ss.str());
      ++files;
      bool error_answer = name.find("404") != std::string::npos || name.find("_abc_") != std::string::npos ||
                          name.find("citations") != std::string::npos || name.find("references") != std::string::npos ||
                          name.find("recommendations") != std::string::npos;
      if (!error_answer) {
        EXPECT_TRUE(r.is_ok()) << e.path() << ": " << r.status().to_string();
        if (r) records += r->size();
      } else if (!r) {
        EXPECT_FALSE(r.status().message().empty()) << e.path();
      }
    }
  }
  for (auto& e : fs::directory_iterator(api / "ncbi_eutils")) {
    std::string name = e.path().filename().string();
    if (name.rfind("pubmed", 0) != 0 || e.path().extension() != ".xml") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = parse_pubmed_efetch(ss.str());
    ASSERT_TRUE(r.is_ok()) << name;
    for (auto& ev : *r) {
      EXPECT_FALSE(ev.citation.pmid.empty()) << name;
      EXPECT_FALSE(ev.citation.title.empty()) << name;
    }
    ++files;
    records += r->size();
  }
  EXPECT_GE(files, 40u);
  EXPECT_GE(records, 50u);
}

// A field of the wrong type anywhere in an answer (an API changed, or a hostile
// mirror) is a Status or a smaller result, never an exception out of the parser.
TEST(Literature, AFieldOfTheWrongTypeAnywhereIsNeverAnException) {
  const char* europepmc = R"({"resultList": {"result": [{"id": "P1", "source": "PPR", "doi": "10.1/x",
    "pmid": "1", "title": "T", "authorString": "Li X, Wang Y.", "pubYear": "2024", "abstractText": "<i>a</i>",
    "authorList": {"author": [{"fullName": "Smith J", "collectiveName": "C"}]},
    "journalInfo": {"journal": {"title": "Plant Cell"}}, "pubTypeList": {"pubType": ["Preprint"]},
    "citedByCount": 3, "firstPublicationDate": "2020-10-01"}]}, "errCode": 1})";
  const char* ctgov = R"({"studies": [{"protocolSection": {
    "identificationModule": {"nctId": "NCT1", "briefTitle": "Open", "officialTitle": "O"},
    "statusModule": {"overallStatus": "RECRUITING", "startDateStruct": {"date": "2023-01"},
                     "completionDateStruct": {"date": "2025-01"}},
    "designModule": {"studyType": "INTERVENTIONAL", "phases": ["PHASE2"]},
    "sponsorCollaboratorsModule": {"leadSponsor": {"name": "S"}},
    "descriptionModule": {"briefSummary": "B"}, "conditionsModule": {"conditions": ["Melanoma"]},
    "armsInterventionsModule": {"interventions": [{"name": "Drug A"}]}}}]})";
  const char* s2 = R"({"data": [{"paperId": "p", "title": "T", "year": 2017, "publicationDate": "2017-06-12",
    "venue": "", "journal": {"name": "J"}, "externalIds": {"DOI": "10.1/y", "PubMed": "2"},
    "authors": [{"name": "A"}], "url": "", "abstract": "", "tldr": {"text": "t"}, "citationCount": 1,
    "matchScore": 0.5}], "error": "e", "message": "m"})";
  struct Case {
    const char* doc;
    Result<std::vector<Evidence>> (*parse)(std::string_view);
  } cases[] = {{europepmc, parse_europepmc}, {ctgov, parse_ctgov}, {s2, parse_semantic_scholar}};
  size_t documents = 0;
  for (auto& c : cases) {
    bioagent::testing::for_each_wrong_type(nlohmann::json::parse(c.doc), [&](const std::string& text) {
      ++documents;
      EXPECT_NO_THROW({
        auto r = c.parse(text);
        if (r) (void)deduplicate(*r);
      }) << text;
    });
  }
  EXPECT_GT(documents, 600u);
}
