// The layering the folders promise (README, "Layout and public headers"): a
// module includes only its own private headers, the private headers of lower
// modules and the public headers of modules at or below it; a public header
// includes only public headers of modules at or below its own; the CLI uses
// public headers only. Reads the source tree; no build products.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace fs = std::filesystem;

namespace {

// The documented order, lowest first (docs/architecture.md lists the same).
const std::vector<std::string> kOrder = {"core", "tools",     "table",  "data",   "net",     "text",     "literature",
                                         "llm",  "index",     "papers", "agents", "figures", "pipeline", "genefamily",
                                         "runs", "assistant", "mcp",    "server", "cli"};

// Which module each public header belongs to (where it is implemented).
const std::map<std::string, std::string> kHeaderModule = {{"status", "core"},
                                                          {"bitext", "core"},
                                                          {"tool", "core"},
                                                          {"client_channel", "core"},
                                                          {"registry", "core"},
                                                          {"schema", "core"},
                                                          {"workspace", "core"},
                                                          {"json_text", "core"},
                                                          {"json_get", "core"},
                                                          {"digest", "core"},
                                                          {"version", "core"},
                                                          {"calc", "tools"},
                                                          {"notebook", "tools"},
                                                          {"table", "table"},
                                                          {"bundle", "data"},
                                                          {"http", "net"},
                                                          {"text_extract", "text"},
                                                          {"literature", "literature"},
                                                          {"search", "literature"},
                                                          {"llm", "llm"},
                                                          {"budget", "llm"},
                                                          {"collections", "index"},
                                                          {"filter_expr", "index"},
                                                          {"papers", "papers"},
                                                          {"agent", "agents"},
                                                          {"pipeline", "pipeline"},
                                                          {"genefamily", "genefamily"},
                                                          {"genefamily_classify", "genefamily"},
                                                          {"seqio", "genefamily"},
                                                          {"input_limits", "genefamily"},
                                                          {"runs", "runs"},
                                                          {"assistant", "assistant"},
                                                          {"mcp_server", "mcp"},
                                                          {"api_server", "server"}};

// Includes that run against the order today and are being removed (each with its reason); none now.
const std::set<std::string> kKnownExceptions = {};

int rank_of(const std::string& module) {
  for (size_t i = 0; i < kOrder.size(); ++i)
    if (kOrder[i] == module) return int(i);
  return -1;
}

std::vector<std::string> quoted_includes(const fs::path& file) {
  // std::regex on our own source files' lines (short, written by us), never on a user's text;
  // the std-regex lint covers src/ and include/ only.
  static const std::regex inc(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, inc)) out.push_back(m[1]);
  }
  return out;
}

// Why `inc` in a file of `module` breaks the order, or "".
std::string violation(const std::string& module, const std::string& inc, bool public_header) {
  const int own = rank_of(module);
  auto slash = inc.find('/');
  if (slash == std::string::npos) return "";  // a file beside it
  std::string dir = inc.substr(0, slash);
  if (dir == "bioagent") {
    std::string name = fs::path(inc).stem().string();
    auto it = kHeaderModule.find(name);
    if (it == kHeaderModule.end()) return "the public header " + inc + " has no module in the test's table";
    int r = rank_of(it->second);
    if (r > own) return inc + " belongs to " + it->second + ", above " + module;
    return "";
  }
  if (public_header) return "a public header includes the private " + inc;
  if (module == "cli" && dir != "cli") return "the CLI includes the private " + inc + " (public headers only)";
  int r = rank_of(dir);
  if (r < 0) return "";  // not a module folder (a third-party path)
  if (r > own) return inc + " is private to " + dir + ", above " + module;
  return "";
}

}  // namespace

TEST(Layering, EveryIncludeFollowsTheDocumentedModuleOrder) {
  const fs::path root = bioagent::testing::source_dir();
  ASSERT_TRUE(fs::is_directory(root / "src")) << root;
  std::vector<std::string> problems;
  std::set<std::string> exceptions_seen;
  for (auto& e : fs::recursive_directory_iterator(root / "src")) {
    if (!e.is_regular_file()) continue;
    auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".h") continue;
    fs::path rel = fs::relative(e.path(), root);
    std::string module = (++rel.begin())->string();
    if (rank_of(module) < 0) {
      problems.push_back(rel.string() + ": the folder src/" + module + " is not in the documented order");
      continue;
    }
    for (auto& inc : quoted_includes(e.path())) {
      std::string why = violation(module, inc, false);
      if (why.empty()) continue;
      std::string key = rel.string() + " -> " + inc;
      if (kKnownExceptions.count(key)) {
        exceptions_seen.insert(key);
        continue;
      }
      problems.push_back(key + ": " + why);
    }
  }
  for (auto& e : fs::directory_iterator(root / "include" / "bioagent")) {
    std::string name = e.path().filename().string();
    if (name.size() > 3 && name.substr(name.size() - 3) == ".in") name = name.substr(0, name.size() - 3);
    auto it = kHeaderModule.find(fs::path(name).stem().string());
    if (it == kHeaderModule.end()) {
      problems.push_back("include/bioagent/" + name + " has no module in the test's table");
      continue;
    }
    for (auto& inc : quoted_includes(e.path())) {
      std::string why = violation(it->second, inc, true);
      if (!why.empty()) problems.push_back("include/bioagent/" + name + " -> " + inc + ": " + why);
    }
  }
  std::string all;
  for (auto& p : problems) all += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << problems.size() << " includes run against the order:" << all;
  for (auto& x : kKnownExceptions)
    if (!exceptions_seen.count(x))
      ADD_FAILURE() << "the known exception '" << x << "' is gone: remove it from the test";
}

// The check itself catches what it must (a test of the rule, on made-up includes).
TEST(Layering, TheRuleRefusesUpwardAndPrivateIncludes) {
  EXPECT_FALSE(violation("index", "bioagent/papers.h", false).empty());
  EXPECT_FALSE(violation("pipeline", "genefamily/stages/stage_common.h", false).empty());
  EXPECT_FALSE(violation("cli", "genefamily/algo/collinearity.h", false).empty());
  EXPECT_FALSE(violation("pipeline", "core/sqlite_open.h", true).empty()) << "public headers include public ones";
  EXPECT_TRUE(violation("genefamily", "pipeline/subprocess.h", false).empty());
  EXPECT_TRUE(violation("assistant", "bioagent/genefamily.h", false).empty());
  EXPECT_TRUE(violation("cli", "cli/commands.h", false).empty());
}
