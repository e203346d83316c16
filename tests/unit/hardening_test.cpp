// Hostile and careless input to the library: JSON nested 50,000 deep, chat
// messages of 10k / 100k / 1M characters on the rule-based paths, a calculator
// expression that would cost seconds of big-integer work, a spreadsheet whose
// one shared string is referenced by 12,000 cells, a zip with two entries of one
// name, and line ends in XML text. Each is a clear refusal or a bounded answer.
#include <gtest/gtest.h>
#include <zip.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "assistant/assistant_impl.h"
#include "bioagent/agent.h"
#include "bioagent/assistant.h"
#include "bioagent/calc.h"
#include "bioagent/json_text.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/table.h"
#include "bioagent/text_extract.h"
#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Writes a zip of (name, text) entries, stored uncompressed.
void write_zip(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& parts) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(za, nullptr);
  for (auto& [name, text] : parts) {
    char* copy = static_cast<char*>(std::malloc(text.size()));
    std::memcpy(copy, text.data(), text.size());
    zip_source_t* src = zip_source_buffer(za, copy, text.size(), 1);
    zip_int64_t idx = zip_file_add(za, name.c_str(), src, ZIP_FL_OVERWRITE);
    ASSERT_GE(idx, 0) << name;
    zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
  }
  ASSERT_EQ(zip_close(za), 0);
}

std::vector<std::pair<std::string, std::string>> workbook_parts(const std::string& sheet_xml,
                                                                const std::string& shared_xml) {
  std::vector<std::pair<std::string, std::string>> parts = {
      {"[Content_Types].xml", "<Types/>"},
      {"xl/workbook.xml",
       "<workbook xmlns:r=\"r\"><sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"},
      {"xl/_rels/workbook.xml.rels",
       "<Relationships><Relationship Id=\"rId1\" Type=\"x/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
       "</Relationships>"},
      {"xl/worksheets/sheet1.xml", sheet_xml}};
  if (!shared_xml.empty()) parts.push_back({"xl/sharedStrings.xml", shared_xml});
  return parts;
}

}  // namespace

TEST(Hardening, DeepJsonIsRefusedBeforeItIsParsed) {
  EXPECT_TRUE(parse_json_bounded(nested(50000)).is_discarded());
  EXPECT_TRUE(parse_json_bounded(std::string(200000, '{')).is_discarded());
  EXPECT_TRUE(parse_json_bounded(nested(kMaxJsonDepth + 1)).is_discarded());
  EXPECT_FALSE(parse_json_bounded(nested(kMaxJsonDepth)).is_discarded());
  // Brackets inside strings are text, escaped quotes do not end a string.
  Json s = parse_json_bounded("{\"a\": \"" + std::string(100000, '[') + "\\\"[[\"}");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["a"].get<std::string>().size(), 100003u);
  EXPECT_TRUE(parse_json_bounded("{\"a\": [1, 2").is_discarded());
}

TEST(Hardening, McpSurvivesDeepMessages) {
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  TempDir dir;
  Workspace ws = *Workspace::create({dir.path().string()});
  std::vector<Json> sent;
  McpSession session(reg, ws, McpOptions{}, [&](const std::string& line) { sent.push_back(Json::parse(line)); });
  session.handle_message(nested(50000));
  std::string call = R"({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "calculate_expr",
                         "arguments": {"expr": )" +
                     nested(50000) + "}}}";
  session.handle_message(call);
  ASSERT_EQ(sent.size(), 2u);
  for (auto& m : sent) {
    EXPECT_EQ(m["error"]["code"], -32700) << m.dump();
    EXPECT_NE(m["error"]["message"].get<std::string>().find("256"), std::string::npos);
  }
}

// No backtracking regex engine sees user text: long messages are answered on
// every rule-based path (routing, arithmetic detection, citation checking).
TEST(Hardening, LongMessagesOnTheRulePaths) {
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  TempDir dir;
  Workspace ws = *Workspace::create({dir.path().string()});
  // The chat takes at most 100,000 characters; the router sees any length.
  for (size_t n : {10000u, 100000u, 1000000u}) {
    auto t0 = Clock::now();
    std::string ones = "calculate " + std::string(n, '1') + "+1";
    (void)route_by_rules(ones);  // 1M characters: a few seconds on a loaded machine
    EXPECT_LT(seconds_since(t0), 20.0) << n;
    if (n > 100000) continue;
    (void)route_by_rules(std::string(n, 'a') + " papers about SPL");
    (void)route_by_rules("总结下SPL基因家族" + std::string(n, ' '));
    ToolContext ctx(&ws);
    ctx.set_option("offline", "1");
    ctx.set_option("papers_db", (dir.path() / "none.duckdb").string());
    AgentOptions o;
    auto r = run_offline_agent(ones, reg, ctx, o);
    (void)r;  // an answer or a clear error; what matters is that it returns
    std::string words;
    for (size_t i = 0; words.size() < n; ++i) words += "SPL" + std::to_string(i % 97) + " \"quoted [1] phrase\" 3.5 ";
    auto check = check_citations(words + " [1].", {{1, "SPL1 3.5"}});
    EXPECT_GE(check.sentences.size(), 1u);
    EXPECT_LT(seconds_since(t0), 30.0) << n;
  }
}

