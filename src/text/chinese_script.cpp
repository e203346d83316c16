#include "text/chinese_script.h"

#include <opencc/opencc.h>

#include <memory>

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

}  // namespace

std::string to_simplified(std::string_view text) {
  if (!has_non_ascii(text)) return std::string(text);
  opencc_t od = converter();
  if (!od) return std::string(text);
  char* out = opencc_convert_utf8(od, text.data(), text.size());
  if (!out) return std::string(text);
  std::string s(out);
  opencc_convert_utf8_free(out);
  return s;
}

}  // namespace bioagent
