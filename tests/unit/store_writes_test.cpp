// Every store write is checked: a write SQLite refuses comes back as a Status,
// and what depends on it fails loudly instead of carrying on. Refusals are
// planted with a trigger from a second connection (RAISE(ABORT)), the way a full
// disk or a locked file would refuse.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "bioagent/pipeline.h"
#include "bioagent/search.h"
#include "core/sqlite_open.h"
#include "pipeline/run_store.h"
#include "test_util.h"
#include "toy_stage.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

void plant_refusal(const fs::path& db_file, const std::string& table) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_file.c_str(), &db), SQLITE_OK);
  std::string sql = "CREATE TRIGGER refuse_" + table + " BEFORE INSERT ON " + table +
                    " BEGIN SELECT RAISE(ABORT, 'planted refusal'); END;";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

}  // namespace

TEST(StoreWrites, AStatementReportsSqlitesOwnReason) {
  TempDir dir;
  auto db = open_sqlite((dir.path() / "s.sqlite").string(), "CREATE TABLE t (k TEXT PRIMARY KEY);", 1000);
  ASSERT_TRUE(db.is_ok());
  {  // statements are finalised before the connection closes
    EXPECT_FALSE(SqliteStatement::prepare(*db, "INSERT INTO nowhere VALUES (1)", "test store").is_ok());
    auto ins = SqliteStatement::prepare(*db, "INSERT INTO t VALUES (?)", "test store");
    ASSERT_TRUE(ins.is_ok());
    ins->bind(1, std::string_view("a"));
    EXPECT_TRUE(ins->step_done().is_ok());
    ins->reset();
    Status twice = ins->step_done();  // the primary key refuses the same row
    EXPECT_FALSE(twice.is_ok());
    EXPECT_NE(twice.message().find("test store"), std::string::npos) << twice.message();
    EXPECT_NE(twice.message().find("UNIQUE"), std::string::npos) << twice.message();
    EXPECT_FALSE(sqlite_exec(*db, "COMMIT", "test store").is_ok()) << "no transaction is open";
  }
  sqlite3_close(*db);
}

TEST(StoreWrites, ARunRecordThatCannotBeWrittenFailsTheStage) {
  TempDir dir;
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = 1;
  {
    auto store = RunStore::open(o.run_dir);  // makes the file, so the refusal can be planted first
    ASSERT_TRUE(store.is_ok());
    EXPECT_TRUE((*store)->record({{"stage", "x"}, {"state", "ok"}}).is_ok());
  }
  plant_refusal(o.run_dir / "run.sqlite", "attempts");
  {
    auto store = RunStore::open(o.run_dir);
    ASSERT_TRUE(store.is_ok());
    Status s = (*store)->record({{"stage", "x"}, {"state", "ok"}});
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("planted refusal"), std::string::npos) << s.message();
  }
  Pipeline p(
      {bioagent::testing::text_stage("a", {}, R"({"type": "object"})", [](const StageContext&) { return "a"; })});
  auto runner = make_local_runner();
  auto r = p.run(Json{{"params", Json::object()}}, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].state, StageState::kFailed) << "a stage whose record is lost cannot be resumed truthfully";
  EXPECT_NE((*r)[0].message.find("run record could not be written"), std::string::npos) << (*r)[0].message;
}

TEST(StoreWrites, EvidenceThatCannotBeStoredIsAnErrorAndLeavesNothingHalfWritten) {
  TempDir dir;
  const std::string file = (dir.path() / "evidence.sqlite").string();
  Evidence e;
  e.citation.source = "pubmed";
  e.citation.title = "SPL genes in litchi";
  e.citation.url = "https://example.org/1";
  e.content = "SQUAMOSA promoter binding protein-like genes";
  {
    auto store = EvidenceStore::open(file);
    ASSERT_TRUE(store.is_ok());
    auto added = (*store)->add({e}, "spl");
    ASSERT_TRUE(added.is_ok()) << added.status().to_string();
    EXPECT_EQ(*added, 1u);
  }
  plant_refusal(file, "evidence");
  auto store = EvidenceStore::open(file);
  ASSERT_TRUE(store.is_ok());
  Evidence other = e;
  other.citation.url = "https://example.org/2";
  other.citation.title = "Another paper";
  auto refused = (*store)->add({other}, "spl");
  EXPECT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("planted refusal"), std::string::npos) << refused.status().message();
  EXPECT_EQ((*store)->size(), 1u) << "the refused batch was rolled back";
}
