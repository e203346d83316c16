// The paper library on the real PDFs of ../shared/fixtures/pdfs (skipped when
// absent) and on bad input; RetrieveFromDatabase's read-only guard.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bioagent/agent.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "papers/paper_extract.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

fs::path pdf_dir() { return bioagent::testing::fixtures_dir() / "pdfs"; }

std::unique_ptr<PaperLibrary> open_library(const fs::path& db) {
  auto r = PaperLibrary::open(db.string());
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return std::move(r).value();
}

}  // namespace

TEST(Papers, IngestTheFixturesAndFindFigures) {
  if (!fs::is_directory(pdf_dir())) GTEST_SKIP() << "fixtures absent: " << pdf_dir();
  TempDir dir;
  const fs::path db = dir.path() / "papers.duckdb";
  {
    auto lib = open_library(db);
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(pdf_dir())) {
      if (e.path().extension() != ".pdf") continue;
      auto r = lib->add(e.path());
      ASSERT_TRUE(r.is_ok()) << e.path() << ": " << r.status().to_string();
      EXPECT_GT(r->num_pages, 0);
      EXPECT_GT(r->chunks, 0u) << e.path();
      EXPECT_FALSE(r->already_present);
      ++n;
    }
    EXPECT_GE(n, 10u);
    auto again = lib->add(pdf_dir() / "neusym_rag/test_pdf.pdf");
    ASSERT_TRUE(again.is_ok());
    EXPECT_TRUE(again->already_present) << "re-adding the same file is a no-op";
    auto listing = lib->list();
    ASSERT_TRUE(listing.is_ok());
    EXPECT_EQ(listing->size(), n);
  }
  // What extraction hands the search collections is exactly what the database
  // holds in the encodable columns (the entries are no longer read back).
  {
    auto db_conn = DuckDb::open(db.string(), true);
    ASSERT_TRUE(db_conn.is_ok());
    for (auto& e : fs::recursive_directory_iterator(pdf_dir())) {
      if (e.path().extension() != ".pdf") continue;
      auto prepared = prepare_paper(e.path());
      ASSERT_TRUE(prepared.is_ok());
      auto stored = encodable_entries(**db_conn, prepared->report.paper_id);
      ASSERT_TRUE(stored.is_ok());
      ASSERT_EQ(prepared->entries.size(), stored->size()) << e.path();
      for (size_t i = 0; i < stored->size(); ++i) {
        const IndexEntry &a = prepared->entries[i], &b = (*stored)[i];
        EXPECT_EQ(std::tie(a.table_name, a.column_name, a.primary_key, a.pdf_id, a.page_number, a.text),
                  std::tie(b.table_name, b.column_name, b.primary_key, b.pdf_id, b.page_number, b.text))
            << e.path() << " entry " << i << " " << b.table_name << "." << b.column_name;
      }
      // Search hits carry no text; the database gives each one back.
      std::vector<SearchHit> hits;
      for (const IndexEntry& entry : prepared->entries) {
        hits.push_back({1.0, entry});
        hits.back().entry.text.clear();
      }
      hits.push_back({1.0, {"chunks", "text_content", "no-such-chunk", "x", 1, ""}});
      ASSERT_TRUE(fill_entry_texts(**db_conn, hits).is_ok());
      for (size_t i = 0; i < prepared->entries.size(); ++i) EXPECT_EQ(hits[i].entry.text, prepared->entries[i].text);
      EXPECT_EQ(hits.back().entry.text, "") << "a row that is gone keeps empty text";
    }
    std::vector<SearchHit> odd = {{1.0, {"metadata", "pdf_path", "k", "x", 1, ""}}};
    EXPECT_EQ(fill_entry_texts(**db_conn, odd).code(), ErrorCode::kInternal) << "only encodable columns are read";
    odd[0].entry.table_name = "chunks; DROP TABLE chunks";
    EXPECT_EQ(fill_entry_texts(**db_conn, odd).code(), ErrorCode::kInternal);
  }
  // The seed's query: which page holds Figure 3? The page's own text must contain it.
  auto fig = retrieve_from_database(
      db.string(),
      "SELECT pages.page_number, pages.page_content, images.image_caption FROM images JOIN pages ON "
      "images.ref_page_id = pages.page_id JOIN metadata ON pages.ref_paper_id = metadata.paper_id WHERE "
      "images.image_caption LIKE '%Figure 3%'");
  ASSERT_TRUE(fig.is_ok()) << fig.status().to_string();
  ASSERT_GE((*fig)["rows"].size(), 2u);
  for (auto& row : (*fig)["rows"]) {
    EXPECT_NE(row[1].get<std::string>().find("Figure 3"), std::string::npos) << "page " << row[0];
    EXPECT_EQ(row[2].get<std::string>().rfind("Figure 3", 0), 0u);
  }
  auto rag = retrieve_from_database(db.string(),
                                    "SELECT title, num_pages FROM metadata WHERE title LIKE 'Retrieval-Augmented%'");
  ASSERT_TRUE(rag.is_ok());
  ASSERT_EQ((*rag)["rows"].size(), 1u);
  EXPECT_EQ((*rag)["rows"][0][1], 3);
  auto sections = retrieve_from_database(
      db.string(), "SELECT count(*) FROM sections s JOIN metadata m ON s.ref_paper_id = m.paper_id");
  EXPECT_GT((*sections)["rows"][0][0].get<int>(), 10);
  auto refs = retrieve_from_database(db.string(), "SELECT count(*) FROM reference");
  EXPECT_GT((*refs)["rows"][0][0].get<int>(), 50);
  auto truncated = retrieve_from_database(db.string(), "SELECT * FROM chunks",
                                          {.max_rows = 5, .max_chars = 100000, .timeout_ms = 30000});
  ASSERT_TRUE(truncated.is_ok());
  EXPECT_EQ((*truncated)["truncated"], true);
  EXPECT_EQ((*truncated)["rows"].size(), 5u);
  EXPECT_NE((*truncated)["note"].get<std::string>().find("truncated"), std::string::npos);

  // ViewImage: the page with Figure 3, and a clip of it, as PNG.
  auto where = retrieve_from_database(
      db.string(),
      "SELECT m.paper_id::VARCHAR, p.page_number, i.bounding_box::VARCHAR FROM images i JOIN pages p "
      "ON i.ref_page_id = p.page_id JOIN metadata m ON p.ref_paper_id = m.paper_id "
      "WHERE i.image_caption LIKE 'Figure 3%' LIMIT 1");
  ASSERT_TRUE(where.is_ok());
  ASSERT_EQ((*where)["rows"].size(), 1u);
  const std::string paper = (*where)["rows"][0][0];
  const int page = (*where)["rows"][0][1];
  auto full = view_image(db.string(), paper, page, {});
  ASSERT_TRUE(full.is_ok()) << full.status().to_string();
  EXPECT_EQ((*full)["mime_type"], "image/png");
  EXPECT_EQ((*full)["image_base64"].get<std::string>().rfind("iVBORw0KGgo", 0), 0u) << "a PNG signature";
  auto clip = view_image(db.string(), paper, page, {50, 60, 200, 100}, 72);
  ASSERT_TRUE(clip.is_ok()) << clip.status().to_string();
  EXPECT_EQ((*clip)["width"], 200);
  EXPECT_EQ((*clip)["height"], 100);
  EXPECT_LT((*clip)["size_bytes"].get<size_t>(), (*full)["size_bytes"].get<size_t>());
  auto off = view_image(db.string(), paper, page, {5000, 5000, 10, 10});
  EXPECT_EQ(off.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(off.status().message().find("outside page"), std::string::npos);
  EXPECT_EQ(view_image(db.string(), paper, 9999, {}).status().details()["field"], "args.page_number");
  EXPECT_EQ(view_image(db.string(), "no-such-paper", 1, {}).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(view_image(db.string(), paper, 1, {1, 2, 3}).status().code(), ErrorCode::kInvalidArgument);

  auto lib = open_library(db);
  auto id = (*lib->list())[0]["paper_id"].get<std::string>();
  ASSERT_TRUE(lib->info(id).is_ok());
  ASSERT_TRUE(lib->remove(id).is_ok());
  EXPECT_EQ(lib->info(id).status().code(), ErrorCode::kNotFound);
  lib.reset();
  auto left =
      retrieve_from_database(db.string(), "SELECT count(*) FROM chunks WHERE ref_paper_id::VARCHAR = '" + id + "'");
  EXPECT_EQ((*left)["rows"][0][0], 0) << "removed everywhere";
}

TEST(Papers, ReadOnlyGuard) {
  TempDir dir;
  const fs::path db = dir.path() / "papers.duckdb";
  open_library(db);
  dir.write("secret.csv", "a,b\n1,2\n");
  const std::string csv = (dir.path() / "secret.csv").string();
  for (std::string sql :
       {std::string("INSERT INTO metadata (paper_id) VALUES (uuid())"), std::string("DELETE FROM pages"),
        std::string("DROP TABLE chunks"), std::string("ATTACH 'x.db' AS x"),
        std::string("COPY metadata TO '/tmp/out.csv'"), std::string("INSTALL httpfs"), std::string("LOAD httpfs"),
        std::string("PRAGMA version"), std::string("SET threads = 1"), "SELECT * FROM read_csv('" + csv + "')",
        "SELECT * FROM '" + csv + "'", std::string("SELECT 1; DROP TABLE pages"),
        std::string("select 1;delete from pages"), std::string("/* sneaky */ CREATE TABLE x (a INT)"),
        std::string("WITH t AS (SELECT 1) DELETE FROM pages")}) {
    auto r = retrieve_from_database(db.string(), sql);
    ASSERT_FALSE(r.is_ok()) << sql;
    EXPECT_TRUE(r.status().code() == ErrorCode::kPermissionDenied || r.status().code() == ErrorCode::kInvalidArgument)
        << sql << ": " << r.status().to_string();
  }
  auto ok = retrieve_from_database(db.string(), "SELECT count(*) AS n FROM metadata -- a comment; DROP TABLE x");
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)["rows"][0][0], 0);
  auto quoted = retrieve_from_database(db.string(), "SELECT 'DROP TABLE pages; INSERT' AS s");
  ASSERT_TRUE(quoted.is_ok()) << "keywords inside strings are data";
  auto bad = retrieve_from_database(db.string(), "SELEC nothing");
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument) << "DuckDB's parser refuses it";
  auto syntax = retrieve_from_database(db.string(), "SELECT FROM WHERE");
  EXPECT_EQ(syntax.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(syntax.status().message().find("SQL error"), std::string::npos);
  auto slow = retrieve_from_database(db.string(), "SELECT count(*) FROM range(100000000000) a",
                                     {.max_rows = 10, .max_chars = 1000, .timeout_ms = 300});
  EXPECT_EQ(slow.status().code(), ErrorCode::kTimeout);
  EXPECT_EQ(retrieve_from_database((dir.path() / "none.duckdb").string(), "SELECT 1").status().code(),
            ErrorCode::kNotFound);
}

