// The HTTP server's pieces without a socket: the request head parser's
// limits, the guard's single-copy and NUL rules (the MCP protocol version left to /mcp),
// path matching by segments, percent-decoding, and the streaming multipart
// reader fed in pieces of every size.
#include <gtest/gtest.h>

#include "server/http_transport.h"
#include "server/multipart.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

Request head(const std::string& raw) {
  Request r;
  Response refusal;
  EXPECT_TRUE(HttpTransport::parse_head(raw, 64 << 10, r, refusal)) << refusal.body;
  return r;
}

GuardConfig loopback_guard() {
  ApiServerOptions o;
  return GuardConfig::from(o);
}

TEST(HttpServer, HeadOverTheLimitIsRefusedWith431) {
  Request r;
  Response refusal;
  std::string raw = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 5000; ++i) raw += "X-Filler: abcdefgh\r\n";
  EXPECT_FALSE(HttpTransport::parse_head(raw + "\r\n", 64 << 10, r, refusal));
  EXPECT_EQ(refusal.status, 431);
  EXPECT_NE(refusal.body.find("\"status\":\"error\""), std::string::npos);
  EXPECT_FALSE(HttpTransport::parse_head("GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", 64 << 10, r, refusal));
  EXPECT_EQ(refusal.status, 400);
}

TEST(HttpServer, DecidingHeadersMayAppearOnce) {
  GuardConfig g = loopback_guard();
  auto two_hosts =
      guard_request(head("GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n"), g, 80);
  ASSERT_TRUE(two_hosts);
  EXPECT_EQ(two_hosts->http_status, 400);
  auto two_origins = guard_request(head("POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
                                        "Origin: http://evil.example\r\n\r\n"),
                                   g, 80);
  ASSERT_TRUE(two_origins);
  EXPECT_EQ(two_origins->http_status, 400);
  EXPECT_FALSE(guard_request(head("GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n"), g, 80));
}

// The version decides which revision serves a request, so the MCP route judges it (a JSON-RPC
// -32022 for an unknown one, tests/unit/mcp_revisions_test.cpp); the guard lets it through.
TEST(HttpServer, TheMcpProtocolVersionIsTheMcpRoutesToJudge) {
  GuardConfig g = loopback_guard();
  for (const char* v : {"1999-01-01", "2025-06-18", "2026-07-28"})
    EXPECT_FALSE(guard_request(
        head(std::string("POST /mcp HTTP/1.1\r\nHost: localhost\r\nMCP-Protocol-Version: ") + v + "\r\n\r\n"), g, 80))
        << v;
  auto two =
      guard_request(head("POST /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Method: a\r\nMcp-Method: b\r\n\r\n"), g, 80);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->http_status, 400);
}

TEST(HttpServer, BodiesOfEveryMethodAreLimited) {
  ApiServerOptions o;
  o.max_body_bytes = 1000;
  GuardConfig g = GuardConfig::from(o);
  for (const char* method : {"DELETE", "GET", "PRI"}) {
    auto r = guard_request(
        head(std::string(method) + " /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n"), g,
        80);
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->http_status, 413) << method;
  }
}

TEST(HttpServer, PathsMatchBySegments) {
  RouteDoc status("GET", "/api/agent/status/{task_id}", "", nullptr);
  std::vector<std::string> m;
  ASSERT_TRUE(status.match("/api/agent/status/t_1", m));
  EXPECT_EQ(m[1], "t_1");
  EXPECT_FALSE(status.match("/api/agent/status/", m));
  EXPECT_FALSE(status.match("/api/agent/status/a/b", m));
  RouteDoc file("GET", "/api/agent/results/{task_id}/files/{name}", "", nullptr, true);
  ASSERT_TRUE(file.match("/api/agent/results/t/files/sub/x.svg", m));
  EXPECT_EQ(m[1], "t");
  EXPECT_EQ(m[2], "sub/x.svg");
  EXPECT_TRUE(RouteDoc("GET", "/api/x", "", nullptr).match("/api/x", m));
  EXPECT_FALSE(RouteDoc("GET", "/api/x", "", nullptr).match(std::string(100000, 'a'), m));
}

TEST(HttpServer, TargetIsSplitAndDecoded) {
  Request r = head("GET /a%2Fb%zz?x=1+2&y=%41&z HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(r.path, "/a/b%zz");
  EXPECT_EQ(r.get_param_value("x"), "1 2");
  EXPECT_EQ(r.get_param_value("y"), "A");
  EXPECT_TRUE(r.has_param("z"));
}

struct Collected {
  std::vector<MultipartReader::Part> parts;
  std::vector<std::string> contents;
};

bool read_in_pieces(const std::string& body, size_t piece, Collected& out, std::string* error = nullptr) {
  MultipartReader reader(
      "XyZ",
      [&](const MultipartReader::Part& p) {
        out.parts.push_back(p);
        out.contents.emplace_back();
        return true;
      },
      [&](const char* d, size_t n) {
        out.contents.back().append(d, n);
        return true;
      });
  for (size_t at = 0; at < body.size(); at += piece)
    if (!reader.feed(body.data() + at, std::min(piece, body.size() - at))) {
      if (error) *error = reader.error();
      return false;
    }
  return reader.finished();
}

TEST(HttpServer, MultipartInPiecesOfEverySize) {
  std::string body =
      "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"session_id\"\r\n\r\ns_1\r\n"
      "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a;b.fasta\"\r\nContent-Type: x\r\n\r\n"
      ">a\r\n--XyACGT\r\n\r\n--XyZ--\r\nepilogue";
  for (size_t piece = 1; piece <= body.size(); ++piece) {
    Collected c;
    ASSERT_TRUE(read_in_pieces(body, piece, c)) << piece;
    ASSERT_EQ(c.parts.size(), 2u);
    EXPECT_EQ(c.parts[0].name, "session_id");
    EXPECT_EQ(c.contents[0], "s_1");
    EXPECT_EQ(c.parts[1].filename, "a;b.fasta");
    EXPECT_EQ(c.contents[1], ">a\r\n--XyACGT\r\n");
  }
}

TEST(HttpServer, MultipartWithAnUnclosedQuoteIsRefused) {
  std::string body =
      "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Lchi.gff3\r\nX-Injected: 1\"\r\n\r\n"
      "x\r\n--XyZ--\r\n";
  Collected c;
  std::string error;
  EXPECT_FALSE(read_in_pieces(body, 5, c, &error));
  EXPECT_TRUE(c.parts.empty());
  EXPECT_NE(error.find("Content-Disposition"), std::string::npos) << error;
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=\"a b\""), "a b");
  EXPECT_EQ(multipart_boundary("text/plain; boundary=x"), "");
}

}  // namespace
}  // namespace bioagent::server
