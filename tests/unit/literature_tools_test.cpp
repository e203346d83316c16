// The literature tools end to end against the local replay server: each
// source, the parallel SearchHandler with a failing and a slow source, 429,
// de-duplication across sources, the warm/cold offline cache, the evidence
// store and fetch_text_from_urls (HTML, PDF, bad URLs, refused addresses).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "bioagent/agent.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "replay_server.h"

using namespace bioagent;
using bioagent::testing::ReplayServer;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const char* kEsearch =
    R"(<?xml version="1.0"?><eSearchResult><Count>2</Count><RetMax>2</RetMax><IdList><Id>111</Id><Id>222</Id></IdList></eSearchResult>)";
const char* kEfetch = R"(<?xml version="1.0"?><PubmedArticleSet>
<PubmedArticle><MedlineCitation><PMID>111</PMID><Article><Journal><JournalIssue><PubDate><Year>2022</Year></PubDate></JournalIssue><Title>Plant Cell</Title></Journal>
<ArticleTitle>The SPL gene family of litchi.</ArticleTitle><Abstract><AbstractText>SPL genes control flowering in litchi.</AbstractText></Abstract>
<AuthorList><Author><LastName>Chen</LastName><ForeName>Wei</ForeName></Author></AuthorList></Article></MedlineCitation>
<PubmedData><ArticleIdList><ArticleId IdType="doi">10.1105/TPC.22.0001</ArticleId></ArticleIdList></PubmedData></PubmedArticle>
<PubmedArticle><MedlineCitation><PMID>222</PMID><Article><Journal><JournalIssue><PubDate><Year>2019</Year></PubDate></JournalIssue><Title>BMC Genomics</Title></Journal>
<ArticleTitle>miR156 and SPL in woody plants.</ArticleTitle><AuthorList><Author><LastName>Li</LastName><ForeName>Na</ForeName></Author></AuthorList></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>)";
const char* kS2 = R"({"total": 2, "data": [
  {"paperId": "abc", "title": "The SPL Gene Family of Litchi", "year": 2022, "venue": "The Plant Cell",
   "externalIds": {"DOI": "10.1105/tpc.22.0001"}, "authors": [{"name": "Wei Chen"}], "abstract": "From S2."},
  {"paperId": "def", "title": "Deep learning for plant phenotyping", "year": 2021, "authors": [], "url": "https://www.semanticscholar.org/paper/def"}]})";
const char* kArxiv =
    R"(<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<entry><id>http://arxiv.org/abs/2401.00001v1</id><published>2024-01-02T00:00:00Z</published><title>A model of SPL regulation</title>
<summary>We model SPL.</summary><author><name>Ana Souza</name></author><link href="http://arxiv.org/abs/2401.00001v1" rel="alternate"/></entry></feed>)";
const char* kEpmc =
    R"({"hitCount": 1, "resultList": {"result": [{"id": "PPR9", "source": "PPR", "title": "SPL preprint", "doi": "10.1101/2024.05.05.1", "authorString": "Wu H."}]}})";
const char* kCtgov =
    R"({"studies": [{"protocolSection": {"identificationModule": {"nctId": "NCT01", "briefTitle": "A trial"},
  "statusModule": {"overallStatus": "RECRUITING"}, "designModule": {"studyType": "INTERVENTIONAL"}}}]})";

