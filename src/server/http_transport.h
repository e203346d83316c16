// Inside src/server: the HTTP/1.1 transport (Boost.Beast over Asio, kept in
// http_transport.cpp). One event-driven thread reads and writes every
// connection, so idle and slow clients cost a socket and a few KiB each;
// request handlers run on a bounded worker pool. Every request line and
// header block has an absolute deadline and a size limit, every body a size
// limit (decided per route before it is read) and a deadline.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "bioagent/status.h"
#include "server/http_message.h"

namespace bioagent::server {

struct TransportLimits {
  size_t header_bytes = 64 << 10;                // request line + all headers
  std::chrono::seconds header_timeout{10};       // to receive them, from the connection's idle start
  std::chrono::seconds read_timeout{30};         // silence allowed while a body is read
  size_t body_min_bytes_per_second = 256 << 10;  // a body's absolute deadline: read_timeout + size / this
  std::chrono::seconds write_timeout{30};        // to send one response or stream piece
  size_t max_connections = 4096;                 // beyond: 503 and close
  int workers = 64;                              // handlers running at once
};

// A streamed request body (uploads): pieces as they arrive, then the end.
class BodyConsumer {
 public:
  virtual ~BodyConsumer() = default;
  virtual bool consume(const char* data, size_t n) = 0;  // false: stop reading (a refusal is set)
  // `complete`: the whole body arrived and consume never refused; fills the response.
  virtual void finish(bool complete, Response& res) = 0;
};

// What the application decides from a request's head, before any body byte is read.
struct RequestPlan {
  bool refused = false;
  Response refusal;                                 // when refused
  size_t body_limit = 0;                            // bytes of body accepted
  bool run_inline = false;                          // cheap and non-blocking: runs on the I/O thread
  std::function<void(Request&, Response&)> handle;  // whole body in req.body
  // Streamed body instead: returns the consumer, or null with `res` filled (refused).
  std::function<std::unique_ptr<BodyConsumer>(Request&, Response&)> begin_stream;
};
using Planner = std::function<RequestPlan(Request&)>;

class HttpTransport {
 public:
  HttpTransport(TransportLimits limits, Planner planner);
  ~HttpTransport();
  Status bind(const std::string& host, int port);  // port 0: any free port
  int port() const;
  Status run();  // serves until stop()
  void stop();   // from any thread (not from a signal handler)
  bool stopping() const;
  // Applied to every whole response body and each streamed piece before it is
  // sent, with the response's content type (set before run()).
  void set_body_filter(std::function<void(const std::string& content_type, std::string& body)> filter);

  // Parses one request head from `bytes` as a connection would: true with
  // `out` filled, or false with `refusal` (400/431 and a JSON body).
  static bool parse_head(std::string_view bytes, size_t header_limit, Request& out, Response& refusal);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent::server