TEST(Hardening, CalculatorWorkIsBounded) {
  std::string expr;
  while (expr.size() < 9000) expr += "99**9999-";  // 1,000 powers of 66,000 bits: seconds of work
  expr += "1";
  auto t0 = Clock::now();
  auto r = evaluate_expression(expr);
  double took = seconds_since(t0);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted) << r.status().to_string();
  EXPECT_NE(r.status().message().find("work"), std::string::npos) << r.status().message();
  EXPECT_LT(took, 1.0);
  auto fine = evaluate_expression("2**9000 // 2**8990 + pow(3, 4000) % 7 + 99**9999 % 10");
  ASSERT_TRUE(fine.is_ok()) << fine.status().to_string();
}

// Apache POI's poc-shared-strings.xlsx pattern, made here: one 1 MB shared
// string referenced by 12,000 cells (12 GB of text if built) is refused.
TEST(Hardening, SharedStringAmplificationIsRefused) {
  std::string big;
  big.reserve(1000000);
  uint32_t x = 12345;
  while (big.size() < 1000000) {
    x = x * 1103515245u + 12345u;
    big += static_cast<char>('a' + (x >> 16) % 26);
  }
  std::string sheet = "<worksheet><sheetData>";
  for (int r = 1; r <= 12000; ++r)
    sheet += "<row r=\"" + std::to_string(r) + "\"><c r=\"A" + std::to_string(r) + "\" t=\"s\"><v>0</v></c></row>";
  sheet += "</sheetData></worksheet>";
  TempDir dir;
  fs::path path = dir.path() / "amplify.xlsx";
  write_zip(path, workbook_parts(sheet, "<sst><si><t>" + big + "</t></si></sst>"));
  auto t0 = Clock::now();
  auto r = read_xlsx(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted) << r.status().to_string();
  EXPECT_NE(r.status().message().find("MiB"), std::string::npos) << r.status().message();
  EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(Hardening, ZipWithTwoEntriesOfOneNameIsRefused) {
  TempDir dir;
  fs::path path = dir.path() / "twice.xlsx";
  auto parts = workbook_parts("<worksheet><sheetData/></worksheet>", "");
  parts.push_back({"xl/worksheets/sheet1.xmX",
                   "<worksheet><sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></c></row>"
                   "</sheetData></worksheet>"});
  write_zip(path, parts);
  // Give the last entry the same name as the sheet (names are never compressed).
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  for (size_t p = bytes.find("sheet1.xmX"); p != std::string::npos; p = bytes.find("sheet1.xmX", p)) bytes[p + 9] = 'l';
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto r = read_xlsx(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("two zip entries named 'xl/worksheets/sheet1.xml'"), std::string::npos)
      << r.status().to_string();
}

TEST(Hardening, XmlTextLineEndsAreLf) {
  TempDir dir;
  fs::path path = dir.path() / "crlf.xlsx";
  std::string sheet =
      "<worksheet><sheetData><row r=\"1\">"
      "<c r=\"A1\" t=\"inlineStr\"><is><t>one\r\ntwo\rthree</t></is></c>"
      "<c r=\"B1\" t=\"str\"><v>a\r\nb</v></c>"
      "<c r=\"C1\" t=\"inlineStr\"><is><t>kept&#13;&#10;as written</t></is></c>"
      "<c r=\"D1\" t=\"s\"><v>0</v></c>"
      "</row></sheetData></worksheet>";
  write_zip(path, workbook_parts(sheet, "<sst><si><t>shared\r\nline</t></si></sst>"));
  auto r = read_xlsx(path);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->rows[0][0].text, "one\ntwo\nthree");
  EXPECT_EQ(r->rows[0][1].text, "a\nb");
  EXPECT_EQ(r->rows[0][2].text, "kept\r\nas written");
  EXPECT_EQ(r->rows[0][3].text, "shared\nline");
}