// What a query may do is decided from DuckDB's parse of it: catalog, settings,
// file and query() functions are refused however they are spelled.
TEST(Papers, QueriesAreCheckedOnDuckDbsParse) {
  TempDir dir;
  const fs::path db = dir.path() / "papers.duckdb";
  open_library(db);
  for (std::string sql : {
           "SELECT path FROM \"duckdb_databases\"()",
           "SELECT * FROM duckdb_databases",
           "SELECT \"current_setting\"('home_directory')",
           "SELECT current_setting('temp_directory')",
           "SELECT $$ /* $$ AS a, current_setting('secret_directory') AS b -- */",
           "SELECT * FROM \"query\"('SELECT path FROM duck'||'db_databases()')",
           "SELECT * FROM query_table('metadata')",
           "SELECT * FROM read_csv('/etc/passwd')",
           "SELECT * FROM glob('/etc/*')",
           "SELECT getenv('HOME')",
           "SELECT * FROM pg_catalog.pg_settings",
           "SELECT * FROM information_schema.tables",
           "SELECT * FROM duckdb_settings()",
           "SELECT * FROM (WITH duckdb_databases AS (SELECT 1) SELECT * FROM duckdb_databases), duckdb_databases",
           "SELECT * FROM 'papers.duckdb'",
           "SELECT * FROM system.main.duckdb_databases",
           "SELECT 1; SELECT 2",
           "SUMMARIZE duckdb_databases",
       }) {
    auto r = retrieve_from_database(db.string(), sql);
    ASSERT_FALSE(r.is_ok()) << sql;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << sql << ": " << r.status().to_string();
    EXPECT_EQ(r.status().message().find(dir.path().string()), std::string::npos) << sql;
  }
  for (std::string sql : {
           "SELECT lower(title) AS t, count(*) FROM metadata GROUP BY 1 ORDER BY 2 DESC LIMIT 3",
           "WITH p AS (SELECT page_number FROM pages) SELECT max(page_number) FROM p",
           "SELECT 'duckdb_databases()' AS s, '$$' || 'x' AS t",
           "SELECT row_number() OVER (ORDER BY page_number) FROM pages WHERE page_number BETWEEN 1 AND 3",
           "SELECT count(*) FROM range(10) t(i) WHERE i % 2 = 0 AND CAST(i AS VARCHAR) LIKE '%1%'",
           "DESCRIBE metadata",
           "SELECT * FROM metadata m JOIN pages p ON p.ref_paper_id = m.paper_id LIMIT 1",
       }) {
    auto r = retrieve_from_database(db.string(), sql);
    EXPECT_TRUE(r.is_ok()) << sql << ": " << r.status().to_string();
  }
}