std::string routes_json() {
  auto j = [](const std::string& s) { return Json(s).dump(); };
  return std::string("[") + R"({"path": "/eutils/esearch.fcgi", "body": )" + j(kEsearch) + "}," +
         R"({"path": "/eutils/efetch.fcgi", "body": )" + j(kEfetch) + "}," +
         R"({"path": "/s2/graph/v1/paper/search", "body": )" + j(kS2) + "}," + R"({"path": "/arxiv/query", "body": )" +
         j(kArxiv) + "}," + R"({"path": "/epmc/search", "body": )" + j(kEpmc) + "}," +
         R"({"path": "/ctgov/studies", "body": )" + j(kCtgov) + "}," +
         R"({"path": "/broken/graph/v1/paper/search", "status": 500, "body": "internal error"},)" +
         R"({"path": "/limited/graph/v1/paper/search", "status": 429, "headers": {"Retry-After": "120"}, "body": "{}"},)" +
         R"({"path": "/slow/query", "delay_ms": 3000, "body": )" + j(kArxiv) + "}," +
         R"({"path": "/garbage/search", "body": "{not json"},)" +
         R"({"path": "/page.html", "headers": {"Content-Type": "text/html"}, "body": "<html><head><title>SPL review</title><script>var x = 1;</script><style>p{}</style></head><body><nav>Home | About</nav><h1>SPL genes</h1><p>SBP-box proteins bind <i>GTAC</i> motifs.</p><footer>(c) journal</footer></body></html>"},)" +
         R"({"path": "/plain.txt", "headers": {"Content-Type": "application/octet-stream"}, "body": "just text, mislabelled"},)" +
         R"({"path": "/empty.html", "body": "<html><body><script>only()</script></body></html>"},)" +
         R"({"path": "/missing", "status": 404, "body": "no"})" + "]";
}

class LiteratureTools : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ReplayServer>(routes_json());
    ASSERT_TRUE(server_->ok());
    register_builtin_types(reg_);
    ASSERT_TRUE(reg_.load_builtin().is_ok());
    ws_ = std::make_unique<Workspace>(*Workspace::create({dir_.path().string()}));
  }

  ToolContext context(bool offline = false) {
    ToolContext ctx(ws_.get());
    ctx.set_option("cache_dir", (dir_.path() / "cache").string());
    ctx.set_option("allow_private_urls", "1");
    ctx.set_option("offline", offline ? "1" : "0");
    ctx.set_option("base_url.pubmed", server_->url("/eutils"));
    ctx.set_option("base_url.semantic_scholar", server_->url("/s2"));
    ctx.set_option("base_url.arxiv", server_->url("/arxiv"));
    ctx.set_option("base_url.europepmc", server_->url("/epmc"));
    ctx.set_option("base_url.clinicaltrials", server_->url("/ctgov"));
    return ctx;
  }

  Result<Json> call(const std::string& tool, const Json& args, ToolContext ctx) { return reg_.call(tool, args, ctx); }

  TempDir dir_;
  std::unique_ptr<ReplayServer> server_;
  ToolRegistry reg_;
  std::unique_ptr<Workspace> ws_;
};

}  // namespace

// NCBI allows 3 requests a second per process: two pubmed_search calls, each
// with its own client, send three requests (the second EFetch is the cached
// first), so they take at least two intervals (a limiter per client: one).
TEST_F(LiteratureTools, NcbiRateLimitHoldsAcrossCalls) {
  auto t0 = std::chrono::steady_clock::now();
  for (const char* q : {"rate one", "rate two"}) {
    auto pm = call("pubmed_search", {{"query", q}, {"max_results", 2}}, context());
    ASSERT_TRUE(pm.is_ok()) << pm.status().to_string();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(660));
}

TEST_F(LiteratureTools, EachSourceAnswers) {
  auto pm = call("pubmed_search", {{"query", "SPL litchi"}, {"max_results", 2}}, context());
  ASSERT_TRUE(pm.is_ok()) << pm.status().to_string();
  ASSERT_EQ((*pm)["n_results"], 2);
  EXPECT_EQ((*pm)["evidence"][0]["citation"]["pmid"], "111");
  EXPECT_EQ((*pm)["evidence"][0]["citation"]["doi"], "10.1105/TPC.22.0001");
  for (const char* tool : {"europepmc_search", "clinicaltrials_search", "arxiv_search", "semantic_scholar_search"}) {
    auto r = call(tool, {{"query", "SPL"}}, context());
    ASSERT_TRUE(r.is_ok()) << tool << ": " << r.status().to_string();
    EXPECT_GE((*r)["n_results"].get<int>(), 1) << tool;
  }
  auto ep = call("europepmc_search", {{"query", "SPL"}}, context());
  EXPECT_EQ((*ep)["evidence"][0]["citation"]["title"], "[PREPRINT - Not peer-reviewed] SPL preprint");
}

