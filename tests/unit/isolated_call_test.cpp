// run_isolated: values and statuses cross the process boundary intact; the
// deadline kills a child that never ends; the memory limit stops a child
// that allocates without bound (not under AddressSanitizer).
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "core/isolated_call.h"

namespace bioagent {
namespace {

TEST(IsolatedCall, ReturnsTheChildsValue) {
  auto r = run_isolated([]() -> Result<Json> { return Json{{"rows", {1, 2, 3}}, {"text", "héllo"}}; }, {});
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ((*r)["rows"].size(), 3u);
  EXPECT_EQ((*r)["text"], "héllo");
}

TEST(IsolatedCall, ReturnsTheChildsStatusWithDetails) {
  auto r = run_isolated([]() -> Result<Json> { return invalid_argument("bad sql").with("position", 7); }, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "bad sql");
  EXPECT_EQ(r.status().details()["position"], 7);
}

TEST(IsolatedCall, DeadlineKillsAChildThatNeverEnds) {
  IsolationLimits lim;
  lim.deadline = std::chrono::milliseconds(300);
  lim.what = "the loop";
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_isolated(
      []() -> Result<Json> {
        volatile uint64_t x = 0;
        for (;;) x = x + 1;
      },
      lim);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kTimeout);
  EXPECT_NE(r.status().message().find("the loop ran longer than 300 ms"), std::string::npos);
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST(IsolatedCall, MemoryLimitStopsAnUnboundedAllocation) {
  if (!isolation_limits_memory()) GTEST_SKIP() << "AddressSanitizer build: no address-space limit";
  IsolationLimits lim;
  lim.memory_bytes = size_t(256) << 20;
  auto r = run_isolated(
      []() -> Result<Json> {
        std::vector<std::vector<char>> hog;
        for (int i = 0; i < 64; ++i) hog.emplace_back(size_t(64) << 20, char(i));  // 4 GiB if unbounded
        return Json(hog.size());
      },
      lim);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted);
}

}  // namespace
}  // namespace bioagent