// Seed 001's own example "images JOIN pages JOIN metadata ON a AND b" is a
// DuckDB parser error: describe_paper_database shows a join that runs, and the
// error from the seed's form says to give each JOIN its ON.
// test5's CropBox starts 28.35 pt into its MediaBox. Stored boxes, page sizes
// and ViewImage share one coordinate system, the rendered page's: the whole
// page is the box [0, 0, page_width, page_height], and every stored box is inside it.
TEST(Papers, BoxesAreInTheRenderedPagesCoordinates) {
  const fs::path pdf = pdf_dir() / "cermine_biomedical_oa/test5.pdf";
  if (!fs::exists(pdf)) GTEST_SKIP() << "fixture absent: " << pdf;
  TempDir dir;
  const fs::path db = dir.path() / "papers.duckdb";
  std::string id;
  {
    auto lib = open_library(db);
    auto r = lib->add(pdf);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    id = r->paper_id;
  }
  auto boxes = retrieve_from_database(
      db.string(),
      "SELECT p.page_number, p.page_width, p.page_height, b.bb[1], b.bb[2], b.bb[3], b.bb[4] FROM (SELECT "
      "ref_page_id, bounding_box AS bb FROM images UNION ALL SELECT ref_page_id, bounding_box FROM tables) b JOIN "
      "pages p ON b.ref_page_id = p.page_id");
  ASSERT_TRUE(boxes.is_ok()) << boxes.status().to_string();
  ASSERT_GE((*boxes)["rows"].size(), 3u);
  for (auto& row : (*boxes)["rows"]) {
    const int w = row[1].get<int>(), h = row[2].get<int>();
    const int x = row[3].get<int>(), y = row[4].get<int>(), dx = row[5].get<int>(), dy = row[6].get<int>();
    EXPECT_GE(x, -1) << row.dump();
    EXPECT_GE(y, -1) << row.dump();
    EXPECT_LE(x + dx, w + 1) << "page width " << w << ": " << row.dump();
    EXPECT_LE(y + dy, h + 1) << "page height " << h << ": " << row.dump();
  }
  auto page = retrieve_from_database(db.string(), "SELECT page_width, page_height FROM pages WHERE page_number = 1");
  ASSERT_TRUE(page.is_ok());
  const double w = (*page)["rows"][0][0].get<double>(), h = (*page)["rows"][0][1].get<double>();
  auto whole = view_image(db.string(), id, 1, {0, 0, w, h}, 72);
  ASSERT_TRUE(whole.is_ok()) << "the whole page as a box: " << whole.status().to_string();
  auto full = view_image(db.string(), id, 1, {}, 72);
  ASSERT_TRUE(full.is_ok());
  EXPECT_NEAR((*whole)["width"].get<int>(), (*full)["width"].get<int>(), 1) << "page sizes are stored rounded";
  EXPECT_NEAR((*whole)["height"].get<int>(), (*full)["height"].get<int>(), 1);
}

