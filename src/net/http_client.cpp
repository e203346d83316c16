#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "bioagent/http.h"
#include "bioagent/version.h"
#include "net/http_cache.h"

namespace bioagent {

bool is_private_address(const std::string& ip) {
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) {
    uint32_t a = ntohl(v4.s_addr);
    auto in = [a](uint32_t net, int bits) { return (a >> (32 - bits)) == (net >> (32 - bits)); };
    return in(0x00000000, 8) ||   // 0.0.0.0/8 "this network"
           in(0x0A000000, 8) ||   // 10/8
           in(0x64400000, 10) ||  // 100.64/10 carrier-grade NAT
           in(0x7F000000, 8) ||   // loopback
           in(0xA9FE0000, 16) ||  // link-local, incl. 169.254.169.254 cloud metadata
           in(0xAC100000, 12) ||  // 172.16/12
           in(0xC0000000, 24) ||  // 192.0.0/24 IETF protocol assignments
           in(0xC0A80000, 16) ||  // 192.168/16
           in(0xC6120000, 15) ||  // 198.18/15 benchmarking
           a >= 0xE0000000;       // multicast and reserved
  }
  if (inet_pton(AF_INET6, ip.c_str(), &v6) == 1) {
    const uint8_t* b = v6.s6_addr;
    static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(b, kMapped, 12) == 0) {  // ::ffff:a.b.c.d
      char buf[INET_ADDRSTRLEN];
      inet_ntop(AF_INET, b + 12, buf, sizeof buf);
      return is_private_address(buf);
    }
    bool zero_prefix = std::all_of(b, b + 15, [](uint8_t x) { return x == 0; });
    if (zero_prefix && (b[15] == 0 || b[15] == 1)) return true;  // :: and ::1
    if ((b[0] & 0xFE) == 0xFC) return true;                      // fc00::/7 unique local
    if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return true;      // fe80::/10 link-local
    if (b[0] == 0xFF) return true;                               // multicast
    return false;
  }
  return true;  // not an address we understand: refuse
}

long retry_after_seconds(const std::string& value) {
  if (value.empty()) return -1;
  if (std::all_of(value.begin(), value.end(), ::isdigit)) return std::stol(value.substr(0, 9));
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
    time_t at = timegm(&tm);
    return std::max<long>(0, static_cast<long>(at - std::time(nullptr)));
  }
  return -1;
}

namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

struct Transfer {
  HttpResponse* response;
  size_t limit;
  bool too_large = false;
  bool allow_private;
  std::string refused_ip;
  const std::function<void(std::string_view)>* on_chunk = nullptr;
  CURL* handle = nullptr;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t bytes = size * n;
  if (t->response->body.size() + bytes > t->limit) {
    t->too_large = true;
    return 0;  // abort the transfer
  }
  t->response->body.append(data, bytes);
  if (t->on_chunk && *t->on_chunk) {  // streaming: hand on successful answers' bytes as they come
    long status = 0;
    curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) (*t->on_chunk)(std::string_view(data, bytes));
  }
  return bytes;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
    t->response->headers[name] = value;
  }
  return size * n;
}

// Every connection goes through here with the address curl is about to use:
// after DNS and on every redirect. Private addresses are refused here.
curl_socket_t on_open_socket(void* user, curlsocktype, curl_sockaddr* addr) {
  auto* t = static_cast<Transfer*>(user);
  char ip[INET6_ADDRSTRLEN] = {0};
  if (addr->family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr->addr)->sin_addr, ip, sizeof ip);
  else if (addr->family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr->addr)->sin6_addr, ip, sizeof ip);
  if (!t->allow_private && is_private_address(ip)) {
    t->refused_ip = ip;
    return CURL_SOCKET_BAD;
  }
  return socket(addr->family, addr->socktype, addr->protocol);
}

