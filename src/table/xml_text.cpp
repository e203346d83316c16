// XML text as the sheet scanner reads it: line ends, entities, OOXML escapes.
#include "table/xml_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bioagent {

// Appends literal XML text with its line ends as XML reads them: CR LF and a
// lone CR become LF (a CR written as &#13; stays, as it is no line end).
void append_eol(std::string& out, const char* b, const char* e) {
  while (b < e) {
    const char* cr = static_cast<const char*>(std::memchr(b, '\r', static_cast<size_t>(e - b)));
    if (!cr) {
      out.append(b, e);
      return;
    }
    out.append(b, cr);
    out += '\n';
    b = cr + 1 < e && cr[1] == '\n' ? cr + 2 : cr + 1;
  }
}

// Appends text with XML's predefined and numeric entities decoded; anything
// else after '&' is kept literally (no DTD entities are ever expanded).
void append_decoded(std::string& out, const char* b, const char* e) {
  while (b < e) {
    const char* amp = static_cast<const char*>(std::memchr(b, '&', static_cast<size_t>(e - b)));
    if (!amp) {
      append_eol(out, b, e);
      return;
    }
    append_eol(out, b, amp);
    const char* semi =
        static_cast<const char*>(std::memchr(amp, ';', static_cast<size_t>(std::min<ptrdiff_t>(e - amp, 12))));
    if (!semi) {
      out += '&';
      b = amp + 1;
      continue;
    }
    std::string_view ent(amp + 1, static_cast<size_t>(semi - amp - 1));
    uint32_t cp = 0;
    bool ok = true;
    if (ent == "lt")
      cp = '<';
    else if (ent == "gt")
      cp = '>';
    else if (ent == "amp")
      cp = '&';
    else if (ent == "quot")
      cp = '"';
    else if (ent == "apos")
      cp = '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      auto digits = ent.substr(hex ? 2 : 1);
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      ok = ec == std::errc() && p == digits.data() + digits.size() && cp > 0 && cp <= 0x10FFFF &&
           !(cp >= 0xD800 && cp <= 0xDFFF);
    } else {
      ok = false;
    }
    if (!ok) {
      out += '&';
      b = amp + 1;
      continue;
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    b = semi + 1;
  }
}

// OOXML escapes control characters in strings as _xHHHH_.
void unescape_ooxml(std::string& s) {
  if (s.find("_x") == std::string::npos) return;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_' && i + 6 < s.size() && s[i + 1] == 'x' && s[i + 6] == '_' &&
        std::all_of(s.begin() + static_cast<ptrdiff_t>(i) + 2, s.begin() + static_cast<ptrdiff_t>(i) + 6,
                    [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
      unsigned v = static_cast<unsigned>(std::stoul(s.substr(i + 2, 4), nullptr, 16));
      std::string tmp = "&#" + std::to_string(v) + ";";
      append_decoded(out, tmp.data(), tmp.data() + tmp.size());
      i += 6;
      continue;
    }
    out += s[i];
  }
  s = std::move(out);
}

}  // namespace bioagent
