// InputStream and LineReader (see input_stream.h).
#include "genefamily/io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace bioagent::seqio_detail {

namespace {

constexpr size_t kReadBytes = size_t(256) << 10;

std::string mib(int64_t bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1 << 20));
  return b;
}

}  // namespace

struct InputStream::Inflater {
  z_stream zs{};
  bool ready = false;
  ~Inflater() {
    if (ready) inflateEnd(&zs);
  }
};

InputStream::InputStream(std::string name, const InputLimits& limits) : name_(std::move(name)), limits_(limits) {}

InputStream::~InputStream() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<InputStream>> InputStream::open(const std::filesystem::path& path, const std::string& name,
                                                       const InputLimits& limits, const char* size_key) {
  auto s = std::unique_ptr<InputStream>(new InputStream(name, limits));
  s->size_key_ = size_key;
  for (auto& f : InputLimits::fields())
    if (s->size_key_ == f.key) s->max_bytes_ = limits.*f.member;
  // Non-blocking open: a FIFO is never waited on, only refused below.
  s->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (s->fd_ < 0) return not_found("cannot read " + name + " (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(s->fd_, &st) != 0 || !S_ISREG(st.st_mode))
    return Status(ErrorCode::kInvalidArgument,
                  name + " is not a regular file (a folder, FIFO or device); only regular files are read")
        .with("file", name);
  ::fcntl(s->fd_, F_SETFL, ::fcntl(s->fd_, F_GETFL) & ~O_NONBLOCK);
  unsigned char magic[2] = {0, 0};
  const ssize_t got = ::pread(s->fd_, magic, 2, 0);
  s->gzip_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (!s->gzip_ && int64_t(st.st_size) > s->max_bytes_)  // a plain file is refused before a byte is read
    return input_limit_exceeded(limits, size_key, name,
                                "the file holds " + mib(st.st_size) + ", more than the limit of " + mib(s->max_bytes_));
  if (s->gzip_) {
    s->z_ = std::make_unique<Inflater>();
    if (inflateInit2(&s->z_->zs, 15 + 16) != Z_OK) return internal_error("cannot start the gzip reader");
    s->z_->ready = true;
    s->in_buf_.resize(kReadBytes);
  }
  return s;
}

std::unique_ptr<InputStream> InputStream::of_text(std::string_view text, const std::string& name,
                                                  const InputLimits& limits) {
  auto s = std::unique_ptr<InputStream>(new InputStream(name, limits));
  s->text_ = text;
  s->max_bytes_ = limits.file_bytes;
  return s;
}

bool InputStream::fail(Status s) {
  if (status_.is_ok()) status_ = std::move(s);
  at_end_ = true;
  return false;
}

long InputStream::read_raw(char* buf, size_t n) {
  if (fd_ < 0) {
    const size_t k = std::min(n, text_.size());
    std::memcpy(buf, text_.data(), k);
    text_.remove_prefix(k);
    return long(k);
  }
  for (;;) {
    ssize_t got = ::read(fd_, buf, n);
    if (got >= 0) return long(got);
    if (errno == EINTR) continue;
    fail(Status(ErrorCode::kInternal, "cannot read " + name_ + " (" + std::strerror(errno) + ")"));
    return -1;
  }
}

// The inflated size against its limit, and against the compressed bytes read so far.
bool InputStream::check_sizes() {
  if (bytes_out_ > max_bytes_)
    return fail(input_limit_exceeded(
        limits_, size_key_, name_,
        std::string(gzip_ ? "inflates to" : "holds") + " more than the limit of " + mib(max_bytes_)));
  if (!gzip_ || bytes_out_ <= limits_.inflate_ratio_after_bytes) return true;
  const int64_t consumed = std::max<int64_t>(1, bytes_in_ - int64_t(z_->zs.avail_in));
  if (bytes_out_ / consumed >= limits_.inflate_ratio)
    return fail(input_limit_exceeded(
        limits_, "inflate_ratio", name_,
        "inflates to more than " + std::to_string(limits_.inflate_ratio) + " times its compressed size (" +
            mib(bytes_out_) + " from " + mib(consumed) +
            " so far: a decompression bomb, or a file of one repeated letter); reading stopped there"));
  return true;
}

long InputStream::inflate_some(char* buf, size_t n) {
  z_stream& zs = z_->zs;
  zs.next_out = reinterpret_cast<Bytef*>(buf);
  zs.avail_out = unsigned(n);
  while (zs.avail_out == n) {
    if (zs.avail_in == 0) {
      const long got = read_raw(reinterpret_cast<char*>(in_buf_.data()), in_buf_.size());
      if (got < 0) return -1;
      if (got == 0) {
        if (member_ended_) {
          at_end_ = true;
          return 0;
        }
        fail(Status(ErrorCode::kParseError,
                    name_ + ": not readable gzip data (the compressed data ends early: a truncated file?)")
                 .with("file", name_));
        return -1;
      }
      zs.next_in = in_buf_.data();
      zs.avail_in = unsigned(got);
      bytes_in_ += got;
    }
    if (member_ended_) {  // another member (BGZF is many), or bytes after the data, which are not read
      if (zs.next_in[0] != 0x1f || (zs.avail_in > 1 && zs.next_in[1] != 0x8b)) {
        at_end_ = true;
        return 0;
      }
      inflateReset(&zs);
      member_ended_ = false;
    }
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      member_ended_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      fail(Status(ErrorCode::kParseError,
                  name_ + ": not readable gzip data (" + std::string(zs.msg ? zs.msg : "corrupt data") + ")")
               .with("file", name_));
      return -1;
    }
  }
  return long(n - zs.avail_out);
}

