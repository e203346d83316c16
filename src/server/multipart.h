// Inside src/server: a streaming multipart/form-data reader (RFC 7578). Bytes
// go in as they arrive, in pieces of any size; each part's head is announced,
// then its content in pieces, never held whole. Part heads are bounded.
#pragma once

#include <functional>
#include <string>

namespace bioagent::server {

// The boundary of a "multipart/form-data; boundary=..." Content-Type, or "".
std::string multipart_boundary(const std::string& content_type);

class MultipartReader {
 public:
  struct Part {
    std::string name, filename;
  };
  // begin: a new part (false stops); data: a piece of the current part's content (false stops).
  MultipartReader(std::string boundary, std::function<bool(const Part&)> begin,
                  std::function<bool(const char*, size_t)> data);
  // False when the bytes are not well-formed multipart (error() says why) or a callback stopped.
  bool feed(const char* p, size_t n);
  bool finished() const { return state_ == State::kDone; }  // the closing boundary was read
  const std::string& error() const { return error_; }

  static constexpr size_t kMaxPartHead = 8 << 10;

 private:
  enum class State { kContent, kAfterBoundary, kHead, kDone, kFailed };
  bool step(bool& progressed);
  bool emit(size_t n);
  bool fail(const std::string& why);
  bool parse_head(const std::string& head);

  std::string delimiter_, buf_, error_;
  std::function<bool(const Part&)> begin_;
  std::function<bool(const char*, size_t)> data_;
  State state_ = State::kContent;
  bool in_part_ = false;
};

}  // namespace bioagent::server
