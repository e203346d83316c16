// Escaping text for XML and SVG: & < > " become entities; control characters
// XML 1.0 does not allow are dropped.
#pragma once

#include <string>
#include <string_view>

namespace bioagent {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') continue;
        out += c;
    }
  }
  return out;
}

}  // namespace bioagent
