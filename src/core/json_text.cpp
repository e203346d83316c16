#include "bioagent/json_text.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// True for bytes that must be escaped inside a JSON string.
struct EscapeTable {
  bool must[256] = {};
  constexpr EscapeTable() {
    for (int c = 0; c < 0x20; ++c) must[c] = true;
    must[static_cast<unsigned char>('"')] = true;
    must[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr EscapeTable kEscape;

void escape_ascii_run(std::string_view s, std::string& out) {
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (!kEscape.must[c]) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(s.data() + run, s.size() - run);
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t utf8_sequence(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong, surrogate
  return n;
}

void append_string(std::string_view s, std::string& out) {
  out += '"';
  if (simdjson::validate_utf8(s.data(), s.size())) {
    escape_ascii_run(s, out);
  } else {
    size_t i = 0, run = 0;
    while (i < s.size()) {
      size_t n = utf8_sequence(s, i);
      if (n) {
        i += n;
        continue;
      }
      escape_ascii_run(s.substr(run, i - run), out);
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      run = ++i;
    }
    escape_ascii_run(s.substr(run), out);
  }
  out += '"';
}

void append_double(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += "null";  // as nlohmann does: JSON has no NaN or infinity
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view text(buf, static_cast<size_t>(end - buf));
  out.append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";  // keep it a float
}

void newline(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

void write(const Json& v, std::string& out, int indent, int depth) {
  switch (v.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get<int64_t>());
      out.append(buf, end);
      return;
    }
    case Json::value_t::number_unsigned: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get<uint64_t>());
      out.append(buf, end);
      return;
    }
    case Json::value_t::number_float:
      append_double(v.get<double>(), out);
      return;
    case Json::value_t::string:
      append_string(v.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::array: {
      if (v.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ',';
        first = false;
        if (indent >= 0) newline(out, indent, depth + 1);
        write(item, out, indent, depth + 1);
      }
      if (indent >= 0) newline(out, indent, depth);
      out += ']';
      return;
    }
    case Json::value_t::object: {
      if (v.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ',';
        first = false;
        if (indent >= 0) newline(out, indent, depth + 1);
        append_string(it.key(), out);
        out += indent >= 0 ? ": " : ":";
        write(it.value(), out, indent, depth + 1);
      }
      if (indent >= 0) newline(out, indent, depth);
      out += '}';
      return;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      out += "null";
      return;
  }
}

}  // namespace

void append_json_text(const Json& value, std::string& out, int indent) { write(value, out, indent, 0); }

std::string json_text(const Json& value, int indent) {
  std::string out;
  write(value, out, indent, 0);
  return out;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t n = max_bytes;  // back off continuation bytes, then the lead byte whose character the cut splits
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

std::string_view utf8_suffix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t from = text.size() - max_bytes;  // skip the continuation bytes of a character the cut splits
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  return text.substr(from);
}

bool json_depth_within(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

Json parse_json_bounded(std::string_view text, size_t max_depth) {
  if (!json_depth_within(text, max_depth)) return Json(Json::value_t::discarded);
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace bioagent
