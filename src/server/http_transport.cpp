// The HTTP/1.1 transport on Boost.Beast and Asio C++20 coroutines: one I/O
// thread runs every connection's read/parse/write loop; handlers run on a
// bounded worker pool (asio::thread_pool). Deadlines are absolute
// (beast::tcp_stream::expires_at): request line and headers within
// header_timeout of the connection becoming idle, a body within
// read_timeout + size / min rate and never silent longer than read_timeout.
// Pipelined requests are answered in order from the connection's buffer.
#include "server/http_transport.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <cstdio>
#include <limits>
#include <thread>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using Clock = std::chrono::steady_clock;
constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
constexpr size_t kChunk = 64 << 10;  // body bytes read per step
using Parser = http::request_parser<http::buffer_body>;

Request to_request(const Parser::value_type& m) {
  Request r;
  r.method = std::string(m.method_string());
  r.target = std::string(m.target());
  r.version = int(m.version());
  for (const auto& f : m) r.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  r.split_target();
  return r;
}

Response error_response(int status, ErrorCode code, const std::string& message) {
  Response res;
  reply_json(res, error_envelope(Status(code, message)), status);
  res.close = true;
  return res;
}

// The refusal for a request head the parser rejected.
Response parse_refusal(const beast::error_code& ec, size_t header_limit) {
  if (ec == http::error::header_limit)
    return error_response(431, ErrorCode::kResourceExhausted,
                          "refused: the request line and headers exceed " + std::to_string(header_limit) + " bytes");
  return error_response(400, ErrorCode::kInvalidArgument, "malformed request: " + ec.message());
}

// A request the parser refused (not a closed or silent connection).
bool is_parse_error(const beast::error_code& ec) {
  return ec.category() == make_error_code(http::error::bad_target).category() && ec != http::error::end_of_stream &&
         ec != http::error::partial_message;
}

std::string clean(std::string_view s) {  // no CR, LF or NUL in a header line
  std::string out;
  for (char c : s)
    if (c != '\r' && c != '\n' && c != '\0') out += c;
  return out;
}

std::string response_head(const Response& r, bool keep_alive, bool chunked, size_t length) {
  std::string h = "HTTP/1.1 " + std::to_string(r.status) + " " +
                  std::string(http::obsolete_reason(http::int_to_status(unsigned(r.status)))) + "\r\n";
  for (auto& [k, v] : r.headers)
    if (!same_name(k, "Connection") && !same_name(k, "Content-Length") && !same_name(k, "Transfer-Encoding"))
      h += clean(k) + ": " + clean(v) + "\r\n";
  if (!r.content_type.empty()) h += "Content-Type: " + clean(r.content_type) + "\r\n";
  h += chunked ? std::string("Transfer-Encoding: chunked\r\n") : "Content-Length: " + std::to_string(length) + "\r\n";
  h += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return h;
}

}  // namespace

struct HttpTransport::Impl {
  Impl(TransportLimits l, Planner p) : limits(l), planner(std::move(p)), workers(size_t(std::max(1, l.workers))) {}
  TransportLimits limits;
  Planner planner;
  std::function<void(const std::string&, std::string&)> body_filter;
  std::atomic<size_t> connections{0};
  std::atomic<bool> stopping{false};
  int port = 0;
  asio::thread_pool workers;
  // Destroyed first: its pending connections end before the members above go.
  asio::io_context io{1};
  tcp::acceptor acceptor{io};

  // Runs `f` on a worker thread; the coroutine resumes on the I/O thread after it.
  template <class F>
  awaitable<void> on_worker(F&& f) {
    co_await asio::co_spawn(
        workers,
        [&]() -> awaitable<void> {
          f();
          co_return;
        },
        asio::use_awaitable);
  }

  awaitable<bool> write(beast::tcp_stream& s, const std::string& bytes) {
    s.expires_after(limits.write_timeout);
    auto [ec, n] = co_await asio::async_write(s, asio::buffer(bytes), kAwait);
    co_return !ec;
  }

