#include "bioagent/status.h"

#include <nlohmann/json.hpp>

namespace bioagent {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kPermissionDenied:
      return "permission_denied";
    case ErrorCode::kParseError:
      return "parse_error";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kResourceExhausted:
      return "resource_exhausted";
    case ErrorCode::kToolFailed:
      return "tool_failed";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kCancelled:
      return "cancelled";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

size_t invalid_utf8_at(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > n) return i;
    for (size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return i;
    if ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] > 0x9F) || (c == 0xF0 && p[i + 1] < 0x90) ||
        (c == 0xF4 && p[i + 1] > 0x8F))
      return i;  // overlong, surrogate or beyond U+10FFFF
    i += len;
  }
  return std::string_view::npos;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len > 1) {  // no overlong forms, no surrogates, nothing beyond U+10FFFF
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
      ok = cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for one byte that starts no valid sequence
      ++i;
    }
  }
  return out;
}

Status::Status(ErrorCode code, std::string message) : code_(code), message_(valid_utf8(message)) {}

Status Status::from_json(const Json& j) {
  if (!j.is_object()) return Status(ErrorCode::kInternal, "an error without a description");
  const std::string name = j.contains("code") && j["code"].is_string() ? j["code"].get<std::string>() : "internal";
  ErrorCode code = ErrorCode::kInternal;
  for (int c = 0; c <= int(ErrorCode::kInternal); ++c)
    if (error_code_name(ErrorCode(c)) == name) code = ErrorCode(c);
  if (code == ErrorCode::kOk) code = ErrorCode::kInternal;
  Status s(code, j.contains("message") && j["message"].is_string() ? j["message"].get<std::string>() : "unknown error");
  if (j.contains("details") && j["details"].is_object())
    for (auto& [k, v] : j["details"].items()) s.with(k, v);
  return s;
}

const Json& Status::details() const {
  static const Json kEmpty = Json::object();
  return details_ ? *details_ : kEmpty;
}

Status& Status::with(const std::string& key, const Json& value) {
  auto next = std::make_shared<Json>(details_ ? *details_ : Json::object());
  (*next)[key] = value.is_string() ? Json(valid_utf8(value.get<std::string>())) : value;
  details_ = std::move(next);
  return *this;
}

Json Status::to_json() const {
  return {{"code", std::string(error_code_name(code_))}, {"message", message_}, {"details", details()}};
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

Status invalid_argument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
Status not_found(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
Status permission_denied(std::string m) { return {ErrorCode::kPermissionDenied, std::move(m)}; }
Status parse_error(std::string m) { return {ErrorCode::kParseError, std::move(m)}; }
Status unsupported(std::string m) { return {ErrorCode::kUnsupported, std::move(m)}; }
Status resource_exhausted(std::string m) { return {ErrorCode::kResourceExhausted, std::move(m)}; }
Status internal_error(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }

}  // namespace bioagent
