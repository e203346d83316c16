// Fair shares: a client at its share is refused naming its own limit while
// another client's first is taken; the total holds across clients; a finished
// MCP tool task's thread is joined when its call ends.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/client_shares.h"
#include "core/thread_reaper.h"

using namespace bioagent;

TEST(ClientShares, OneClientAtItsShareLeavesTheOthersTheirFirst) {
  ClientShares shares("MCP sessions", 8, quarter_share(8));
  ASSERT_EQ(shares.per_client(), 2u);
  EXPECT_TRUE(shares.take("address:a").is_ok());
  EXPECT_TRUE(shares.take("address:a").is_ok());
  Status refused = shares.take("address:a");
  EXPECT_EQ(refused.code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("at most 2 per client"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.details()["scope"], "client");
  for (const char* other : {"address:b", "address:c", "token:d"}) EXPECT_TRUE(shares.take(other).is_ok()) << other;
  EXPECT_TRUE(shares.take("address:b").is_ok());
  EXPECT_TRUE(shares.take("address:c").is_ok());
  Status full = shares.take("address:e");  // 7 held: one left
  EXPECT_TRUE(full.is_ok());
  full = shares.take("address:f");
  EXPECT_EQ(full.details()["scope"], "server") << full.message();
  shares.give_back("address:a");
  EXPECT_TRUE(shares.take("address:f").is_ok());
  shares.give_back("address:nobody");  // ignored
  EXPECT_EQ(shares.held_in_all(), 8u);
}

TEST(ClientShares, ClientKeysNeverHoldTheToken) {
  const std::string key = client_key("s3cret-token", "10.0.0.1");
  EXPECT_EQ(key.rfind("token:", 0), 0u);
  EXPECT_EQ(key.find("s3cret"), std::string::npos);
  EXPECT_EQ(client_key("", "10.0.0.1"), "address:10.0.0.1");
  EXPECT_EQ(client_key("", ""), "local");
  EXPECT_NE(client_key("a", "x"), client_key("b", "x"));
}

namespace {
int threads_of_process() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}
}  // namespace

TEST(ThreadReaper, AThreadHandingItselfOverIsJoinedWhenItEnds) {
  const int before = threads_of_process();
  for (int i = 0; i < 50; ++i) {
    auto slot = std::make_shared<std::thread>();
    auto mu = std::make_shared<std::mutex>();
    std::lock_guard lock(*mu);
    *slot = std::thread([slot, mu] {
      std::lock_guard hold(*mu);  // the handle is assigned before the thread hands it over
      join_when_finished(std::move(*slot));
    });
  }
  // The reaper thread itself stays; the 50 are gone once joined.
  int now = threads_of_process();
  for (int i = 0; i < 200 && now > before + 1; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10)))
    now = threads_of_process();
  EXPECT_LE(now, before + 1);
}
