#include <gtest/gtest.h>

#include "bioagent/agent.h"
#include "bioagent/notebook.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

fs::path example_folder() { return fs::path(bioagent::testing::source_dir()) / "examples/notebooks"; }
fs::path example_notebook() { return example_folder() / "spl_expression_executed.ipynb"; }

Json read_example(NotebookQuery q = {}) {
  auto r = read_notebook(example_notebook(), q);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? *r : Json();
}

std::string nb_with_cells(const std::string& cells) {
  return R"({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": )" + cells + "}";
}

}  // namespace

TEST(Notebook, ShapeOfTheResult) {
  Json r = read_example();
  EXPECT_EQ(r["notebook_path"], example_notebook().string());
  EXPECT_EQ(r["total_cells"], 9);
  ASSERT_EQ(r["cells"].size(), 9u);
  EXPECT_EQ(r["cells"][0]["idx"], 0);
  EXPECT_EQ(r["cells"][0]["type"], "markdown");
  EXPECT_EQ(r["cells"][1]["type"], "code");
  EXPECT_TRUE(r["search"].is_null());
  EXPECT_EQ(r["n_matches"], 0);
  EXPECT_TRUE(r["matching_cells"].empty());
  for (auto& c : r["cells"]) {
    EXPECT_TRUE(c.contains("source"));
    EXPECT_TRUE(c["output"].is_string());
  }
}

TEST(Notebook, OutputsFollowThePreferenceOrder) {
  NotebookQuery q;
  q.max_output_chars = 5000;
  Json r = read_example(q);
  const Json& cells = r["cells"];
  EXPECT_EQ(cells[1]["output"], "(16, 7)\n") << "stream text";
  EXPECT_NE(cells[2]["output"].get<std::string>().find("LcSPL3   40.2"), std::string::npos) << "text/plain first";
  EXPECT_EQ(cells[2]["output"].get<std::string>().find("<table>"), std::string::npos) << "html only as fallback";
  EXPECT_NE(cells[4]["output"].get<std::string>().find("RuntimeWarning"), std::string::npos) << "stderr stream kept";
  EXPECT_EQ(cells[5]["output"], "<Figure size 640x480 with 1 Axes>\n[image/png]") << "images are noted";
  EXPECT_EQ(cells[6]["output"], R"({"n_genes":16,"n_significant":3,"threshold":0.05})") << "application/json";
  std::string err = cells[7]["output"];
  EXPECT_EQ(err.rfind("KeyError: 'padj'\n", 0), 0u) << err;
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << "ANSI escapes removed";
  EXPECT_NE(err.find("res.loc[res.pvalue < 0.05, 'padj']"), std::string::npos) << err;
  EXPECT_EQ(cells[0]["output"], "");
}

TEST(Notebook, SearchTermsAreCaseInsensitiveAndCommaSeparated) {
  NotebookQuery q;
  q.search = " PVALUE , keyerror ";
  Json r = read_example(q);
  std::vector<int> idx;
  for (auto& c : r["matching_cells"]) idx.push_back(c["idx"]);
  EXPECT_EQ(idx, (std::vector<int>{4, 7}));
  EXPECT_EQ(r["n_matches"], 2);
  EXPECT_EQ(r["search"], " PVALUE , keyerror ");
}

TEST(Notebook, SearchLooksAtFullTextNotTheTruncatedOne) {
  NotebookQuery q;
  q.search = "LcSPL9";
  q.max_output_chars = 10;
  Json r = read_example(q);
  ASSERT_EQ(r["n_matches"], 2) << r["matching_cells"].dump();
}

TEST(Notebook, RegexSearch) {
  NotebookQuery q;
  q.search = "lcspl[0-9]\\s+1[49]\\.";
  q.regex = true;
  Json r = read_example(q);
  ASSERT_EQ(r["n_matches"], 1);
  EXPECT_EQ(r["matching_cells"][0]["idx"], 4);
  q.search = "(unclosed";
  auto bad = read_notebook(example_notebook(), q);
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("invalid"), std::string::npos);
  q.search = "(a)\\1";
  EXPECT_FALSE(read_notebook(example_notebook(), q).is_ok()) << "backreferences are refused, not silently wrong";
}