TEST_F(LiteratureTools, SearchHandlerSurvivesFailingAndSlowSources) {
  ToolContext ctx = context();
  ctx.set_option("base_url.semantic_scholar", server_->url("/broken"));
  ctx.set_option("base_url.arxiv", server_->url("/slow"));
  ctx.set_option("base_url.europepmc", server_->url("/garbage"));
  auto t0 = std::chrono::steady_clock::now();
  auto r = call("search_literature", {{"query", "SPL"}, {"timeout_seconds", 1.5}, {"max_results_per_source", 2}}, ctx);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_LT(took, std::chrono::milliseconds(2800)) << "sources run in parallel, bounded by the timeout";
  EXPECT_EQ((*r)["sources_searched"].size(), 5u);
  EXPECT_EQ((*r)["total_found"], 3) << "pubmed 2 + clinicaltrials 1";
  std::string errors = (*r)["errors"].dump();
  EXPECT_NE(errors.find("semantic_scholar: HTTP 500"), std::string::npos) << errors;
  EXPECT_NE(errors.find("arxiv"), std::string::npos) << errors;
  EXPECT_NE(errors.find("europepmc"), std::string::npos) << errors;
}

TEST_F(LiteratureTools, RateLimitIsATypedError) {
  ToolContext ctx = context();
  ctx.set_option("base_url.semantic_scholar", server_->url("/limited"));
  auto r = call("semantic_scholar_search", {{"query", "SPL"}}, ctx);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().details()["error_type"], "rate_limit_error");
  EXPECT_NE(r.status().message().find("429"), std::string::npos);
  EXPECT_NE(r.status().message().find("retry after 120"), std::string::npos);
}

TEST_F(LiteratureTools, MultiSourceDeduplicatesAndKeepsTheSeedShape) {
  auto r = call("multi_source_literature_search",
                {{"queries", {"SPL litchi"}}, {"max_results_per_query_per_source", 2}, {"max_total_unique_papers", 10}},
                context());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_TRUE(r->is_array());
  // S2 gives 2, PubMed 2 (one the same paper as S2's first, DOI in other case), arXiv 1.
  ASSERT_EQ(r->size(), 4u) << r->dump(1);
  const Json& first = (*r)[0];
  EXPECT_EQ(first["source_api"], "Semantic Scholar");
  EXPECT_EQ(first["year"], 2022);
  EXPECT_EQ(first["doi"], "10.1105/tpc.22.0001");
  const Json& second = (*r)[1];
  EXPECT_EQ(second["title"], "Deep learning for plant phenotyping");
  EXPECT_EQ(second["authors"], Json::array({"N/A"}));
  EXPECT_EQ(second["abstract"], "N/A");
  EXPECT_TRUE(second["doi"].is_null());
  EXPECT_EQ(second["venue"], "N/A");
  EXPECT_EQ((*r)[2]["source_api"], "PubMed");
  EXPECT_EQ((*r)[2]["title"], "miR156 and SPL in woody plants.");
  EXPECT_EQ((*r)[3]["source_api"], "ArXiv");
  auto early =
      call("multi_source_literature_search",
           {{"queries", {"a", "b", "c"}}, {"max_results_per_query_per_source", 2}, {"max_total_unique_papers", 2}},
           context());
  EXPECT_EQ(early->size(), 2u) << "stops at the limit";
}

