// The HTTP client against the local replay server: caching, offline mode,
// retries on 429/500 with Retry-After, timeouts, truncated bodies, size limits,
// rate limits and the private-address guard.
#include <gtest/gtest.h>

#include <chrono>

#include "bioagent/http.h"
#include "replay_server.h"

using namespace bioagent;
using bioagent::testing::ReplayServer;
using bioagent::testing::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

HttpOptions loopback_options() {
  HttpOptions o;
  o.allow_private_addresses = true;  // the replay server is on loopback
  o.backoff_base = std::chrono::milliseconds(20);
  o.user_agent = "bioagent-test";
  return o;
}

const char* kRoutes = R"([
  {"path": "/ok", "status": 200, "headers": {"Content-Type": "application/json"}, "body": "{\"hello\": \"world\"}"},
  {"path": "/flaky", "sequence": [{"status": 500, "body": "oops"}, {"status": 429, "headers": {"Retry-After": "1"}, "body": "slow down"},
                                  {"status": 200, "body": "finally"}]},
  {"path": "/always500", "status": 503, "body": "down"},
  {"path": "/slow", "delay_ms": 1500, "status": 200, "body": "late"},
  {"path": "/truncated", "truncate": true, "status": 200, "body": "0123456789012345678901234567890123456789"},
  {"path": "/big", "status": 200, "body": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
  {"path": "/redirect", "status": 302, "headers": {"Location": "http://169.254.169.254/latest/meta-data/"}, "body": ""},
  {"path": "/notfound", "status": 404, "body": "nope"},
  {"path": "/post", "query_contains": ["term=spl"], "status": 200, "body": "posted"}
])";

std::unique_ptr<HttpClient> make_client(HttpOptions o) {
  auto r = HttpClient::create(std::move(o));
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return std::move(r).value();
}

}  // namespace

TEST(Http, PrivateAddressClassification) {
  for (const char* ip : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                         "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fc00::1", "fd12::1", "fe80::1",
                         "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not an ip"})
    EXPECT_TRUE(is_private_address(ip)) << ip;
  for (const char* ip : {"8.8.8.8", "130.14.29.110", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"})
    EXPECT_FALSE(is_private_address(ip)) << ip;
  EXPECT_EQ(retry_after_seconds("7"), 7);
  EXPECT_EQ(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT"), 0) << "a date in the past";
  EXPECT_EQ(retry_after_seconds("soon"), -1);
}

TEST(Http, LoopbackIsRefusedUnlessAllowed) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  HttpOptions strict;  // the default: private addresses refused
  auto client = make_client(strict);
  auto r = client->fetch({.url = server.url("/ok"), .source = "test"});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("127.0.0.1"), std::string::npos) << r.status().message();
  EXPECT_EQ(client->fetch({.url = "http://169.254.169.254/latest/meta-data/"}).status().code(),
            ErrorCode::kPermissionDenied);
  EXPECT_EQ(client->fetch({.url = "file:///etc/passwd"}).status().code(), ErrorCode::kUnavailable) << "only http(s)";
}

TEST(Http, RedirectToMetadataIsRefused) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  // Loopback allowed for the first hop only: the guard still refuses the
  // link-local metadata address the redirect points to.
  HttpOptions o = loopback_options();
  o.allow_private_addresses = false;
  auto client = make_client(o);
  auto first = client->fetch({.url = server.url("/redirect")});
  EXPECT_EQ(first.status().code(), ErrorCode::kPermissionDenied);
}

TEST(Http, CacheAndOfflineMode) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  TempDir dir;
  HttpOptions o = loopback_options();
  o.cache_path = (dir.path() / "cache.sqlite").string();
  {
    auto client = make_client(o);
    auto r = client->fetch({.url = server.url("/ok"), .source = "test"});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "{\"hello\": \"world\"}");
    EXPECT_FALSE(r->from_cache);
    EXPECT_EQ(r->headers["content-type"], "application/json");
    auto again = client->fetch({.url = server.url("/ok"), .source = "test"});
    EXPECT_TRUE(again->from_cache);
    auto missing = client->fetch({.url = server.url("/notfound")});
    EXPECT_EQ(missing->status, 404);
    EXPECT_FALSE(client->fetch({.url = server.url("/notfound")})->from_cache) << "errors are never cached";
  }
  o.offline = true;
  auto offline = make_client(o);
  auto warm = offline->fetch({.url = server.url("/ok"), .source = "test"});
  ASSERT_TRUE(warm.is_ok());
  EXPECT_TRUE(warm->from_cache);
  auto cold = offline->fetch({.url = server.url("/never-fetched"), .source = "test"});
  EXPECT_EQ(cold.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(cold.status().message().find("offline"), std::string::npos);
}

TEST(Http, RetriesHonourRetryAfter) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  auto client = make_client(loopback_options());
  auto t0 = Clock::now();
  auto r = client->fetch({.url = server.url("/flaky")});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "finally");
  EXPECT_EQ(r->attempts, 3);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(950)) << "waited the Retry-After second";
  auto down = client->fetch({.url = server.url("/always500")});
  ASSERT_TRUE(down.is_ok());
  EXPECT_EQ(down->status, 503) << "the last answer is returned after the retries";
  EXPECT_EQ(down->attempts, 4);
}

TEST(Http, TimeoutsTruncationAndSizeLimits) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  HttpOptions o = loopback_options();
  o.max_retries = 0;
  o.max_body_bytes = 50;
  auto client = make_client(o);
  auto slow = client->fetch({.url = server.url("/slow"), .timeout = std::chrono::milliseconds(300)});
  EXPECT_EQ(slow.status().code(), ErrorCode::kTimeout);
  auto cut = client->fetch({.url = server.url("/truncated")});
  EXPECT_FALSE(cut.is_ok()) << "a body shorter than announced is an error";
  auto big = client->fetch({.url = server.url("/big")});
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceExhausted);
  auto post = client->fetch({.method = "POST", .url = server.url("/post"), .body = "term=spl&db=pubmed"});
  ASSERT_TRUE(post.is_ok());
  EXPECT_EQ(post->body, "posted");
}

TEST(Http, RateLimitSpacesRequests) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  HttpOptions o = loopback_options();
  o.rate_per_second["ncbi"] = 10;  // 100 ms apart
  auto client = make_client(o);
  auto t0 = Clock::now();
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(client->fetch({.url = server.url("/ok"), .source = "ncbi", .use_cache = false}).is_ok());
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(290));
}

// The limit is the process's, per host: a new client per call (as the literature
// tools make) does not start a new allowance.
TEST(Http, RateLimitHoldsAcrossClients) {
  ReplayServer server(kRoutes);
  ASSERT_TRUE(server.ok());
  HttpOptions o = loopback_options();
  o.rate_per_second["pubmed"] = 10;  // 100 ms apart
  auto t0 = Clock::now();
  for (int i = 0; i < 4; ++i) {
    auto client = make_client(o);
    ASSERT_TRUE(client->fetch({.url = server.url("/ok"), .source = "pubmed", .use_cache = false}).is_ok());
  }
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(290));
}

TEST(Http, NcbiRateIsThreePerSecondOrTenWithAKey) {
  auto plain = http_options(std::map<std::string, std::string>{});
  EXPECT_EQ(plain.rate_per_second.at("pubmed"), 3.0);
  EXPECT_EQ(plain.rate_per_second.at("ncbi_datasets"), 3.0);
  auto keyed = http_options(std::map<std::string, std::string>{{"ncbi_api_key", "k"}});
  EXPECT_EQ(keyed.rate_per_second.at("pubmed"), 10.0);
}
