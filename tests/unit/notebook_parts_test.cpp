// The notebook reader's parallel parse: cuts proven at cell boundaries, results
// equal to the sequential parse, anything unexpected falls back.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bioagent/notebook.h"
#include "core/worker_pool.h"
#include "test_util.h"
#include "tools/notebook/notebook_parts.h"

using namespace bioagent;
namespace fs = std::filesystem;

namespace {

// A notebook as Jupyter writes it (one-space indentation), with every kind of
// output the reader distinguishes. `metadata_last` puts the root's other keys
// after the cells (Jupyter's own order) instead of before.
std::string jupyter_text(int n_cells, bool metadata_last) {
  Json cells = Json::array();
  for (int i = 0; i < n_cells; ++i) {
    Json c;
    if (i % 5 == 0) {
      c["cell_type"] = "markdown";
      c["metadata"] = Json::object();
      c["source"] = {"## Step " + std::to_string(i) + "\n", "SPL genes, \"quoted\" },\n  { text\n"};
    } else {
      c["cell_type"] = "code";
      c["execution_count"] = i;
      c["metadata"] = {{"tags", {"t" + std::to_string(i)}}};
      c["source"] = "print(" + std::to_string(i) + ")";
      Json outs = Json::array();
      outs.push_back({{"output_type", "stream"}, {"name", "stdout"}, {"text", {"row " + std::to_string(i) + "\n"}}});
      if (i % 7 == 0)
        outs.push_back({{"output_type", "error"},
                        {"ename", "KeyError"},
                        {"evalue", "'LcSPL" + std::to_string(i) + "'"},
                        {"traceback", {"\x1b[31mKeyError\x1b[0m", "line 1"}}});
      if (i % 3 == 0)
        outs.push_back({{"output_type", "display_data"},
                        {"metadata", Json::object()},
                        {"data", {{"image/png", std::string(300, 'A')}, {"text/html", {"<b>", "x</b>"}}}}});
      c["outputs"] = outs;
    }
    cells.push_back(c);
  }
  Json nb = Json::object();
  Json meta = {{"kernelspec", {{"name", "python3"}, {"language", "python"}}}};
  if (!metadata_last) {
    nb["nbformat"] = 4;
    nb["metadata"] = meta;
  }
  nb["cells"] = cells;
  if (metadata_last) {
    nb["metadata"] = meta;
    nb["nbformat"] = 4;
    nb["nbformat_minor"] = 5;
  }
  return nb.dump(1);
}

// Sequential and forced-parallel reads of the same text must agree exactly:
// the same result, or the same error.
void expect_same_as_sequential(const std::string& text, unsigned threads, const std::string& what) {
  NotebookQuery seq;
  seq.threads = 1;
  seq.search = "keyerror,lcspl1";
  NotebookQuery par = seq;
  par.threads = threads;
  par.parallel_min_bytes = 0;
  auto a = read_notebook_text(text, "nb.ipynb", seq);
  auto b = read_notebook_text(text, "nb.ipynb", par);
  ASSERT_EQ(a.is_ok(), b.is_ok()) << what << ": " << (a.is_ok() ? b.status() : a.status()).to_string();
  if (a.is_ok())
    EXPECT_EQ(*a, *b) << what;
  else
    EXPECT_EQ(a.status().to_string(), b.status().to_string()) << what;
}

// Calls the parallel parse directly on a padded copy; checks the copy comes
// back byte-identical whatever the outcome.
std::optional<notebook::PartsResult> parts_of(const std::string& text, unsigned parts, const NotebookQuery& q = {}) {
  std::vector<char> buf(text.size() + 256, 0);
  std::memcpy(buf.data(), text.data(), text.size());
  auto matcher = Matcher::make(q);
  EXPECT_TRUE(matcher.is_ok());
  auto r = notebook::parse_in_parts(buf.data(), text.size(), buf.size(), *matcher, q, parts);
  EXPECT_EQ(std::string(buf.data(), text.size()), text) << "the brackets written for the cuts were not restored";
  return r;
}

}  // namespace

TEST(NotebookParts, CutsAJupyterNotebookAndAgreesWithTheSequentialRead) {
  for (bool metadata_last : {true, false}) {
    std::string text = jupyter_text(400, metadata_last);
    for (unsigned parts : {2u, 3u, 4u, 7u}) {
      auto r = parts_of(text, parts);
      ASSERT_TRUE(r.has_value()) << "an indented Jupyter notebook is cut into " << parts << " pieces";
      EXPECT_EQ(r->total_cells, 400u);
      EXPECT_EQ(r->info.nbformat, 4);
      for (size_t i = 0; i < r->cells.size(); ++i) ASSERT_EQ(r->cells[i]["idx"], i) << "cells renumbered in order";
      expect_same_as_sequential(text, parts, "parts " + std::to_string(parts));
    }
  }
}