TEST(Papers, JoinExampleRunsAndTheSeedFormGetsTheOnHint) {
  TempDir dir;
  const fs::path db = dir.path() / "papers.duckdb";
  open_library(db);
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  auto ws = Workspace::create({dir.path().string()});
  ASSERT_TRUE(ws.is_ok());
  ToolContext ctx(&*ws);
  ctx.set_option("papers_db", db.string());
  auto schema = reg.call("describe_paper_database", Json::object(), ctx);
  ASSERT_TRUE(schema.is_ok()) << schema.status().to_string();
  const std::string example = (*schema)["join_example"].get<std::string>();
  auto ok = reg.call("RetrieveFromDatabase", {{"sql", example}}, ctx);
  ASSERT_TRUE(ok.is_ok()) << example << ": " << ok.status().to_string();
  const std::string seed =
      "SELECT pages.page_number FROM images JOIN pages JOIN metadata ON images.ref_page_id = pages.page_id AND "
      "pages.ref_paper_id = metadata.paper_id WHERE metadata.paper_id = '12345678' AND images.image_caption LIKE "
      "'%Figure 3%';";
  auto bad = reg.call("RetrieveFromDatabase", {{"sql", seed}}, ctx);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("each JOIN needs its own ON"), std::string::npos) << bad.status().to_string();
  auto other = reg.call("RetrieveFromDatabase", {{"sql", "SELECT FROM WHERE"}}, ctx);
  ASSERT_FALSE(other.is_ok());
  EXPECT_EQ(other.status().message().find("JOIN"), std::string::npos) << "no hint where no JOIN lacks its ON";
  auto cross = reg.call("RetrieveFromDatabase", {{"sql", "SELECT 1 FROM pages CROSS JOIN metadata WHERE x"}}, ctx);
  ASSERT_FALSE(cross.is_ok());
  EXPECT_EQ(cross.status().message().find("needs its own ON"), std::string::npos) << "CROSS JOIN needs no ON";
}

