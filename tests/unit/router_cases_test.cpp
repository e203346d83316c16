// The router over its case file (tests/data/router_cases.tsv): every class of
// question in both languages, at the accuracy docs/evaluation.md states.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "bioagent/assistant.h"

namespace bioagent {
namespace {

TEST(Router, CasesFromData) {
  auto r = evaluate_router_cases(fs::path(BIOAGENT_SOURCE_DIR) / "tests" / "data" / "router_cases.tsv");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  for (auto& f : (*r)["failures"]) std::cout << "  miss: " << f.dump() << "\n";
  std::cout << "router accuracy " << (*r)["accuracy"].get<double>() << " on " << (*r)["cases"] << " cases ("
            << (*r)["chinese"] << " Chinese)\n";
  EXPECT_GE((*r)["cases"].get<int>(), 150);
  EXPECT_GE((*r)["chinese"].get<int>() * 3, (*r)["cases"].get<int>());
  EXPECT_GE((*r)["accuracy"].get<double>(), 0.95);
}

TEST(Router, CaseFileErrorsNameTheLine) {
  fs::path f = fs::temp_directory_path() / "router_cases_bad.tsv";
  {
    std::ofstream out(f);
    out << "# comment\nfaq\tSPL\tSummarise SPL\nnonsense\t-\thello\n";
  }
  auto r = evaluate_router_cases(f);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(":3:"), std::string::npos) << r.status().message();
  fs::remove(f);
}

}  // namespace
}  // namespace bioagent