TEST(NotebookParts, MoreThreadsThanCellsAndTinyNotebooks) {
  for (int n : {0, 1, 2, 3}) {
    std::string text = jupyter_text(n, true);
    for (unsigned parts : {2u, 8u}) expect_same_as_sequential(text, parts, std::to_string(n) + " cells");
  }
}

// A nested array inside a cell, laid out with the cells' own indentation, puts
// the cut pattern where it is not a cell boundary: the parse must refuse it.
TEST(NotebookParts, ACutInsideACellIsRefused) {
  std::string cells = "[\n  {\n   \"cell_type\": \"code\", \"source\": \"x\", \"metadata\": {\"rows\": [\n";
  for (int i = 0; i < 200; ++i) cells += std::string(i ? ",\n" : "") + "  {\"row\": " + std::to_string(i) + "}";
  cells += "]}, \"outputs\": []\n  },\n  {\n   \"cell_type\": \"markdown\", \"source\": \"after\"\n  }\n ]";
  std::string text = "{\n \"nbformat\": 4,\n \"cells\": " + cells + "\n}";
  EXPECT_FALSE(parts_of(text, 2).has_value()) << "the only cut candidates lie inside the first cell";
  expect_same_as_sequential(text, 2, "nested pattern");
  auto r = read_notebook_text(text, "nb.ipynb", {.threads = 2, .parallel_min_bytes = 0});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ((*r)["total_cells"], 2);
}

// Damaged or unusual documents: whatever the sequential read says, the
// parallel one says too (a failed piece falls back to it).
TEST(NotebookParts, DamagedAndUnusualDocumentsFallBack) {
  const std::string good = jupyter_text(120, true);
  std::vector<std::pair<std::string, std::string>> cases;
  for (size_t cut : {good.size() / 3, good.size() / 2, good.size() - 40, good.size() - 2})
    cases.emplace_back("truncated at " + std::to_string(cut), good.substr(0, cut));
  cases.emplace_back("trailing garbage", good + "\n{\"x\": 1}");
  cases.emplace_back("CRLF line ends", [&] {
    std::string s;
    for (char c : good) s += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return s;
  }());
  {
    std::string s = good;
    size_t late = s.find("\"cell_type\"", s.size() * 3 / 4);
    size_t open = s.rfind('{', late);
    cases.emplace_back("a late cell is not an object", s.substr(0, open) + "7" + s.substr(s.find("\n  }", late) + 4));
  }
  std::string tail_start = good.substr(0, good.rfind("\n ]") + 3);
  cases.emplace_back("worksheets after the cells", tail_start + ",\n \"worksheets\": []\n}");
  cases.emplace_back("nbformat 3 after the cells", tail_start + ",\n \"nbformat\": 3\n}");
  cases.emplace_back("cells twice", tail_start + ",\n \"cells\": [{\"cell_type\": \"raw\", \"source\": \"again\"}]\n}");
  cases.emplace_back("unclosed root", tail_start + ",\n \"metadata\": {}\n");
  cases.emplace_back("tab indentation", [&] {
    std::string s = good;
    for (size_t at = 0; (at = s.find("\n  {", at)) != std::string::npos; at += 3) s.replace(at + 1, 2, "\t\t");
    return s;
  }());
  for (auto& [what, text] : cases)
    for (unsigned parts : {2u, 3u}) expect_same_as_sequential(text, parts, what);
  EXPECT_FALSE(parts_of(good.substr(0, good.size() / 2), 2).has_value()) << "a truncated file is never accepted";
}

TEST(NotebookParts, RealNotebooksAgree) {
  fs::path dir = bioagent::testing::fixtures_dir() / "notebooks";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures not present at " << dir;
  size_t cut = 0;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".ipynb") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (unsigned parts : {2u, 3u}) expect_same_as_sequential(text, parts, e.path().string());
    cut += parts_of(text, 2).has_value();
  }
  EXPECT_GE(cut, 5u) << "the fixtures are Jupyter-written, so they can be cut";
}

TEST(WorkerPool, RunsEveryTaskAndRethrows) {
  auto& pool = WorkerPool::shared();
  std::atomic<int> sum{0};
  std::vector<std::function<void()>> tasks;
  for (int i = 1; i <= 9; ++i) tasks.emplace_back([&sum, i] { sum += i; });
  pool.run(tasks);
  EXPECT_EQ(sum, 45) << "more tasks than workers: the caller takes the queued ones";

  // A task that itself runs a batch on the pool must not deadlock.
  std::atomic<int> inner{0};
  std::vector<std::function<void()>> outer;
  for (int i = 0; i < 3; ++i)
    outer.emplace_back([&] {
      std::vector<std::function<void()>> t(4, [&] { ++inner; });
      WorkerPool::shared().run(t);
    });
  pool.run(outer);
  EXPECT_EQ(inner, 12);

  std::vector<std::function<void()>> failing{[] {}, [] { throw std::runtime_error("piece failed"); }, [] {}};
  EXPECT_THROW(pool.run(failing), std::runtime_error);
  std::vector<std::function<void()>> none;
  pool.run(none);
}
