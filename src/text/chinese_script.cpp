#include "text/chinese_script.h"

#include <opencc/opencc.h>

#include <algorithm>
#include <memory>

#include "bioagent/status.h"

namespace bioagent {
namespace {

bool has_non_ascii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return true;
  return false;
}

// One converter per thread (OpenCC's handle is not documented as shareable); null when the tables are missing.
opencc_t converter() {
  struct Handle {
    opencc_t od = opencc_open(OPENCC_DEFAULT_CONFIG_TRAD_TO_SIMP);
    ~Handle() {
      if (od != reinterpret_cast<opencc_t>(-1)) opencc_close(od);
    }
  };
  thread_local Handle h;
  return h.od == reinterpret_cast<opencc_t>(-1) ? nullptr : h.od;
}

// OpenCC reads past the end of a truncated UTF-8 sequence and stops at a NUL: it is given valid UTF-8 only
// (invalid bytes made U+FFFD first), one NUL-free piece at a time.
std::string convert_piece(opencc_t od, const std::string& piece) {
  if (!has_non_ascii(piece)) return piece;
  char* out = opencc_convert_utf8(od, piece.c_str(), piece.size());
  if (!out) return piece;
  std::string s(out);
  opencc_convert_utf8_free(out);
  return s;
}

}  // namespace

std::string to_simplified(std::string_view text) {
  if (!has_non_ascii(text)) return std::string(text);
  opencc_t od = converter();
  if (!od) return std::string(text);
  const std::string valid = valid_utf8(text);
  std::string out;
  for (size_t from = 0; from <= valid.size();) {
    const size_t nul = std::min(valid.find('\0', from), valid.size());
    out += convert_piece(od, valid.substr(from, nul - from));
    if (nul < valid.size()) out += '\0';
    from = nul + 1;
  }
  return out;
}

unsigned cjk_at(std::string_view text, size_t i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  if (c < 0xE2 || c > 0xEF || i + 2 >= text.size()) return 0;
  unsigned cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
  bool cjk = (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
             (cp >= 0xFF00 && cp <= 0xFFEF);
  return cjk ? cp : 0;
}

bool cjk_punctuation(unsigned cp) {
  return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
         (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
}

}  // namespace bioagent