// Parsing is bounded too, not only the download: 1 MB of 200,000 nested <div>
// and a PDF of 300,000 pages give a bounded answer quickly.
TEST(Hardening, DeepHtmlAndHugePdfsAreBounded) {
  std::string html = "<html><body>";
  for (int i = 0; i < 200000; ++i) html += "<div>";
  html += "deep text";
  auto t0 = Clock::now();
  EXPECT_GT(html_nesting_depth(html), kMaxHtmlDepth);
  std::string text = html_to_text(html);
  EXPECT_NE(text.find("deep text"), std::string::npos);
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_LT(html_nesting_depth("<html><body><p>a<p>b<ul><li>x<li>y</ul><br><img src=x><div><div></div></div>"), 6u);

  const int pages = 300000;
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  auto object = [&](const std::string& body) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(offsets.size()) + " 0 obj\n" + body + "\nendobj\n";
  };
  object("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  kids.reserve(static_cast<size_t>(pages) * 6);
  for (int i = 0; i < pages; ++i) kids += "3 0 R ";
  object("<< /Type /Pages /Count " + std::to_string(pages) + " /Kids [" + kids + "] >>");
  object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>");
  std::string content = "BT /F1 12 Tf 10 50 Td (page) Tj ET";
  object("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
  size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t o : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", o);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  t0 = Clock::now();
  auto r = pdf_to_text(pdf, 0, Clock::now() + std::chrono::seconds(3));
  EXPECT_LT(seconds_since(t0), 10.0);
  if (r.is_ok())
    EXPECT_NE(r->find("[stopped"), std::string::npos) << r->substr(r->size() > 200 ? r->size() - 200 : 0);
  else
    EXPECT_EQ(r.status().code(), ErrorCode::kParseError) << r.status().to_string();
}

// The CPU budget is the server's: a run that asks for more than is free waits,
// first come first served, and is told its place in the queue.
TEST(Hardening, RunsQueueForTheServersCpus) {
  CpuBudget budget;
  budget.set_total(2);
  auto never = [] { return false; };
  std::vector<size_t> positions;
  ASSERT_TRUE(budget.acquire("a", 2, never, [&](size_t p) { positions.push_back(p); }));
  EXPECT_TRUE(positions.empty()) << "a free budget does not queue";
  std::atomic<bool> b_running{false}, c_running{false};
  std::vector<size_t> b_pos;
  std::thread b([&] {
    ASSERT_TRUE(budget.acquire("b", 2, never, [&](size_t p) { b_pos.push_back(p); }));
    b_running = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::atomic<bool> give_up{false};
  std::thread c([&] {
    c_running = budget.acquire(
        "c", 1, [&] { return give_up.load(); }, [](size_t) {});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(b_running.load()) << "two CPUs are taken: the second run waits";
  EXPECT_EQ(budget.queued(), 2u);
  give_up = true;  // c is cancelled while it waits
  c.join();
  EXPECT_FALSE(c_running.load());
  budget.release(2);
  b.join();
  EXPECT_TRUE(b_running.load());
  ASSERT_FALSE(b_pos.empty());
  EXPECT_EQ(b_pos.front(), 1u);
  budget.release(2);
}

// A state folder under a workspace root is read by no tool, whatever the path;
// the example data the server keeps there stays readable; results print paths
// relative to their root.
TEST(Hardening, NoToolReadsTheStateFolder) {
  TempDir dir;
  dir.write("state/sessions/s_a/data/secret.csv", "gene,value\nSECRET,1\n");
  dir.write("state/sessions/s_a/data/a_executed.ipynb",
            R"J({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code",
                 "source": "print('A')", "metadata": {}, "outputs": []}]})J");
  dir.write("state/example-data/Exam/Exam.gff3", "##gff-version 3\n");
  dir.write("work/mine.ipynb", R"({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})");
  Workspace ws = *Workspace::create({dir.path().string()});
  ws.exclude(dir.path() / "state");
  ws.allow_inside_excluded(dir.path() / "state" / "example-data");
  for (const std::string& p :
       std::vector<std::string>{"state/sessions/s_a/data/secret.csv", (dir.path() / "state/app.sqlite").string(),
                                "work/../state/sessions", "state"}) {
    auto r = ws.resolve(p);
    ASSERT_FALSE(r.is_ok()) << p;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied);
  }
  EXPECT_TRUE(ws.resolve_existing("state/example-data/Exam/Exam.gff3").is_ok());
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  ToolContext ctx(&ws);
  auto raw = reg.call("get_raw_excel_data", {{"file_path", "state/sessions/s_a/data/secret.csv"}}, ctx);
  EXPECT_TRUE(!raw.is_ok() || raw->dump().find("SECRET") == std::string::npos);
  auto nb = reg.call("read_executed_notebook", {{"data_folder", "."}}, ctx);
  ASSERT_TRUE(nb.is_ok()) << nb.status().to_string();
  EXPECT_EQ((*nb)["notebook_path"], "work/mine.ipynb");
  EXPECT_EQ(nb->dump().find("s_a"), std::string::npos) << nb->dump();
  EXPECT_EQ(nb->dump().find(dir.path().string()), std::string::npos) << nb->dump();
}
