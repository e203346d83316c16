// A cursor over XML text for the streaming sheet scanner: element tags with
// their local names, attributes read in place, element text decoded, and
// comments, processing instructions and declarations skipped. No DOM is built;
// everything is inline because it runs a few times per cell of a large sheet.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "table/xml_text.h"

namespace bioagent::xml_cursor {

// Whether a tag or attribute name is `lit`: names are short literals, compared
// inline rather than by a library call per tag.
template <size_t N>
bool named(std::string_view name, const char (&lit)[N]) {
  if (name.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i) {
    if (name[i] != lit[i]) return false;
  }
  return true;
}

// An attribute value: the XML's own text when it is plain (no entity or CR), else decoded into `scratch`.
struct AttrValue {
  const char* begin;
  const char* end;
  bool plain;
  std::string_view view(std::string& scratch) const {
    if (plain) return {begin, static_cast<size_t>(end - begin)};
    scratch.clear();
    append_decoded(scratch, begin, end);
    return scratch;
  }
};

struct Tag {
  std::string_view name;  // local name, prefix removed
  bool closing = false, self_closing = false;
  const char* attrs = nullptr;
  const char* attrs_end = nullptr;
};

class XmlCursor {
 protected:
  XmlCursor(const char* b, const char* e) : p_(b), end_(e) {}

  // Finds the next element tag; comments, processing instructions and
  // declarations are skipped. False at the end of the range.
  bool next_tag(Tag* t) {
    for (;;) {
      const char* lt = find_lt(p_);
      if (!lt || lt + 1 >= end_) {
        p_ = end_;
        return false;
      }
      p_ = lt + 1;
      if (*p_ == '?' || *p_ == '!') {
        const char* close = nullptr;
        if (end_ - p_ >= 3 && std::memcmp(p_, "!--", 3) == 0)
          close = find("-->");
        else if (end_ - p_ >= 8 && std::memcmp(p_, "![CDATA[", 8) == 0)
          close = find("]]>");
        else
          close = static_cast<const char*>(std::memchr(p_, '>', static_cast<size_t>(end_ - p_)));
        p_ = close ? close + 1 : end_;
        continue;
      }
      t->closing = *p_ == '/';
      if (t->closing) ++p_;
      const char* n = p_;
      const char* local = nullptr;  // after the first ':' (a namespace prefix)
      for (; p_ < end_; ++p_) {
        const char ch = *p_;
        if (ch == '>' || ch == '/' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') break;
        if (ch == ':' && !local) local = p_ + 1;
      }
      if (local) n = local;
      t->name = std::string_view(n, static_cast<size_t>(p_ - n));
      t->attrs = p_;
      // The tag ends at the first '>' outside a quoted attribute value.
      char quote = 0;
      while (p_ < end_ && (quote || *p_ != '>')) {
        if (quote) {
          if (*p_ == quote) quote = 0;
        } else if (*p_ == '"' || *p_ == '\'') {
          quote = *p_;
        }
        ++p_;
      }
      t->attrs_end = p_;
      t->self_closing = p_ > t->attrs && p_[-1] == '/';
      if (p_ < end_) ++p_;
      return true;
    }
  }

  // The next '<' from `from`, or null. Between a sheet's tags the text is short (a
  // number, a string index): a plain loop over it costs less than a call.
  const char* find_lt(const char* from) const {
    const char* stop = end_ - from > 32 ? from + 32 : end_;
    for (; from < stop; ++from) {
      if (*from == '<') return from;
    }
    if (from >= end_) return nullptr;
    return static_cast<const char*>(std::memchr(from, '<', static_cast<size_t>(end_ - from)));
  }

  const char* find(const char* needle) {
    std::string_view hay(p_, static_cast<size_t>(end_ - p_));
    size_t at = hay.find(needle);
    return at == std::string_view::npos ? nullptr : p_ + at + std::strlen(needle) - 1;
  }

  // The value of attribute `name` (local name), entities decoded; "" if absent.
  static std::string attr(const Tag& t, std::string_view name) {
    std::string scratch;
    return std::string(attr_view(t, name, scratch));
  }

  // Calls on(local name, AttrValue) for each attribute of `t` in order until it
  // returns false; stops at a value without quotes (malformed).
  template <class OnAttr>
  static void for_each_attr(const Tag& t, OnAttr&& on) {
    const char* p = t.attrs;
    while (p < t.attrs_end) {
      while (p < t.attrs_end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '/')) ++p;
      const char* n = p;
      const char* local = nullptr;
      for (; p < t.attrs_end && *p != '=' && *p != ' '; ++p) {
        if (*p == ':' && !local) local = p + 1;
      }
      if (local) n = local;
      std::string_view an(n, static_cast<size_t>(p - n));
      while (p < t.attrs_end && (*p == '=' || *p == ' ')) ++p;
      if (p >= t.attrs_end || (*p != '"' && *p != '\'')) return;
      char q = *p++;
      const char* v = p;
      bool plain = true;
      for (; p < t.attrs_end && *p != q; ++p) {
        if (*p == '&' || *p == '\r') plain = false;
      }
      if (!on(an, AttrValue{v, p, plain})) return;
      ++p;
    }
  }

  // attr without a copy: a view of the tag's own text when the value has no entity
  // or CR, else of `scratch` holding it decoded; valid until `scratch` is next written.
  static std::string_view attr_view(const Tag& t, std::string_view name, std::string& scratch) {
    std::string_view out;
    for_each_attr(t, [&](std::string_view an, const AttrValue& v) {
      if (an != name) return true;
      out = v.view(scratch);
      return false;
    });
    return out;
  }

  // Text up to the closing tag of the current element (CDATA included).
  void text_until_close(std::string& out) {
    for (;;) {
      const char* lt = static_cast<const char*>(std::memchr(p_, '<', static_cast<size_t>(end_ - p_)));
      if (!lt) {
        append_decoded(out, p_, end_);
        p_ = end_;
        return;
      }
      append_decoded(out, p_, lt);
      p_ = lt;
      if (end_ - p_ >= 9 && std::memcmp(p_, "<![CDATA[", 9) == 0) {
        p_ += 9;
        const char* close = find("]]>");
        const char* stop = close ? close - 2 : end_;
        append_eol(out, p_, stop);
        p_ = close ? close + 1 : end_;
        continue;
      }
      const bool comment = end_ - p_ >= 4 && std::memcmp(p_, "<!--", 4) == 0;
      if (comment || (end_ - p_ >= 2 && p_[1] == '?')) {  // the text on both sides is one value
        p_ += comment ? 4 : 2;
        const char* close = find(comment ? "-->" : "?>");
        p_ = close ? close + 1 : end_;
        continue;
      }
      Tag t;
      next_tag(&t);  // the closing tag (or a child, whose text is not part of the value)
      if (t.closing) return;
      if (!t.self_closing) skip_element();
    }
  }

  // Skips the rest of an element whose start tag was just read.
  void skip_element() {
    int depth = 1;
    Tag t;
    while (depth > 0 && next_tag(&t)) {
      if (t.closing)
        --depth;
      else if (!t.self_closing)
        ++depth;
    }
  }

  const char* p_;
  const char* end_;
};

}  // namespace bioagent::xml_cursor