TEST(Papers, BadFilesAreClearErrorsAndWriteNothing) {
  TempDir dir;
  auto lib = open_library(dir.path() / "papers.duckdb");
  auto not_pdf = dir.write("notes.pdf", "this is plain text, not a PDF");
  EXPECT_EQ(lib->add(not_pdf).status().code(), ErrorCode::kParseError);
  EXPECT_EQ(lib->add(dir.path() / "missing.pdf").status().code(), ErrorCode::kNotFound);
  auto truncated =
      dir.write("cut.pdf", "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pag");
  auto r = lib->add(truncated);
  ASSERT_FALSE(r.is_ok()) << "a PDF with no readable page is an error, not a paper of 0 pages";
  EXPECT_EQ(r.status().code(), ErrorCode::kParseError);
  EXPECT_NE(r.status().message().find("cut.pdf"), std::string::npos);
  // The first 2,000 bytes of a real paper: MuPDF cannot repair it; nothing is stored.
  const fs::path real = pdf_dir() / "neusym_rag/test_pdf.pdf";
  if (fs::exists(real)) {
    std::ifstream in(real, std::ios::binary);
    std::string head(2000, '\0');
    in.read(head.data(), 2000);
    auto fragment = lib->add(dir.write("fragment.pdf", head));
    ASSERT_FALSE(fragment.is_ok()) << "stored with " << fragment->num_pages << " pages";
    EXPECT_NE(fragment.status().message().find("fragment.pdf"), std::string::npos);
  }
  EXPECT_TRUE(lib->list()->empty());
}