// The per-source caps hold even when a server returns more than was asked
// (the replay server's PubMed always lists two ids).
TEST_F(LiteratureTools, PerSourceCapsHoldWhenServersReturnMore) {
  auto pm = call("pubmed_search", {{"query", "SPL litchi"}, {"max_results", 1}}, context());
  ASSERT_TRUE(pm.is_ok()) << pm.status().to_string();
  EXPECT_EQ((*pm)["n_results"], 1);
  auto s2 = call("semantic_scholar_search", {{"query", "SPL"}, {"max_results", 1}}, context());
  ASSERT_TRUE(s2.is_ok()) << s2.status().to_string();
  EXPECT_EQ((*s2)["n_results"], 1);
  auto handler = call("search_literature", {{"query", "SPL"}, {"max_results_per_source", 1}}, context());
  ASSERT_TRUE(handler.is_ok()) << handler.status().to_string();
  EXPECT_EQ((*handler)["total_found"], 5) << "one per source";
  auto multi = call("multi_source_literature_search",
                    {{"queries", {"SPL litchi"}}, {"max_results_per_query_per_source", 1}}, context());
  ASSERT_TRUE(multi.is_ok()) << multi.status().to_string();
  // S2's first (DOI 10.1105/tpc.22.0001), PubMed's first (the same DOI: merged), arXiv's one.
  ASSERT_EQ(multi->size(), 2u) << multi->dump(1);
  EXPECT_EQ((*multi)[0]["source_api"], "Semantic Scholar");
  EXPECT_EQ((*multi)[1]["source_api"], "ArXiv");
  // The real recorded answers: Europe PMC's page of 25 and arXiv's feed of 10, asked for 3.
  const fs::path api = bioagent::testing::fixtures_dir() / "api";
  if (!fs::is_directory(api)) GTEST_SKIP() << "fixtures absent: " << api;
  ReplayServer recorded(std::string(R"([{"path": "/epmc/search", "body_file": )") +
                        Json((api / "europepmc/search_cancer_core.json").string()).dump() +
                        R"(}, {"path": "/arxiv/query", "body_file": )" +
                        Json((api / "arxiv/q_testing_s0_m10.atom.xml").string()).dump() + "}]");
  ASSERT_TRUE(recorded.ok());
  ToolContext real = context();
  real.set_option("base_url.europepmc", recorded.url("/epmc"));
  real.set_option("base_url.arxiv", recorded.url("/arxiv"));
  for (const char* tool : {"europepmc_search", "arxiv_search"}) {
    auto r = call(tool, {{"query", "cancer"}, {"max_results", 3}}, real);
    ASSERT_TRUE(r.is_ok()) << tool << ": " << r.status().to_string();
    EXPECT_EQ((*r)["n_results"], 3) << tool;
  }
}

// Seed 003's SearchHandler ingests into the RAG store by default.
TEST_F(LiteratureTools, SearchLiteratureIngestsByDefault) {
  auto r = call("search_literature", {{"query", "SPL"}, {"sources", {"pubmed"}}}, context());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)["ingested_to_rag"], 2);
  auto off = call("search_literature", {{"query", "SPL other"}, {"sources", {"arxiv"}}, {"auto_ingest_to_rag", false}},
                  context());
  EXPECT_FALSE(off->contains("ingested_to_rag"));
  ToolContext no_cache = context();
  no_cache.set_option("cache_dir", "");
  auto bare = call("search_literature", {{"query", "SPL"}, {"sources", {"pubmed"}}}, no_cache);
  ASSERT_TRUE(bare.is_ok()) << "a search without an evidence store still runs: " << bare.status().to_string();
  EXPECT_EQ((*bare)["total_found"], 2);
  EXPECT_NE((*bare)["errors"].dump().find("nothing ingested"), std::string::npos) << (*bare)["errors"].dump();
}

TEST_F(LiteratureTools, OfflineServesTheWarmCacheAndSaysWhenCold) {
  auto online = call("pubmed_search", {{"query", "SPL litchi"}}, context());
  ASSERT_TRUE(online.is_ok());
  ToolContext offline = context(true);
  server_.reset();  // the network is gone
  auto warm = call("pubmed_search", {{"query", "SPL litchi"}}, offline);
  ASSERT_TRUE(warm.is_ok()) << warm.status().to_string();
  EXPECT_EQ((*warm)["evidence"], (*online)["evidence"]);
  auto cold = call("pubmed_search", {{"query", "never asked"}}, offline);
  ASSERT_FALSE(cold.is_ok());
  EXPECT_NE(cold.status().message().find("offline"), std::string::npos) << cold.status().message();
}