  awaitable<bool> write_response(beast::tcp_stream& s, Response& res, bool keep_alive);
  awaitable<bool> stream_response(beast::tcp_stream& s, Response& res, bool keep_alive);
  awaitable<bool> read_body(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p, Clock::time_point deadline,
                            const std::function<awaitable<bool>(const char*, size_t)>& consume, Response& refusal);
  awaitable<bool> serve_one(beast::tcp_stream& s, beast::flat_buffer& buf);
  RequestPlan plan_request(Request& req);
  awaitable<void> stream_body(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p, Clock::time_point deadline,
                              RequestPlan& plan, Request& req, Response& res, bool has_body);
  awaitable<bool> read_and_handle(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p, Clock::time_point deadline,
                                  RequestPlan& plan, Request& req, Response& res);
  awaitable<void> serve_connection(tcp::socket sock);
  awaitable<void> refuse_connection(tcp::socket sock);
  awaitable<void> accept_loop();
};

awaitable<bool> HttpTransport::Impl::write_response(beast::tcp_stream& s, Response& res, bool keep_alive) {
  if (res.provider) co_return co_await stream_response(s, res, keep_alive);
  if (body_filter) body_filter(res.content_type, res.body);
  std::string out = response_head(res, keep_alive, false, res.body.size());
  out += res.body;
  co_return co_await write(s, out);
}

// A chunked response: the provider fills each piece on a worker thread.
awaitable<bool> HttpTransport::Impl::stream_response(beast::tcp_stream& s, Response& res, bool keep_alive) {
  bool ok = co_await write(s, response_head(res, keep_alive, true, 0));
  bool done = false;
  size_t offset = 0;
  while (ok && !done && !stopping) {
    std::string piece;
    bool keep = true;
    DataSink sink{[&piece](const char* p, size_t n) {
                    piece.append(p, n);
                    return true;
                  },
                  [&done] { done = true; }};
    co_await on_worker([&] {
      try {
        keep = res.provider(offset, sink);
      } catch (...) {
        keep = false;
      }
    });
    const size_t produced = piece.size();  // the provider's offset counts its own bytes
    if (!piece.empty() && body_filter) body_filter(res.content_type, piece);
    if (!piece.empty()) {
      char size[20];
      std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
      ok = co_await write(s, size + piece + "\r\n");
      offset += produced;
    }
    ok = ok && keep;
  }
  if (ok && done) ok = co_await write(s, "0\r\n\r\n");
  bool finished = ok && done;
  if (res.provider_done) co_await on_worker([&] { res.provider_done(finished); });
  co_return finished;
}

// Reads the body in pieces into `consume`; false with `refusal` set when it must not continue.
awaitable<bool> HttpTransport::Impl::read_body(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p,
                                               Clock::time_point deadline,
                                               const std::function<awaitable<bool>(const char*, size_t)>& consume,
                                               Response& refusal) {
  std::vector<char> chunk(kChunk);
  while (!p.is_done()) {
    p.get().body().data = chunk.data();
    p.get().body().size = chunk.size();
    s.expires_at(std::min(Clock::now() + limits.read_timeout, deadline));
    auto [ec, n] = co_await http::async_read_some(s, buf, p, kAwait);
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
      if (ec == http::error::body_limit)
        refusal =
            error_response(413, ErrorCode::kResourceExhausted, "refused: the body is larger than this route accepts");
      else if (ec == beast::error::timeout)
        refusal = error_response(408, ErrorCode::kTimeout, "refused: the body did not arrive in time");
      else
        refusal = error_response(400, ErrorCode::kInvalidArgument, "malformed or cut request body: " + ec.message());
      co_return false;
    }
    size_t got = chunk.size() - p.get().body().size;
    if (got > 0 && !co_await consume(chunk.data(), got)) co_return false;
  }
  co_return true;
}

// The planner's plan for the request; a planner that throws refuses it with a 500.
RequestPlan HttpTransport::Impl::plan_request(Request& req) {
  RequestPlan plan;
  try {
    plan = planner(req);
  } catch (const std::exception& e) {
    plan.refused = true;
    plan.refusal = error_response(500, ErrorCode::kInternal, std::string("internal error: ") + e.what());
  }
  return plan;
}