long InputStream::read(char* buf, size_t n) {
  if (!status_.is_ok()) return -1;
  if (at_end_ || n == 0) return 0;
  const long got = gzip_ ? inflate_some(buf, n) : read_raw(buf, n);
  if (got <= 0) return got;
  bytes_out_ += got;
  return check_sizes() ? got : -1;
}

LineReader::LineReader(InputStream& in) : in_(in), buf_(kReadBytes) {}

bool LineReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  const long got = in_.read(buf_.data() + end_, buf_.size() - end_);
  if (got <= 0) {
    eof_ = true;
    return false;
  }
  end_ += size_t(got);
  if (!started_ && end_ >= 3) {  // a byte-order mark some editors write first
    started_ = true;
    if (std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  }
  return true;
}

bool LineReader::next(std::string_view& line) {
  const size_t max_line = size_t(in_.limits().line_bytes) + 1;  // + 1: a CR before the LF
  for (;;) {
    if (!in_.status().is_ok() || !status_.is_ok()) return false;
    if (pos_ < end_) {
      const char* at = buf_.data() + pos_;
      const void* nl = std::memchr(at, '\n', end_ - pos_);
      const size_t n = nl ? size_t(static_cast<const char*>(nl) - at) : end_ - pos_;
      const bool cr = n > 0 && at[n - 1] == '\r' && (nl || eof_);
      if (n > max_line || (n == max_line && !cr && (nl || eof_))) {
        status_ = input_limit_exceeded(in_.limits(), "line_bytes", in_.name(),
                                       "line " + std::to_string(line_ + 1) + " is longer than " +
                                           std::to_string(in_.limits().line_bytes) +
                                           " bytes (lines that end in CR alone are one long line)");
        return false;
      }
      if (nl) {
        line = std::string_view(at, n);
        pos_ += n + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++line_;
        return true;
      }
      if (eof_) {
        line = std::string_view(at, end_ - pos_);
        pos_ = end_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++line_;
        return true;
      }
      if (pos_ == 0 && end_ == buf_.size()) buf_.resize(std::min(buf_.size() * 2, max_line + 2));
    } else if (eof_) {
      return false;
    }
    fill();
  }
}

bool LineReader::next_piece(std::string_view& piece, bool& starts, bool& ends) {
  for (;;) {
    if (!in_.status().is_ok()) return false;
    if (pos_ < end_) {
      const char* at = buf_.data() + pos_;
      const void* nl = std::memchr(at, '\n', end_ - pos_);
      const bool full = pos_ == 0 && end_ == buf_.size();
      if (nl || eof_ || full) {
        starts = !mid_line_;
        if (starts) ++line_;
        size_t n = nl ? size_t(static_cast<const char*>(nl) - at) : end_ - pos_;
        if (!nl && !eof_ && n > 1 && at[n - 1] == '\r') --n;  // a CR that may precede the LF stays for the next piece
        piece = std::string_view(at, n);
        pos_ += n + (nl ? 1 : 0);
        ends = nl || eof_;
        mid_line_ = !ends;
        if (ends && !piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
        return true;
      }
    } else if (eof_) {
      return false;
    }
    fill();
  }
}

std::string quote_byte(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return std::string("'") + char(c) + "'";
  char b[8];
  std::snprintf(b, sizeof b, "0x%02X", c);
  return b;
}

}  // namespace bioagent::seqio_detail