namespace {

// A minimal PDF written by hand: `pages` pages, each with one line of text (or
// none, like a scan without a text layer); `encrypted` adds a Standard security
// handler whose password checks cannot pass.
std::string make_pdf(int pages, bool with_text, bool encrypted = false) {
  std::vector<std::string> objs;  // object i+1
  objs.push_back("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  for (int p = 0; p < pages; ++p) kids += std::to_string(4 + 2 * p) + " 0 R ";
  objs.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>");
  objs.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (int p = 0; p < pages; ++p) {
    objs.push_back(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
        "/Contents " +
        std::to_string(5 + 2 * p) + " 0 R >>");
    std::string content = with_text ? "BT /F1 12 Tf 72 720 Td (Page " + std::to_string(p + 1) +
                                          " of a generated test document about gene families.) Tj ET"
                                    : "0.5 g 72 72 468 648 re f";
    objs.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
  }
  if (encrypted)
    objs.push_back("<< /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 /O <" + std::string(64, 'A') + "> /U <" +
                   std::string(64, 'B') + "> >>");
  std::string pdf = "%PDF-1.7\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objs.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objs[i] + "\nendobj\n";
  }
  size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objs.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[24];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objs.size() + 1) + " /Root 1 0 R";
  if (encrypted)
    pdf += " /Encrypt " + std::to_string(objs.size()) +
           " 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]";
  pdf += " >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

}  // namespace

TEST(Papers, GeneratedEdgeCasePdfs) {
  TempDir dir;
  auto lib = open_library(dir.path() / "papers.duckdb");
  // a scan without a text layer: ingested, with a warning
  auto scan = lib->add(dir.write("scan.pdf", make_pdf(3, false)));
  ASSERT_TRUE(scan.is_ok()) << scan.status().to_string();
  EXPECT_EQ(scan->num_pages, 3);
  ASSERT_FALSE(scan->warnings.empty());
  EXPECT_NE(scan->warnings[0].find("no text layer"), std::string::npos);
  // encrypted: a clear error naming the file, nothing written
  auto enc = lib->add(dir.write("locked.pdf", make_pdf(2, true, true)));
  ASSERT_FALSE(enc.is_ok());
  EXPECT_NE(enc.status().message().find("locked.pdf"), std::string::npos) << enc.status().to_string();
  EXPECT_EQ(lib->list()->size(), 1u);
  // 2,000 pages: every page stored and searchable
  auto big = lib->add(dir.write("long.pdf", make_pdf(2000, true)));
  ASSERT_TRUE(big.is_ok()) << big.status().to_string();
  EXPECT_EQ(big->num_pages, 2000);
  auto info = lib->info(big->paper_id);
  ASSERT_TRUE(info.is_ok());
  EXPECT_GE((*info)["chunks"].get<int64_t>(), 2000 / 20) << "pages are chunked";
  auto hits = lib->collections().search(
      {"Page 1999 of a generated test document", "text_bm25_en", "pages", "page_content", "page_number == 1999", 3},
      *lib->visible_papers());
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].entry.page_number, 1999);
}