// A streamed body: each piece to the route's consumer on a worker thread; the
// consumer writes the response (the transport's refusal when the body broke off).
awaitable<void> HttpTransport::Impl::stream_body(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p,
                                                 Clock::time_point deadline, RequestPlan& plan, Request& req,
                                                 Response& res, bool has_body) {
  std::unique_ptr<BodyConsumer> consumer;
  co_await on_worker([&] { consumer = plan.begin_stream(req, res); });
  if (!consumer) {
    res.close = res.close || has_body;
    co_return;
  }
  bool refused_piece = false;
  Response refusal;
  bool complete = co_await read_body(
      s, buf, p, deadline,
      [&](const char* d, size_t k) -> awaitable<bool> {
        bool more = true;
        co_await on_worker([&] { more = consumer->consume(d, k); });
        refused_piece = !more;
        co_return more;
      },
      refusal);
  co_await on_worker([&] { consumer->finish(complete, res); });
  if (!complete && !refused_piece) res = std::move(refusal);  // the transport's reason: size, framing
  res.close = res.close || !complete;
}

// The whole body into the request, then the route's handler (inline or on a
// worker); false when the body did not arrive (the connection is closed).
awaitable<bool> HttpTransport::Impl::read_and_handle(beast::tcp_stream& s, beast::flat_buffer& buf, Parser& p,
                                                     Clock::time_point deadline, RequestPlan& plan, Request& req,
                                                     Response& res) {
  Response refusal;
  bool complete = co_await read_body(
      s, buf, p, deadline,
      [&](const char* d, size_t k) -> awaitable<bool> {
        req.body.append(d, k);
        co_return true;
      },
      refusal);
  if (!complete) {
    if (refusal.status != 408) co_await write_response(s, refusal, false);
    co_return false;
  }
  auto run = [&] {
    try {
      plan.handle(req, res);
    } catch (const std::exception& e) {
      res = Response();
      reply_error(res, internal_error(std::string("internal error: ") + e.what()));
    } catch (...) {
      res = Response();
      reply_error(res, internal_error("internal error"));
    }
  };
  if (plan.run_inline)
    run();
  else
    co_await on_worker(run);
  co_return true;
}

// One request on the connection; false: close it.
awaitable<bool> HttpTransport::Impl::serve_one(beast::tcp_stream& s, beast::flat_buffer& buf) {
  Parser p;
  p.header_limit(std::uint32_t(limits.header_bytes));
  p.body_limit(std::numeric_limits<std::uint64_t>::max());  // the guard decides from the head; the route after
  s.expires_after(limits.header_timeout);
  auto [ec, n] = co_await http::async_read_header(s, buf, p, kAwait);
  if (ec) {
    if (is_parse_error(ec)) {
      Response r = parse_refusal(ec, limits.header_bytes);
      co_await write_response(s, r, false);
    }
    co_return false;
  }
  Request req = to_request(p.get());
  {
    beast::error_code peer_ec;
    auto peer = s.socket().remote_endpoint(peer_ec);
    if (!peer_ec) req.peer = peer.address().to_string();
  }
  bool has_body = p.chunked() || (p.content_length() && *p.content_length() > 0);
  RequestPlan plan = plan_request(req);
  Response res;
  if (plan.refused) {
    res = std::move(plan.refusal);
    res.close = res.close || has_body;  // the body is never read
  } else {
    p.body_limit(plan.body_limit);
    uint64_t declared = p.content_length().value_or(0);
    auto deadline = Clock::now() + limits.read_timeout +
                    std::chrono::seconds(declared / std::max<size_t>(1, limits.body_min_bytes_per_second));
    if (has_body && same_name(req.get_header_value("Expect"), "100-continue")) {
      if (!co_await write(s, "HTTP/1.1 100 Continue\r\n\r\n")) co_return false;
    }
    if (plan.begin_stream)
      co_await stream_body(s, buf, p, deadline, plan, req, res, has_body);
    else if (!co_await read_and_handle(s, buf, p, deadline, plan, req, res))
      co_return false;
  }
  bool keep_alive = p.get().keep_alive() && !res.close && !stopping && req.version == 11;
  bool ok = co_await write_response(s, res, keep_alive);
  co_return ok&& keep_alive;
}

