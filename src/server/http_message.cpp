// Requests and responses as the routes see them: header lookup by
// case-insensitive name, the target split into a decoded path and query.
#include "server/http_message.h"

namespace bioagent::server {
namespace {

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower_ascii(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

}  // namespace

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += char(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += plus_is_space && s[i] == '+' ? ' ' : s[i];
  }
  return out;
}

size_t Request::header_count(std::string_view name) const {
  size_t n = 0;
  for (auto& [k, v] : headers) n += same_name(k, name) ? 1 : 0;
  return n;
}

std::string Request::get_header_value(std::string_view name) const {
  for (auto& [k, v] : headers)
    if (same_name(k, name)) return v;
  return "";
}

std::string Request::get_param_value(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

void Request::split_target() {
  size_t q = target.find('?');
  path = percent_decode(std::string_view(target).substr(0, q), false);
  params.clear();
  if (q == std::string::npos) return;
  std::string_view query = std::string_view(target).substr(q + 1);
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (!pair.empty())
      params.emplace(percent_decode(pair.substr(0, eq), true),
                     eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1), true));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

void Response::set_header(const std::string& name, const std::string& value) {
  for (auto& [k, v] : headers)
    if (same_name(k, name)) {
      v = value;
      return;
    }
  headers.emplace_back(name, value);
}

bool Response::has_header(std::string_view name) const {
  for (auto& [k, v] : headers)
    if (same_name(k, name)) return true;
  return false;
}

}  // namespace bioagent::server
