// The pinned DuckDB library links and answers a query.
#include <duckdb.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "papers/duckdb_conn.h"

TEST(DuckDB, InMemoryQuery) {
  duckdb_database db;
  duckdb_connection con;
  ASSERT_EQ(duckdb_open(nullptr, &db), DuckDBSuccess);
  ASSERT_EQ(duckdb_connect(db, &con), DuckDBSuccess);
  duckdb_result res;
  ASSERT_EQ(duckdb_query(con, "SELECT 40 + 2 AS answer, 'spl' || 'family' AS s", &res), DuckDBSuccess);
  EXPECT_EQ(duckdb_value_int64(&res, 0, 0), 42);
  char* s = duckdb_value_varchar(&res, 1, 0);
  EXPECT_EQ(std::string(s), "splfamily");
  duckdb_free(s);
  duckdb_destroy_result(&res);

  duckdb_result bad;
  EXPECT_EQ(duckdb_query(con, "SELEC nonsense", &bad), DuckDBError);
  EXPECT_NE(std::string(duckdb_result_error(&bad)).find("syntax"), std::string::npos);
  duckdb_destroy_result(&bad);
  duckdb_disconnect(&con);
  duckdb_close(&db);
  EXPECT_EQ(std::string(duckdb_library_version()), "v1.4.4");
}

// insert_batch goes through the appender: typed columns, expressions around
// the parameters, and the caller's transaction (a rollback leaves nothing).
TEST(DuckDB, InsertBatchAppendsInsideTheTransaction) {
  auto db = bioagent::DuckDb::open("", false);
  ASSERT_TRUE(db.is_ok());
  auto& d = **db;
  ASSERT_TRUE(
      d.exec("CREATE TABLE t (id UUID PRIMARY KEY, n BIGINT, box INTEGER[4], tags VARCHAR[], note VARCHAR)").is_ok());
  const std::string sql = "INSERT INTO t VALUES (?, ?, [?, ?, ?, ?]::INTEGER[4], string_split(?, chr(31)), NULL)";
  std::vector<std::vector<bioagent::SqlParam>> rows;
  for (int64_t i = 0; i < 300; ++i)
    rows.push_back({"00000000-0000-4000-8000-" + std::string(12 - std::to_string(i).size(), '0') + std::to_string(i), i,
                    i, int64_t(2), int64_t(3), int64_t(4), std::string("a\x1f") + "b" + std::to_string(i)});
  std::vector<const std::vector<bioagent::SqlParam>*> ptrs;
  for (auto& r : rows) ptrs.push_back(&r);

  ASSERT_TRUE(d.exec("BEGIN TRANSACTION").is_ok());
  ASSERT_TRUE(d.insert_batch(sql, ptrs).is_ok());
  ASSERT_TRUE(d.exec("ROLLBACK").is_ok());
  auto none = d.query("SELECT count(*) FROM t");
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(none->rows[0][0], 0) << "the appended rows belong to the rolled-back transaction";

  ASSERT_TRUE(d.exec("BEGIN TRANSACTION").is_ok());
  auto st = d.insert_batch(sql, ptrs);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_TRUE(d.exec("COMMIT").is_ok());
  auto got = d.query("SELECT count(*), sum(n), max(box[1]), max(len(tags)), any_value(tags[2]) FROM t WHERE n = 299");
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got->rows[0][0], 1);
  EXPECT_EQ(got->rows[0][1], "299");  // HUGEINT sum is read as text
  EXPECT_EQ(got->rows[0][2], 299);
  EXPECT_EQ(got->rows[0][3], 2);
  EXPECT_EQ(got->rows[0][4], "b299");

  // A duplicate key fails the whole batch with a clear error.
  ASSERT_TRUE(d.exec("BEGIN TRANSACTION").is_ok());
  auto dup = d.insert_batch(sql, {ptrs[0]});
  EXPECT_FALSE(dup.is_ok());
  EXPECT_NE(dup.message().find("SQL error"), std::string::npos) << dup.to_string();
  ASSERT_TRUE(d.exec("ROLLBACK").is_ok());
  // Mixed value types in one position fall back to VALUES statements.
  std::vector<bioagent::SqlParam> mixed = rows[1];
  mixed[0] = std::string("00000000-0000-4000-8000-999999999999");
  mixed[1] = 2.5;
  std::vector<bioagent::SqlParam> other = rows[2];
  other[0] = std::string("00000000-0000-4000-8000-999999999998");
  EXPECT_TRUE(d.insert_batch(sql, {&mixed, &other}).is_ok());
}

// Text that is not UTF-8 (a PDF's text cut inside a character) is stored repaired, by both
// insert paths: DuckDB keeps invalid bytes as given, and lower(), LIKE and ILIKE then fail inside it.
TEST(DuckDB, TextIsStoredAsValidUtf8) {
  auto db = bioagent::DuckDb::open("", false);
  ASSERT_TRUE(db.is_ok());
  auto& d = **db;
  ASSERT_TRUE(d.exec("CREATE TABLE t (id BIGINT, note VARCHAR)").is_ok());
  const std::string cut = std::string("STAR aligner \xE5\x95\x8A").substr(0, 15);  // ends inside 啊
  for (const std::string bad : {cut, std::string("\xC3\x28 x"), std::string("\xF5\x80\x80\x80 y")}) {
    ASSERT_TRUE(d.run("INSERT INTO t VALUES (1, ?)", {bad}).is_ok());
    std::vector<bioagent::SqlParam> row{int64_t(2), bad};
    ASSERT_TRUE(d.insert_batch("INSERT INTO t VALUES (?, ?)", {&row}).is_ok());
  }
  auto got = d.query("SELECT count(*) FROM t WHERE lower(note) LIKE '%\xEF\xBF\xBD%' AND note ILIKE '%%'");
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got->rows[0][0], 6) << "every row is searchable, its bad bytes as U+FFFD";
}
