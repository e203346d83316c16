// The pinned DuckDB library links and answers a query.
#include <duckdb.h>
#include <gtest/gtest.h>

#include <string>

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