TEST(Notebook, TruncationCountsCharactersAndSaysSo) {
  TempDir dir;
  std::string text = "αβγδεζηθικλμ";  // 12 two-byte characters
  dir.write("u.ipynb",
            nb_with_cells(R"([{"cell_type":"code","source":")" + text +
                          R"(","outputs":[{"output_type":"stream","name":"stdout","text":")" + text + R"("}]}])"));
  NotebookQuery q;
  q.max_output_chars = 5;
  auto r = read_notebook(dir.path() / "u.ipynb", q);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  std::string out = (*r)["cells"][0]["output"];
  EXPECT_EQ(out.rfind("αβγδε... [truncated: 5 of 12 characters shown]", 0), 0u) << out;
  q.max_output_chars = 12;
  EXPECT_EQ((*read_notebook(dir.path() / "u.ipynb", q))["cells"][0]["output"], text);
  q.include_source = false;
  EXPECT_FALSE((*read_notebook(dir.path() / "u.ipynb", q))["cells"][0].contains("source"));
}

TEST(Notebook, DiscoveryPrefersExecutedAndSkipsHiddenFolders) {
  TempDir dir;
  std::string nb = nb_with_cells("[]");
  dir.write("a_first.ipynb", nb);
  dir.write("sub/z_analysis_executed.ipynb", nb);
  dir.write("sub/b_analysis_executed.ipynb", nb);
  dir.write(".ipynb_checkpoints/a_executed.ipynb", nb);
  dir.write("notes.txt", "x");
  std::vector<fs::path> others;
  auto r = discover_notebook(dir.path(), &others);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->filename(), "b_analysis_executed.ipynb");
  ASSERT_EQ(others.size(), 2u);
  EXPECT_EQ(others[0].filename(), "z_analysis_executed.ipynb");
  EXPECT_EQ(others[1].filename(), "a_first.ipynb");
  TempDir empty;
  EXPECT_EQ(discover_notebook(empty.path()).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(discover_notebook(empty.path() / "nope").status().code(), ErrorCode::kNotFound);
}

TEST(Notebook, BadFilesGiveClearErrors) {
  TempDir dir;
  struct Case {
    const char* name;
    std::string content;
    ErrorCode code;
    const char* message;
  } cases[] = {
      {"corrupt.ipynb", R"({"nbformat": 4, "cells": [)", ErrorCode::kParseError, "not valid JSON"},
      {"empty.ipynb", "", ErrorCode::kParseError, "not valid JSON"},
      {"v3.ipynb", R"({"nbformat": 3, "worksheets": [{"cells": []}]})", ErrorCode::kUnsupported, "nbformat 3"},
      {"v3b.ipynb", R"({"worksheets": []})", ErrorCode::kUnsupported, "worksheets"},
      {"array.ipynb", "[1, 2]", ErrorCode::kParseError, "not a JSON object"},
      {"nocells.ipynb", R"({"nbformat": 4})", ErrorCode::kParseError, "no 'cells'"},
      {"badcell.ipynb", nb_with_cells("[1]"), ErrorCode::kParseError, "cell 0"},
      // Broken values the reader does not otherwise use are still refused.
      {"badmeta.ipynb", nb_with_cells(R"([{"cell_type": "code", "metadata": {"a": }, "source": "x"}])"),
       ErrorCode::kParseError, "not valid JSON"},
      {"badtype.ipynb", nb_with_cells(R"([{"cell_type": }, {"cell_type": "code"}])"), ErrorCode::kParseError,
       "not valid JSON"},
      {"badimage.ipynb", nb_with_cells(R"([{"cell_type": "code", "outputs": [{"output_type": "display_data",
                        "data": {"image/png": ], "text/plain": "x"}}]}])"),
       ErrorCode::kParseError, "not valid JSON"},
      {"badjson.ipynb", nb_with_cells(R"([{"cell_type": "code", "outputs": [{"output_type": "execute_result",
                        "data": {"application/json": {"a": [1, }}}]}])"),
       ErrorCode::kParseError, "not valid JSON"},
      {"trailing.ipynb", nb_with_cells("[]") + R"( {"x": 1})", ErrorCode::kParseError, "not valid JSON"},
  };
  for (auto& c : cases) {
    auto p = dir.write(c.name, c.content);
    auto r = read_notebook(p, {});
    ASSERT_FALSE(r.is_ok()) << c.name;
    EXPECT_EQ(r.status().code(), c.code) << c.name << ": " << r.status().to_string();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.name), std::string::npos) << "the error names the file";
  }
  EXPECT_EQ(read_notebook(dir.path() / "missing.ipynb", {}).status().code(), ErrorCode::kNotFound);
  NotebookQuery small;
  small.max_file_bytes = 10;
  EXPECT_EQ(read_notebook(example_notebook(), small).status().code(), ErrorCode::kResourceExhausted);
}

