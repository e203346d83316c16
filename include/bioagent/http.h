// The one HTTP client of the product (libcurl): connection reuse, gzip,
// proxies from the environment, a real User-Agent with a contact address,
// per-request timeouts, retries with exponential backoff and jitter that honour
// Retry-After, per-host rate limits, a persistent SQLite response cache with a
// TTL per source (errors are never cached), an offline mode that serves only
// from the cache, and a guard that refuses loopback, private, link-local and
// metadata addresses (checked on every connection, so redirects and DNS
// answers cannot lead around it). Thread-safe: fetch() may run concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{30000};
  std::string source;  // names the TTL and the rate limit ("pubmed", "arxiv", ...)
  bool use_cache = true;
  // Streaming: called with each piece of a 2xx answer's body as it arrives
  // (the whole body is still returned). Use with use_cache = false.
  std::function<void(std::string_view)> on_chunk;
  // No retry starts after this point, and no attempt outlives it.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string url;                             // after redirects
  bool from_cache = false;
  int attempts = 0;
  long new_connections = 0;  // 0 when an open connection was reused
};

struct HttpOptions {
  std::string user_agent = "bioagent";
  std::string contact_email;             // appended to the User-Agent (NCBI asks for one)
  bool offline = false;                  // serve only from the cache
  bool allow_private_addresses = false;  // tests on loopback set this
  int max_retries = 3;
  std::chrono::milliseconds backoff_base{500};
  std::chrono::milliseconds max_retry_wait{30000};
  size_t max_body_bytes = 64u << 20;
  int max_redirects = 5;
  std::string cache_path;                                 // empty: no persistent cache
  std::map<std::string, double> rate_per_second;          // per source
  std::map<std::string, std::chrono::seconds> cache_ttl;  // per source; default below
  std::chrono::seconds default_ttl{24 * 3600};
};

// The product's HTTP options, built in this one place for every caller: the
// User-Agent ("bioagent/<version> (research assistant)", with the contact
// address when one is set), the per-source rate limits and cache lifetimes,
// and the settings every entry point shares, read through `option`:
// offline ("1"), allow_private_urls ("1"), cache_dir (the persistent cache
// goes there), contact_email, ncbi_api_key. A caller changes only what is its
// own (a body limit, retries).
HttpOptions http_options(const std::function<std::string(const std::string&)>& option);
// The same from a map of those settings (absent keys: the defaults).
HttpOptions http_options(const std::map<std::string, std::string>& settings);

class HttpClient {
 public:
  static Result<std::unique_ptr<HttpClient>> create(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Any HTTP status is a response; transport failures, refused addresses,
  // offline misses and too-large bodies are errors (kUnavailable, kTimeout,
  // kPermissionDenied, kResourceExhausted) whose details carry url and source.
  Result<HttpResponse> fetch(const HttpRequest& request);
  const HttpOptions& options() const;

 private:
  HttpClient();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True for addresses a fetch must not reach unless allowed: loopback,
// RFC 1918 private, link-local (incl. 169.254.169.254 metadata), CGNAT,
// unspecified, multicast, IPv6 ULA/link-local and IPv4-mapped forms of these.
bool is_private_address(const std::string& ip);

// Seconds to wait from a Retry-After value (delta-seconds or an HTTP date); -1 if unparsable.
long retry_after_seconds(const std::string& value);

}  // namespace bioagent