TEST_F(LiteratureTools, EvidenceStoreCollectsAndSearchesOffline) {
  auto r = call("search_literature", {{"query", "SPL"}, {"sources", {"pubmed", "arxiv"}}, {"auto_ingest_to_rag", true}},
                context());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)["ingested_to_rag"], 3);
  auto again =
      call("search_literature", {{"query", "SPL"}, {"sources", {"pubmed"}}, {"auto_ingest_to_rag", true}}, context());
  EXPECT_FALSE(again->contains("ingested_to_rag")) << "nothing new the second time";
  auto local = call("search_evidence_store", {{"query", "flowering litchi"}}, context(true));
  ASSERT_TRUE(local.is_ok()) << local.status().to_string();
  EXPECT_EQ((*local)["store_size"], 3);
  ASSERT_GE((*local)["evidence"].size(), 1u);
  EXPECT_EQ((*local)["evidence"][0]["citation"]["pmid"], "111");
  auto with_rag =
      call("search_literature", {{"query", "litchi"}, {"sources", {"arxiv"}}, {"include_rag", true}}, context());
  EXPECT_NE((*with_rag)["sources_searched"].dump().find("rag"), std::string::npos);
  auto none = call("search_evidence_store", {{"query", "zzzz"}}, context(true));
  EXPECT_TRUE((*none)["evidence"].empty());
  EXPECT_TRUE(none->contains("message"));
  auto hostile = call("search_evidence_store", {{"query", "\" OR 1=1; DROP TABLE evidence; --"}}, context(true));
  ASSERT_TRUE(hostile.is_ok()) << "FTS syntax in a query is only words";
  EXPECT_EQ((*hostile)["store_size"], 3);
}

TEST_F(LiteratureTools, FetchTextFromUrls) {
  Json papers = Json::array({{{"title", "html"}, {"url", server_->url("/page.html")}},
                             {{"title", "plain"}, {"url", server_->url("/plain.txt")}},
                             {{"title", "nothing"}, {"url", server_->url("/empty.html")}},
                             {{"title", "404"}, {"url", server_->url("/missing")}},
                             {{"title", "no url"}},
                             {{"title", "bad"}, {"url", "javascript:alert(1)"}}});
  auto r = call("fetch_text_from_urls", {{"paper_info_list", papers}, {"max_chars_per_paper", 60}}, context());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 6u);
  std::string html = (*r)[0]["retrieved_text_content"];
  EXPECT_EQ(html.rfind("SPL review", 0), 0u) << html;
  EXPECT_NE(html.find("SBP-box proteins bind GTAC motifs."), std::string::npos) << html;
  EXPECT_EQ(html.find("var x"), std::string::npos);
  EXPECT_EQ(html.find("Home | About"), std::string::npos);
  EXPECT_EQ((*r)[0]["title"], "html") << "input keys kept";
  EXPECT_EQ((*r)[1]["retrieved_text_content"], "just text, mislabelled");
  EXPECT_EQ((*r)[2]["retrieved_text_content"], "Error: No text could be extracted.");
  EXPECT_EQ((*r)[3]["retrieved_text_content"], "Error fetching URL: HTTP 404");
  EXPECT_EQ((*r)[4]["retrieved_text_content"], "Error: Invalid or missing URL.");
  EXPECT_EQ((*r)[5]["retrieved_text_content"], "Error: Invalid or missing URL.");
  ToolContext strict = context();
  strict.set_option("allow_private_urls", "0");
  auto refused =
      call("fetch_text_from_urls", {{"paper_info_list", {{{"url", server_->url("/page.html?fresh=1")}}}}}, strict);
  EXPECT_NE((*refused)[0]["retrieved_text_content"].get<std::string>().find("refused to connect to 127.0.0.1"),
            std::string::npos);
}

TEST_F(LiteratureTools, FetchTextFromAPdf) {
  fs::path pdf = bioagent::testing::fixtures_dir() / "pdfs/neusym_rag/test_pdf.pdf";
  if (!fs::exists(pdf)) GTEST_SKIP() << "fixture PDF absent: " << pdf;
  std::string routes =
      std::string(R"([{"path": "/paper.pdf", "headers": {"Content-Type": "text/html"}, "body_file": )") +
      Json(pdf.string()).dump() + "}]";
  ReplayServer pdf_server(routes);
  ASSERT_TRUE(pdf_server.ok());
  auto r =
      call("fetch_text_from_urls",
           {{"paper_info_list", {{{"url", pdf_server.url("/paper.pdf")}}}}, {"max_chars_per_paper", 2000}}, context());
  ASSERT_TRUE(r.is_ok());
  std::string text = (*r)[0]["retrieved_text_content"];
  EXPECT_NE(text.find("Retrieval-Augmented Generation"), std::string::npos) << text.substr(0, 300);
  EXPECT_LE(text.size(), 2000u * 4);
}
