// Inside src/server: one HTTP request as the routes see it (method, decoded
// path, headers, query parameters, body, the path's captured segments) and
// the response they fill in (a whole body, or a chunked stream of pieces made
// by a provider on a worker thread, as Server-Sent Events are). No network
// library appears here; http_transport.cpp turns bytes into these and back.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bioagent::server {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive ASCII comparison of header names.
bool same_name(std::string_view a, std::string_view b);
// %XX decoded (invalid sequences kept as they are); `plus_is_space` for query parts.
std::string percent_decode(std::string_view s, bool plus_is_space);

struct Request {
  std::string method;                              // as sent ("GET", "POST", "PRI", ...)
  std::string target;                              // the request target as sent ("/api/x?y=1")
  std::string path;                                // the target's path, percent-decoded
  int version = 11;                                // 10 for HTTP/1.0, 11 for HTTP/1.1
  HeaderList headers;                              // in arrival order; a name may repeat
  std::multimap<std::string, std::string> params;  // the query, decoded
  std::string body;                                // whole-body routes only
  std::vector<std::string> matches;                // [0] the path, then each {name} of the route
  std::string peer;                                // the client's address ("127.0.0.1"); "" when unknown

  bool has_header(std::string_view name) const { return header_count(name) > 0; }
  size_t header_count(std::string_view name) const;
  // The first value of `name`, or "".
  std::string get_header_value(std::string_view name) const;
  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  std::string get_param_value(const std::string& name) const;
  // Fills path and params from target.
  void split_target();
};

// What a streaming response's provider writes into; write() keeps the bytes
// for the transport, done() ends the stream after them.
struct DataSink {
  std::function<bool(const char*, size_t)> write;
  std::function<void()> done;
};
// Called repeatedly on a worker thread until it calls sink.done() or returns
// false (the connection is then closed); may block (a bounded wait).
using ContentProvider = std::function<bool(size_t offset, DataSink& sink)>;
// Called once when the stream ends; `ok` is false when the client went away.
using ProviderDone = std::function<void(bool ok)>;
// A streamed request body: calls `consume` with each received piece (on the
// handler's thread) until the body ends (true) or consume or the connection
// fails (false).
using BodyReader = std::function<bool(const std::function<bool(const char*, size_t)>& consume)>;

struct Response {
  int status = 200;
  HeaderList headers;
  std::string body, content_type;
  ContentProvider provider;  // set: the body is streamed in chunks
  ProviderDone provider_done;
  bool close = false;  // close the connection after this response

  void set_header(const std::string& name, const std::string& value);
  bool has_header(std::string_view name) const;
  void set_content(std::string content, std::string type) {
    body = std::move(content);
    content_type = std::move(type);
  }
  void set_chunked_content_provider(std::string type, ContentProvider p, ProviderDone d) {
    content_type = std::move(type);
    provider = std::move(p);
    provider_done = std::move(d);
  }
};

}  // namespace bioagent::server
