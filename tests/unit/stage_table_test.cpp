// The gene-family stage table and what reads it: resource parameters bounded
// by the runner, the stages' needs, failure classes, repairs, truthful states
// and the correctness rules of the stages, on made-up data (fast, no programs).
#include <gtest/gtest.h>

#include <thread>

#include "assistant/assistant_impl.h"
#include "bioagent/genefamily.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

TEST(ResourceParams, CpuIsBoundedByTheRunnerAndTheErrorNamesTheLimit) {
  Json base = {{"cpu", 1}, {"evalue", 1e-5}};
  auto over = confirm_params(base, Json{{"cpu", 256}}, 2);
  ASSERT_FALSE(over.is_ok());
  EXPECT_EQ(over.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(over.status().message().find("from 1 to 2"), std::string::npos) << over.status().message();
  EXPECT_FALSE(confirm_params(base, Json{{"cpu", 0}}, 2).is_ok());
  EXPECT_FALSE(confirm_params(base, Json{{"cpu", 1.5}}, 2).is_ok());
  auto ok = confirm_params(base, Json{{"cpu", 2}}, 2);
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)["cpu"], 2);
  // The local runner's limit is the machine's cores, whatever the budget says.
  AssistantOptions o;
  o.cpus = 256;
  o.runner = "local";
  EXPECT_EQ(runner_cpu_limit(o), int(std::max(1u, std::thread::hardware_concurrency())));
  o.cpus = 1;
  EXPECT_EQ(runner_cpu_limit(o), 1);
}