TEST(Notebook, OddButValidCellsAreTolerated) {
  auto r = read_notebook_text(nb_with_cells(R"([
      {"cell_type": "raw", "source": "raw text"},
      {"cell_type": "code", "source": [], "outputs": [{"output_type": "display_data", "data": {"text/html": ["<b>x</b>"]}},
                                                     {"output_type": "unknown_kind"}, 7,
                                                     {"output_type": "execute_result", "data": {}}]},
      {"source": "no type"}
  ])"),
                              "odd.ipynb", {});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)["cells"][0]["type"], "raw");
  EXPECT_EQ((*r)["cells"][1]["output"], "<b>x</b>");
  EXPECT_EQ((*r)["cells"][2]["type"], "unknown");
  auto none = read_notebook_text(nb_with_cells("[]"), "none.ipynb", {});
  EXPECT_EQ((*none)["total_cells"], 0);
  EXPECT_NE((*none)["note"].get<std::string>().find("no cells"), std::string::npos);
}

TEST(Notebook, StripAnsi) {
  EXPECT_EQ(strip_ansi("\x1b[0;31mred\x1b[0m plain \x1b[38;5;241mx\x1b[39m"), "red plain x");
  EXPECT_EQ(strip_ansi("a\x1b]0;title\x07"
                       "b"),
            "ab");
  EXPECT_EQ(strip_ansi("trailing\x1b"), "trailing");
  EXPECT_EQ(strip_ansi("\x1b[31"), "");
}

TEST(NotebookTool, ThroughTheRegistryWithTheSandbox) {
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  auto ws = *Workspace::create({bioagent::testing::source_dir()});
  ToolContext ctx(&ws);
  auto r = reg.call("read_executed_notebook", Json{{"data_folder", "examples/notebooks"}, {"search", "padj"}}, ctx);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ((*r)["n_matches"], 1);
  EXPECT_EQ((*r)["other_notebooks"].size(), 1u);
  EXPECT_NE((*r)["note"].get<std::string>().find("other notebook"), std::string::npos);

  auto escape = reg.call("read_executed_notebook", Json{{"notebook_path", "../../etc/passwd"}}, ctx);
  EXPECT_EQ(escape.status().code(), ErrorCode::kPermissionDenied);
  auto neither = reg.call("read_executed_notebook", Json::object(), ctx);
  EXPECT_EQ(neither.status().code(), ErrorCode::kInvalidArgument);
  auto nulls = reg.call("read_executed_notebook", Json{{"data_folder", nullptr}, {"notebook_path", nullptr}}, ctx);
  EXPECT_EQ(nulls.status().code(), ErrorCode::kInvalidArgument);
  auto bad_limit = reg.call("read_executed_notebook", Json{{"data_folder", "examples"}, {"max_output_chars", 0}}, ctx);
  EXPECT_EQ(bad_limit.status().details()["rule"], "minimum");
  auto both =
      reg.call("read_executed_notebook",
               Json{{"data_folder", "examples"}, {"notebook_path", "examples/notebooks/spl_expression.ipynb"}}, ctx);
  ASSERT_TRUE(both.is_ok());
  EXPECT_EQ((*both)["total_cells"], 2);
  EXPECT_NE((*both)["note"].get<std::string>().find("notebook_path was used"), std::string::npos);
}

// Real executed notebooks from ../shared/fixtures (skipped when absent).
TEST(NotebookFixtures, RealNotebooksRead) {
  fs::path dir = bioagent::testing::fixtures_dir() / "notebooks";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "fixtures not present at " << dir;
  size_t notebooks = 0, errors = 0, images = 0;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".ipynb") continue;
    NotebookQuery q;
    q.max_output_chars = 100000;
    auto r = read_notebook(e.path(), q);
    ASSERT_TRUE(r.is_ok()) << e.path() << ": " << r.status().to_string();
    ++notebooks;
    EXPECT_GT((*r)["total_cells"].get<int>(), 0) << e.path();
    for (auto& c : (*r)["cells"]) {
      std::string out = c["output"];
      EXPECT_EQ(out.find('\x1b'), std::string::npos) << e.path() << " cell " << c["idx"];
      if (out.find("Traceback") != std::string::npos || out.find("Error: ") != std::string::npos) ++errors;
      if (out.find("[image/png]") != std::string::npos) ++images;
    }
  }
  EXPECT_GE(notebooks, 5u);
  EXPECT_GE(errors, 3u) << "the fixtures hold several error outputs";
  EXPECT_GE(images, 8u) << "04-analytics-demo has 8 PNG displays";
}

TEST(NotebookFixtures, SearchInARealNotebook) {
  fs::path nb = bioagent::testing::fixtures_dir() / "notebooks/pyeuropepmc/06-long-covid-demo.ipynb";
  if (!fs::exists(nb)) GTEST_SKIP() << "fixture not present: " << nb;
  NotebookQuery q;
  q.search = "error";
  auto r = read_notebook(nb, q);
  ASSERT_TRUE(r.is_ok());
  EXPECT_GE((*r)["n_matches"].get<int>(), 1);
}
