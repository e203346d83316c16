// Fuzzes the streaming reader under every genome-side parser: gzip (many
// members, BGZF, truncated, bombs) or plain bytes, read in lines and in
// pieces within small limits; the inflated bytes never pass the size limit.
#include <cstdlib>

#include "fuzz_input_file.h"
#include "genefamily/io/input_stream.h"

using bioagent::seqio_detail::InputStream;
using bioagent::seqio_detail::LineReader;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto p = fuzz_input_file(data, size, ".gz");
  const bioagent::InputLimits l = fuzz_small_limits();
  for (int mode = 0; mode < 2; ++mode) {
    auto in = InputStream::open(p, "x.gz", l);
    if (!in) continue;
    LineReader lines(**in);
    int64_t bytes = 0;
    if (mode == 0) {
      for (std::string_view line; lines.next(line);) {
        if (int64_t(line.size()) > l.line_bytes) std::abort();
        bytes += int64_t(line.size()) + 1;
      }
    } else {
      std::string_view piece;
      bool starts = false, ends = false;
      while (lines.next_piece(piece, starts, ends)) bytes += int64_t(piece.size());
    }
    if (bytes > l.file_bytes + int64_t(lines.line_number()) + 1) std::abort();
    if (bioagent::valid_utf8(lines.status().message()) != lines.status().message()) std::abort();
  }
  return 0;
}