awaitable<void> HttpTransport::Impl::serve_connection(tcp::socket sock) {
  struct Count {
    std::atomic<size_t>& n;
    ~Count() { n.fetch_sub(1); }
  } count{connections};
  beast::tcp_stream s(std::move(sock));
  beast::flat_buffer buf(limits.header_bytes + kChunk);  // a request head is parsed from here
  try {
    while (!stopping && co_await serve_one(s, buf)) {
    }
  } catch (const std::exception&) {
    // the connection is dropped; the server goes on
  }
  beast::error_code ec;
  s.socket().shutdown(tcp::socket::shutdown_send, ec);
  // A short drain so that a refusal is read before the close resets the connection.
  s.expires_after(std::chrono::seconds(1));
  std::vector<char> sink(16 << 10);
  for (int i = 0; i < 16; ++i) {
    auto [rec, n] = co_await s.async_read_some(asio::buffer(sink), kAwait);
    if (rec) break;
  }
  s.socket().close(ec);
}

awaitable<void> HttpTransport::Impl::refuse_connection(tcp::socket sock) {
  beast::tcp_stream s(std::move(sock));
  Response r = error_response(
      503, ErrorCode::kUnavailable,
      "refused: the server holds " + std::to_string(limits.max_connections) + " connections; retry later");
  r.set_header("Retry-After", "2");
  co_await write_response(s, r, false);
  beast::error_code ec;
  s.socket().shutdown(tcp::socket::shutdown_both, ec);
}

awaitable<void> HttpTransport::Impl::accept_loop() {
  while (!stopping) {
    auto [ec, sock] = co_await acceptor.async_accept(kAwait);
    if (ec) {
      if (stopping || ec == asio::error::operation_aborted) co_return;
      asio::steady_timer t(io, std::chrono::milliseconds(100));  // out of file descriptors: let some close
      co_await t.async_wait(kAwait);
      continue;
    }
    beast::error_code ignore;
    sock.set_option(tcp::no_delay(true), ignore);
    if (connections.load() >= limits.max_connections) {
      asio::co_spawn(io, refuse_connection(std::move(sock)), asio::detached);
      continue;
    }
    connections.fetch_add(1);
    asio::co_spawn(io, serve_connection(std::move(sock)), asio::detached);
  }
}

HttpTransport::HttpTransport(TransportLimits limits, Planner planner)
    : impl_(std::make_unique<Impl>(limits, std::move(planner))) {}

HttpTransport::~HttpTransport() {
  stop();
  impl_->workers.join();  // handlers may refer to requests held by the connections
}

Status HttpTransport::bind(const std::string& host, int port) {
  beast::error_code ec;
  tcp::resolver resolver(impl_->io);
  auto found =
      resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || found.empty()) return Status(ErrorCode::kUnavailable, "cannot resolve " + host + ": " + ec.message());
  tcp::endpoint ep = found.begin()->endpoint();
  auto& a = impl_->acceptor;
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  if (!ec) a.listen(1024, ec);  // bursts of hundreds of connections wait here, not in SYN retries
  if (ec)
    return Status(ErrorCode::kUnavailable,
                  "cannot listen on " + host + ":" + std::to_string(port) + " (" + ec.message() + ")");
  impl_->port = a.local_endpoint().port();
  return Status::ok();
}

int HttpTransport::port() const { return impl_->port; }

Status HttpTransport::run() {
  if (!impl_->acceptor.is_open()) return internal_error("the server is not bound");
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  impl_->io.run();
  return Status::ok();
}

void HttpTransport::stop() {
  if (impl_->stopping.exchange(true)) return;
  asio::post(impl_->io, [im = impl_.get()] {
    beast::error_code ec;
    im->acceptor.close(ec);
    im->io.stop();
  });
  impl_->workers.stop();
}

bool HttpTransport::stopping() const { return impl_->stopping; }

void HttpTransport::set_body_filter(std::function<void(const std::string&, std::string&)> filter) {
  impl_->body_filter = std::move(filter);
}

bool HttpTransport::parse_head(std::string_view bytes, size_t header_limit, Request& out, Response& refusal) {
  Parser p;
  p.header_limit(std::uint32_t(header_limit));
  p.body_limit(std::numeric_limits<std::uint64_t>::max());
  p.eager(false);
  beast::error_code ec;
  size_t used = 0;
  while (!ec && !p.is_header_done() && used < bytes.size()) {
    size_t n = p.put(asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (n == 0 && !ec) break;
    used += n;
  }
  if (!ec && !p.is_header_done()) ec = http::error::partial_message;
  if (ec) {
    refusal = parse_refusal(ec, header_limit);
    return false;
  }
  out = to_request(p.get());
  out.body = std::string(bytes.substr(used));
  return true;
}

}  // namespace bioagent::server
