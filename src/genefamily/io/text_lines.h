// What the readers of text already in memory share (seqio.cpp, gff3.cpp): its
// lines and whole-field integers. Files are read through input_stream.h.
// Internal to genefamily/io.
#pragma once

#include <charconv>
#include <filesystem>
#include <string>
#include <string_view>

#include "bioagent/status.h"

namespace bioagent::seqio_detail {

// f(line_number, line) for each line (without its CR LF) until f returns false.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!f(++line_no, line)) return;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

inline bool to_int(std::string_view s, int64_t& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace bioagent::seqio_detail
