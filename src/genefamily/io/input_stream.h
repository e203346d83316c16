// A genome-side input file read as a stream, every cost bounded before it is
// paid (bioagent/input_limits.h): only regular files are opened (a FIFO or a
// device is refused, never waited on); gzip (any name, several members, so
// BGZF too) is inflated in fixed-size pieces, the inflated size checked
// against its limit and against the compressed bytes read so far as it goes;
// lines are handed out whole up to the line limit, or in pieces for readers
// that need no whole line (a genome's sequence lines). Internal to genefamily/io.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/input_limits.h"

namespace bioagent::seqio_detail {

class InputStream {
 public:
  // `name`: how messages name the file (its file name, never a server path); `size_key`: the
  // limit on its inflated size ("file_bytes" or "genome_bytes").
  static Result<std::unique_ptr<InputStream>> open(const std::filesystem::path& path, const std::string& name,
                                                   const InputLimits& limits, const char* size_key = "file_bytes");
  // Bytes already in memory, read through the same checks (no file).
  static std::unique_ptr<InputStream> of_text(std::string_view text, const std::string& name,
                                              const InputLimits& limits);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Up to `n` inflated bytes into `buf`: their count, 0 at the end, -1 on an error (status()).
  long read(char* buf, size_t n);
  const Status& status() const { return status_; }
  const std::string& name() const { return name_; }
  const InputLimits& limits() const { return limits_; }
  bool compressed() const { return gzip_; }

 private:
  InputStream(std::string name, const InputLimits& limits);
  long read_raw(char* buf, size_t n);
  long inflate_some(char* buf, size_t n);
  bool fail(Status s);
  bool check_sizes();

  std::string name_;
  InputLimits limits_;
  std::string size_key_ = "file_bytes";
  int64_t max_bytes_ = 0;
  int fd_ = -1;
  std::string_view text_;  // of_text: the bytes not read yet
  bool gzip_ = false, at_end_ = false, member_ended_ = false;
  struct Inflater;
  std::unique_ptr<Inflater> z_;
  std::vector<unsigned char> in_buf_;
  int64_t bytes_in_ = 0, bytes_out_ = 0;  // compressed bytes given to the inflater; bytes handed out
  Status status_;
};

// Lines of an InputStream (CR LF read as LF; a UTF-8 byte-order mark at the start skipped).
class LineReader {
 public:
  explicit LineReader(InputStream& in);
  // The next whole line (without its end): false at the end, or on an error (status()), a line
  // longer than limits().line_bytes among them.
  bool next(std::string_view& line);
  // The next piece of a line, for lines that need not be whole: `starts` when it begins a line,
  // `ends` when it ends one. Pieces of one line are at most the buffer's size each.
  bool next_piece(std::string_view& piece, bool& starts, bool& ends);
  size_t line_number() const { return line_; }
  const Status& status() const { return in_.status().is_ok() ? status_ : in_.status(); }
  InputStream& stream() { return in_; }
  const InputStream& stream() const { return in_; }

 private:
  bool fill();  // more bytes after the unread ones (compacted); false at the end or on an error

  InputStream& in_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  size_t line_ = 0;
  bool eof_ = false, mid_line_ = false, started_ = false;
  Status status_;
};

// A byte as messages quote it: 'c' when printable ASCII, else 0xNN.
std::string quote_byte(unsigned char c);

}  // namespace bioagent::seqio_detail