std::string host_of(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of(":/?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// host[:port] of a URL: the unit a rate limit holds for.
std::string authority_of(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The next free request slot per host and source, shared by every HttpClient of the
// process: NCBI's 3 (10 with a key) requests per second hold for the process,
// however many clients the tools make.
struct ProcessRateSlots {
  std::mutex mu;
  std::map<std::string, std::chrono::steady_clock::time_point> next_slot;
};

ProcessRateSlots& process_rate_slots() {
  static ProcessRateSlots* slots = new ProcessRateSlots();  // never destroyed: used until exit
  return *slots;
}

}  // namespace

struct HttpClient::Impl {
  HttpOptions options;
  // Connections, DNS answers and TLS sessions are shared by all transfers of
  // this client, so repeated requests to one API reuse a connection.
  CURLSH* share = nullptr;
  std::mutex share_mu[CURL_LOCK_DATA_LAST];
  std::unique_ptr<HttpCache> cache;
  std::mutex rng_mu;
  std::mt19937 rng{std::random_device{}()};

  // Waits for the host's next slot under the source's rate limit (process-wide).
  void throttle(const std::string& key, const std::string& url) {
    auto it = options.rate_per_second.find(key);
    if (it == options.rate_per_second.end() || it->second <= 0) return;
    auto interval = std::chrono::microseconds(static_cast<int64_t>(1e6 / it->second));
    std::chrono::steady_clock::time_point at;
    {
      ProcessRateSlots& slots = process_rate_slots();
      std::lock_guard<std::mutex> lock(slots.mu);
      auto now = std::chrono::steady_clock::now();
      auto& slot = slots.next_slot[authority_of(url) + " " + key];  // one host, one source's rule
      at = std::max(slot, now);
      slot = at + interval;
    }
    std::this_thread::sleep_until(at);
  }

  std::chrono::milliseconds backoff(int attempt) {
    std::lock_guard<std::mutex> lock(rng_mu);
    double base = static_cast<double>(options.backoff_base.count()) * (1 << std::min(attempt, 10));
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    return std::chrono::milliseconds(static_cast<int64_t>(base * jitter(rng)));
  }

  Status transfer_error(const HttpRequest& req, ErrorCode code, const std::string& what) {
    Status s(code, (req.source.empty() ? "" : req.source + ": ") + what + " (" + req.url + ")");
    s.with("url", req.url).with("source", req.source);
    return s;
  }

  // One attempt, no retries.
  Result<HttpResponse> once(const HttpRequest& req) {
    CURL* h = curl_easy_init();
    if (!h) return transfer_error(req, ErrorCode::kInternal, "cannot start a transfer");
    HttpResponse resp;
    Transfer t{&resp, options.max_body_bytes, false, options.allow_private_addresses, {}, &req.on_chunk, h};
    std::string ua =
        options.user_agent + (options.contact_email.empty() ? "" : " (mailto:" + options.contact_email + ")");
    curl_slist* headers = nullptr;
    for (auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, static_cast<long>(options.max_redirects));
    curl_easy_setopt(h, CURLOPT_USERAGENT, ua.c_str());
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip, deflate, br as libcurl supports
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<int64_t>(req.timeout.count(), 10000)));
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &t);
    if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (share) curl_easy_setopt(h, CURLOPT_SHARE, share);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    if (req.method == "POST") {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.c_str());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(req.body.size()));
    } else if (req.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }
    CURLcode rc = curl_easy_perform(h);
    char* eff = nullptr;
    curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
    if (eff) resp.url = eff;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &resp.new_connections);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    if (!t.refused_ip.empty())
      return transfer_error(
          req, ErrorCode::kPermissionDenied,
          "refused to connect to " + t.refused_ip + " (a loopback, private, link-local or metadata address)");
    if (t.too_large)
      return transfer_error(req, ErrorCode::kResourceExhausted,
                            "the answer is larger than " + std::to_string(options.max_body_bytes) + " bytes");
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return transfer_error(req, ErrorCode::kTimeout,
                            "no complete answer within " + std::to_string(req.timeout.count()) + " ms");
    if (rc != CURLE_OK) return transfer_error(req, ErrorCode::kUnavailable, curl_easy_strerror(rc));
    return resp;
  }
};

namespace {

void share_lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<std::mutex*>(user)[data].lock();
}
void share_unlock(CURL*, curl_lock_data data, void* user) { static_cast<std::mutex*>(user)[data].unlock(); }

}  // namespace

