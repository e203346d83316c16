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

Status::Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

const Json& Status::details() const {
  static const Json kEmpty = Json::object();
  return details_ ? *details_ : kEmpty;
}

Status& Status::with(const std::string& key, const Json& value) {
  auto next = std::make_shared<Json>(details_ ? *details_ : Json::object());
  (*next)[key] = value;
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
