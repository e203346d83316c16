// Status and Result<T>: how every expected failure travels (missing input, bad
// argument, tool exit code, parse error). Exceptions are reserved for true aborts.
// A Status carries a code, a human message and structured details (JSON object)
// that the diagnosis agent and API clients can match on. Value types; thread-compatible.
#pragma once

#include <cassert>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bioagent {

// The JSON value type of the whole product. Ordered, so objects print in the
// order they were built (a tool's output reads as its contract lists it).
using Json = nlohmann::ordered_json;

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,    // caller's input is wrong (schema violation, bad expression)
  kNotFound,           // file, tool, dataset, identifier does not exist
  kPermissionDenied,   // outside the workspace sandbox, refused by policy
  kParseError,         // input exists but is malformed (corrupt JSON, bad notebook)
  kUnsupported,        // understood but not supported (nbformat 3, regex feature)
  kResourceExhausted,  // limits: size, depth, overflow, zip bomb
  kToolFailed,         // an external program failed (exit code, stderr tail)
  kTimeout,
  kCancelled,
  kUnavailable,  // offline, service down
  kInternal,
};

// Stable lower-case name used in JSON error bodies ("invalid_argument", ...).
std::string_view error_code_name(ErrorCode code);

// `text` as valid UTF-8: each byte that starts no valid sequence (a stray
// Latin-1 byte, a cut character, an overlong form, a surrogate) becomes U+FFFD.
// The one function outside text (file content, ids, PDF text, messages quoting
// them) goes through before it enters a JSON value; Status applies it to its
// message and string details.
std::string valid_utf8(std::string_view text);
// The first byte of `text` that starts no valid UTF-8 sequence, or npos (valid text is not copied).
size_t invalid_utf8_at(std::string_view text);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string message);

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Structured detail; an empty object when none was attached.
  const Json& details() const;
  // Attach one detail (key → JSON value). Returns *this for chaining.
  Status& with(const std::string& key, const Json& value);

  // {"code": "...", "message": "...", "details": {...}}
  Json to_json() const;
  // The Status to_json() described (an unknown code is internal).
  static Status from_json(const Json& j);
  std::string to_string() const;  // "invalid_argument: message"

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::shared_ptr<Json> details_;  // copy-on-write via with()
};

// Convenience constructors.
Status invalid_argument(std::string message);
Status not_found(std::string message);
Status permission_denied(std::string message);
Status parse_error(std::string message);
Status unsupported(std::string message);
Status resource_exhausted(std::string message);
Status internal_error(std::string message);

// Result<T>: either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.is_ok() && "Result built from an OK status without a value");
  }

  bool is_ok() const { return value_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace bioagent

// Propagate a non-OK Status from an expression returning Status.
#define BIOAGENT_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::bioagent::Status _st = (expr);   \
    if (!_st.is_ok()) return _st;      \
  } while (0)
