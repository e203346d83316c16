// The streaming multipart/form-data reader. The body is read as if it began
// with CRLF, so the first boundary is found like every other one
// ("\r\n--" + boundary); content is passed on except for the tail that could
// be the start of a delimiter.
#include "server/multipart.h"

#include <cctype>

namespace bioagent::server {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// `key=value` parameters after the first ';' of a header value; false when a quoted value is not closed.
bool header_params(const std::string& value, std::string& name, std::string& filename, bool& form_data) {
  size_t i = value.find(';');
  form_data = lower(trim(value.substr(0, i))) == "form-data";
  while (i != std::string::npos && i < value.size()) {
    ++i;
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) ++i;
    size_t eq = value.find('=', i);
    if (eq == std::string::npos) break;
    std::string key = lower(trim(value.substr(i, eq - i))), v;
    size_t j = eq + 1;
    if (j < value.size() && value[j] == '"') {
      for (++j; j < value.size() && value[j] != '"'; ++j) {
        if (value[j] == '\\' && j + 1 < value.size()) ++j;
        v += value[j];
      }
      if (j >= value.size()) return false;  // an unterminated quoted value
      ++j;
    } else {
      size_t end = value.find(';', j);
      v = trim(value.substr(j, end == std::string::npos ? std::string::npos : end - j));
      j = end == std::string::npos ? value.size() : end;
    }
    if (key == "name") name = v;
    if (key == "filename") filename = v;
    i = value.find(';', j);
  }
  return true;
}

}  // namespace

std::string multipart_boundary(const std::string& content_type) {
  std::string t = lower(content_type);
  if (t.rfind("multipart/form-data", 0) != 0) return "";
  size_t at = t.find("boundary=");
  if (at == std::string::npos) return "";
  std::string b = content_type.substr(at + 9);
  if (!b.empty() && b[0] == '"') {
    size_t close = b.find('"', 1);
    b = close == std::string::npos ? "" : b.substr(1, close - 1);
  } else {
    b = trim(b.substr(0, b.find(';')));
  }
  return b.size() <= 70 ? b : "";  // RFC 2046: 1 to 70 characters
}

MultipartReader::MultipartReader(std::string boundary, std::function<bool(const Part&)> begin,
                                 std::function<bool(const char*, size_t)> data)
    : delimiter_("\r\n--" + boundary), buf_("\r\n"), begin_(std::move(begin)), data_(std::move(data)) {}

bool MultipartReader::fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  state_ = State::kFailed;
  return false;
}

bool MultipartReader::emit(size_t n) {
  if (n > 0 && in_part_ && !data_(buf_.data(), n)) return fail("");
  buf_.erase(0, n);
  return true;
}

bool MultipartReader::parse_head(const std::string& head) {
  Part part;
  bool disposition = false;
  size_t start = 0;
  while (start < head.size()) {
    size_t end = head.find("\r\n", start);
    std::string line = head.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? head.size() : end + 2;
    size_t colon = line.find(':');
    if (colon == std::string::npos) return fail("a part header line has no ':'");
    if (lower(trim(line.substr(0, colon))) != "content-disposition") continue;
    bool form_data = false;
    if (!header_params(line.substr(colon + 1), part.name, part.filename, form_data) || !form_data)
      return fail("a part's Content-Disposition is not well-formed form-data");
    disposition = true;
  }
  if (!disposition || part.name.empty()) return fail("a part has no Content-Disposition name");
  in_part_ = true;
  if (!begin_(part)) return fail("");
  return true;
}

bool MultipartReader::step(bool& progressed) {
  progressed = false;
  switch (state_) {
    case State::kContent: {
      size_t at = buf_.find(delimiter_);
      if (at == std::string::npos) {
        size_t keep = delimiter_.size() - 1;
        if (buf_.size() > keep) {
          progressed = true;
          return emit(buf_.size() - keep);
        }
        return true;
      }
      if (!emit(at)) return false;
      buf_.erase(0, delimiter_.size());
      in_part_ = false;
      state_ = State::kAfterBoundary;
      progressed = true;
      return true;
    }
    case State::kAfterBoundary: {
      if (buf_.size() < 2) return true;
      if (buf_.compare(0, 2, "--") == 0) {
        state_ = State::kDone;
        buf_.clear();
        return true;
      }
      if (buf_.compare(0, 2, "\r\n") != 0) return fail("a boundary is not followed by CRLF");
      buf_.erase(0, 2);
      state_ = State::kHead;
      progressed = true;
      return true;
    }
    case State::kHead: {
      size_t end = buf_.compare(0, 2, "\r\n") == 0 ? 0 : buf_.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (buf_.size() > kMaxPartHead) return fail("a part's headers exceed 8 KiB");
        return true;
      }
      if (end > kMaxPartHead) return fail("a part's headers exceed 8 KiB");
      std::string head = buf_.substr(0, end);
      buf_.erase(0, end == 0 ? 2 : end + 4);
      if (!parse_head(head)) return false;
      state_ = State::kContent;
      progressed = true;
      return true;
    }
    case State::kDone:
      buf_.clear();  // the epilogue is ignored
      return true;
    case State::kFailed:
      return false;
  }
  return false;
}

bool MultipartReader::feed(const char* p, size_t n) {
  if (state_ == State::kFailed) return false;
  if (state_ == State::kDone) return true;
  buf_.append(p, n);
  bool progressed = true;
  while (progressed)
    if (!step(progressed)) return false;
  return true;
}

}  // namespace bioagent::server
