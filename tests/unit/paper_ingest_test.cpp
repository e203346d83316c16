// add_papers_to_library, the paper library's ingest as a tool (and as an MCP
// task): the fixtures' PDFs (../shared/fixtures/pdfs, skipped when absent) are
// added with progress per paper, a second call finds them present, a file that
// is no PDF is listed as failed, a path outside the workspace is refused and a
// cancelled call stops between papers with those written kept.
#include <gtest/gtest.h>

#include "bioagent/agent.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

struct IngestEnv {
  TempDir dir;
  ToolRegistry reg;
  std::unique_ptr<Workspace> ws;
  std::vector<std::string> progress;
  IngestEnv() {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    fs::copy(bioagent::testing::fixtures_dir() / "pdfs", dir.path() / "pdfs", fs::copy_options::recursive);
    std::ofstream(dir.path() / "pdfs" / "notes.pdf") << "plain text, not a PDF";
    ws = std::make_unique<Workspace>(*Workspace::create({dir.path().string()}));
    ws->hide_absolute_paths();
  }
  Result<Json> add(const Json& paths, std::shared_ptr<std::atomic<bool>> cancel = nullptr) {
    ToolContext ctx(ws.get());
    ctx.set_option("papers_db", (dir.path() / "papers.duckdb").string());
    ctx.set_timeout(std::chrono::minutes(10));
    if (cancel) ctx.set_cancel_flag(cancel);
    ctx.set_progress([this, cancel](double done, double, const std::string& file) {
      progress.push_back(file);
      if (cancel && done >= 1) cancel->store(true);  // stop after the first paper
    });
    return reg.call("add_papers_to_library", {{"paths", paths}}, ctx);
  }
};

bool fixtures() { return fs::is_directory(bioagent::testing::fixtures_dir() / "pdfs" / "neusym_rag"); }

}  // namespace

TEST(PaperIngest, AddsThePdfsOfAFolderOnceAndNamesWhatFailed) {
  if (!fixtures()) GTEST_SKIP() << "fixtures absent";
  IngestEnv e;
  auto r = e.add({"pdfs/neusym_rag", "pdfs/notes.pdf"});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ((*r)["added"].size(), 1u) << r->dump();
  EXPECT_EQ((*r)["added"][0]["file"], "pdfs/neusym_rag/test_pdf.pdf") << "named as the workspace shows it";
  EXPECT_GT((*r)["added"][0]["pages"].get<int>(), 0);
  EXPECT_EQ((*r)["added"][0]["already_present"], false);
  ASSERT_EQ((*r)["failed"].size(), 1u);
  EXPECT_EQ((*r)["failed"][0]["file"], "pdfs/notes.pdf");
  EXPECT_EQ((*r)["failed"][0]["error"].get<std::string>().find(e.dir.path().string()), std::string::npos)
      << "no server path in an error";
  EXPECT_EQ((*r)["library_papers"], 1);
  EXPECT_EQ(e.progress.size(), 2u) << "one progress report per PDF";
  auto again = e.add({"pdfs/neusym_rag/test_pdf.pdf"});
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ((*again)["added"][0]["already_present"], true);
  EXPECT_EQ((*again)["already_present"], 1);
  auto outside = e.add({"/etc"});
  ASSERT_FALSE(outside.is_ok());
  EXPECT_EQ(outside.status().message().find(e.dir.path().string()), std::string::npos);
}

TEST(PaperIngest, ACancelledCallStopsBetweenPapersAndKeepsThoseWritten) {
  if (!fixtures()) GTEST_SKIP() << "fixtures absent";
  IngestEnv e;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto r = e.add({"pdfs/cermine_biomedical_oa", "pdfs/arxiv"}, cancel);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
  EXPECT_LT(e.progress.size(), 6u) << "the papers after the cancelled batch were not read";
  auto lib = PaperLibrary::open((e.dir.path() / "papers.duckdb").string());
  ASSERT_TRUE(lib.is_ok());
  auto listed = (*lib)->list();
  ASSERT_TRUE(listed.is_ok());
  EXPECT_GE(listed->size(), 1u) << "the papers written before the cancel stay";
}