HttpClient::HttpClient() : impl_(std::make_unique<Impl>()) {
  static CurlGlobal global;
  impl_->share = curl_share_init();
  if (impl_->share) {
    curl_share_setopt(impl_->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(impl_->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(impl_->share, CURLSHOPT_USERDATA, impl_->share_mu);
    curl_share_setopt(impl_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(impl_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(impl_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
}

HttpClient::~HttpClient() {
  if (impl_->share) curl_share_cleanup(impl_->share);
}

Result<std::unique_ptr<HttpClient>> HttpClient::create(HttpOptions options) {
  auto c = std::unique_ptr<HttpClient>(new HttpClient());
  c->impl_->options = std::move(options);
  if (!c->impl_->options.cache_path.empty()) {
    auto cache = HttpCache::open(c->impl_->options.cache_path);
    if (!cache) return cache.status();
    c->impl_->cache = std::move(*cache);
  }
  return c;
}

const HttpOptions& HttpClient::options() const { return impl_->options; }

Result<HttpResponse> HttpClient::fetch(const HttpRequest& req) {
  Impl& m = *impl_;
  const std::string key = HttpCache::key(req);
  if (m.cache && req.use_cache) {
    if (auto hit = m.cache->get(key, m.options.offline)) return *hit;
  }
  if (m.options.offline)
    return m.transfer_error(req, ErrorCode::kUnavailable,
                            "offline: no cached answer for this request (run once online to fill the cache)");
  const std::string limiter = req.source.empty() ? host_of(req.url) : req.source;
  Result<HttpResponse> last = m.transfer_error(req, ErrorCode::kInternal, "no attempt made");
  for (int attempt = 0; attempt <= m.options.max_retries; ++attempt) {
    m.throttle(limiter, req.url);
    HttpRequest one = req;
    if (req.deadline) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*req.deadline - std::chrono::steady_clock::now());
      if (left <= std::chrono::milliseconds(0))
        return attempt == 0 ? m.transfer_error(req, ErrorCode::kTimeout, "the time allowed ran out before the request")
                            : last;
      one.timeout = std::min(one.timeout, left);
    }
    last = m.once(one);
    if (last.is_ok()) last->attempts = attempt + 1;
    bool transient = !last.is_ok() &&
                     (last.status().code() == ErrorCode::kUnavailable || last.status().code() == ErrorCode::kTimeout);
    bool retry_status = last.is_ok() && (last->status == 429 || last->status >= 500);
    if (!transient && !retry_status) break;
    if (attempt == m.options.max_retries) break;
    auto wait = m.backoff(attempt);
    if (last.is_ok()) {
      auto it = last->headers.find("retry-after");
      long s = it == last->headers.end() ? -1 : retry_after_seconds(it->second);
      if (s >= 0) wait = std::chrono::milliseconds(s * 1000);
    }
    if (wait > m.options.max_retry_wait) break;  // the server asks for more than we wait: report it
    if (req.deadline && std::chrono::steady_clock::now() + wait >= *req.deadline) break;
    std::this_thread::sleep_for(wait);
  }
  if (last.is_ok() && m.cache && req.use_cache && last->status >= 200 && last->status < 300) {
    auto ttl = m.options.default_ttl;
    auto it = m.options.cache_ttl.find(req.source);
    if (it != m.options.cache_ttl.end()) ttl = it->second;
    m.cache->put(key, *last, ttl);
  }
  return last;
}

HttpOptions http_options(const std::function<std::string(const std::string&)>& option) {
  HttpOptions o;
  o.user_agent = std::string("bioagent/") + kVersion + " (research assistant)";
  o.contact_email = option("contact_email");
  o.offline = option("offline") == "1";
  o.allow_private_addresses = option("allow_private_urls") == "1";
  if (std::string dir = option("cache_dir"); !dir.empty()) o.cache_path = dir + "/http_cache.sqlite";
  const bool ncbi_key = !option("ncbi_api_key").empty();
  const double ncbi_rate = ncbi_key ? 10.0 : 3.0;  // NCBI's E-utilities and Datasets rule, per process
  o.rate_per_second = {{"pubmed", ncbi_rate}, {"ncbi_datasets", ncbi_rate}, {"arxiv", 1.0}, {"semantic_scholar", 1.0}};
  o.cache_ttl = {{"pubmed", std::chrono::hours(24 * 7)},           {"europepmc", std::chrono::hours(24 * 7)},
                 {"clinicaltrials", std::chrono::hours(24)},       {"arxiv", std::chrono::hours(24 * 7)},
                 {"semantic_scholar", std::chrono::hours(24 * 7)}, {"fetch", std::chrono::hours(24 * 30)},
                 {"ncbi_datasets", std::chrono::hours(24 * 30)},   {"interpro", std::chrono::hours(24 * 90)},
                 {"string", std::chrono::hours(24 * 30)}};
  return o;
}

HttpOptions http_options(const std::map<std::string, std::string>& settings) {
  return http_options([&](const std::string& k) {
    auto it = settings.find(k);
    return it == settings.end() ? std::string() : it->second;
  });
}

}  // namespace bioagent
