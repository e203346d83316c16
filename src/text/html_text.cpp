#include <gumbo.h>

#include <algorithm>
#include <cstring>

#include "bioagent/text_extract.h"

namespace bioagent {
namespace {

bool dropped(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_CANVAS:
      return true;
    default:
      return false;
  }
}

bool block(GumboTag t) {
  switch (t) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_CAPTION:
      return true;
    default:
      return false;
  }
}

// Iterative walk (deeply nested hostile HTML must not exhaust the stack).
void collect(GumboNode* root, std::string& out) {
  struct Frame {
    GumboNode* node;
    bool closing;
  };
  std::vector<Frame> stack{{root, false}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    GumboNode* n = f.node;
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA || n->type == GUMBO_NODE_WHITESPACE) {
      out += n->v.text.text;
      continue;
    }
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_DOCUMENT && n->type != GUMBO_NODE_TEMPLATE) continue;
    GumboTag tag = n->type == GUMBO_NODE_DOCUMENT ? GUMBO_TAG_UNKNOWN : n->v.element.tag;
    if (f.closing) {
      if (block(tag))
        out += '\n';
      else if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH)
        out += '\t';
      continue;
    }
    if (n->type == GUMBO_NODE_ELEMENT && dropped(tag)) continue;
    if (block(tag)) out += '\n';
    stack.push_back({n, true});
    const GumboVector& kids = n->type == GUMBO_NODE_DOCUMENT ? n->v.document.children : n->v.element.children;
    for (unsigned i = kids.length; i > 0; --i) stack.push_back({static_cast<GumboNode*>(kids.data[i - 1]), false});
  }
}

std::string tidy(const std::string& raw) {
  // Fold spaces within lines; keep at most one blank line.
  std::string out;
  std::string line;
  int blank = 0;
  auto flush = [&] {
    std::string folded;
    bool space = false;
    for (char c : line) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        space = !folded.empty();
        continue;
      }
      if (space) folded += ' ';
      space = false;
      folded += c;
    }
    if (folded.empty()) {
      if (++blank == 1 && !out.empty()) out += '\n';
    } else {
      blank = 0;
      out += folded + '\n';
    }
    line.clear();
  };
  for (char c : raw) {
    if (c == '\n')
      flush();
    else
      line += c;
  }
  flush();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string find_title(GumboNode* n) {
  std::vector<GumboNode*> stack{n};
  while (!stack.empty()) {
    GumboNode* x = stack.back();
    stack.pop_back();
    if (x->type != GUMBO_NODE_ELEMENT && x->type != GUMBO_NODE_DOCUMENT) continue;
    if (x->type == GUMBO_NODE_ELEMENT && x->v.element.tag == GUMBO_TAG_TITLE) {
      std::string t;
      for (unsigned i = 0; i < x->v.element.children.length; ++i) {
        auto* c = static_cast<GumboNode*>(x->v.element.children.data[i]);
        if (c->type == GUMBO_NODE_TEXT) t += c->v.text.text;
      }
      return tidy(t);
    }
    const GumboVector& kids = x->type == GUMBO_NODE_DOCUMENT ? x->v.document.children : x->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) stack.push_back(static_cast<GumboNode*>(kids.data[i]));
  }
  return "";
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// Elements that never hold children, or that the parser closes by itself when
// a sibling opens (an unclosed <p> or <li> does not nest the next one).
bool nests(std::string_view name) {
  static const char* kFlat[] = {"area", "base", "br",     "col",      "embed", "hr",       "img",    "input",
                                "link", "meta", "param",  "source",   "track", "wbr",      "p",      "li",
                                "dt",   "dd",   "option", "optgroup", "tr",    "td",       "th",     "rb",
                                "rt",   "rp",   "thead",  "tbody",    "tfoot", "colgroup", "caption"};
  for (const char* f : kFlat)
    if (ieq(name, f)) return false;
  return true;
}

// Text with every tag replaced by a space: linear, for documents too deep to parse.
std::string strip_tags_flat(std::string_view html) {
  std::string out;
  bool in_tag = false;
  for (char c : html) {
    if (in_tag) {
      if (c == '>') in_tag = false;
      continue;
    }
    if (c == '<') {
      in_tag = true;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

size_t html_nesting_depth(std::string_view html) {
  size_t depth = 0, deepest = 0;
  for (size_t i = html.find('<'); i != std::string_view::npos && i + 1 < html.size(); i = html.find('<', i + 1)) {
    char c = html[i + 1];
    if (c == '!' && html.compare(i, 4, "<!--") == 0) {
      size_t end = html.find("-->", i + 4);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    if (c == '/') {
      if (depth > 0) --depth;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) continue;
    size_t j = i + 1;
    while (j < html.size() && std::isalnum(static_cast<unsigned char>(html[j]))) ++j;
    std::string_view name = html.substr(i + 1, j - i - 1);
    size_t close = html.find('>', j);
    if (close == std::string_view::npos) break;
    bool self_closing = close > 0 && html[close - 1] == '/';
    if (ieq(name, "script") || ieq(name, "style")) {  // raw text up to the end tag
      size_t end = html.find("</", close);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    if (!self_closing && nests(name)) deepest = std::max(deepest, ++depth);
    i = close;
  }
  return deepest;
}

ContentKind sniff_content(std::string_view b, std::string_view content_type) {
  std::string_view head = b.substr(0, 1024);
  if (head.find("%PDF-") != std::string_view::npos && head.find("%PDF-") < 1024) return ContentKind::kPdf;
  size_t i = 0;
  if (b.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  std::string lower(head.substr(i, 64));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("<!doctype html", 0) == 0 || lower.rfind("<html", 0) == 0 || lower.rfind("<head", 0) == 0 ||
      lower.rfind("<body", 0) == 0 || lower.rfind("<!--", 0) == 0)
    return ContentKind::kHtml;
  size_t controls = 0;
  for (unsigned char c : head) controls += (c < 0x09) || (c > 0x0d && c < 0x20 && c != 0x1b);
  if (controls > head.size() / 20 + 1) return ContentKind::kBinary;
  std::string ct(content_type);
  for (char& c : ct) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ct.find("html") != std::string::npos || (!lower.empty() && lower[0] == '<' && lower.find("<?xml") != 0))
    return ContentKind::kHtml;
  return ContentKind::kText;
}

std::string html_to_text(std::string_view html) {
  // The HTML5 tree builder scans its stack of open elements for many tags: a page
  // nesting 200,000 elements costs it minutes. Such a page gets its text without a tree.
  if (html_nesting_depth(html) > kMaxHtmlDepth) return tidy(strip_tags_flat(html));
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 100;
  GumboOutput* out = gumbo_parse_with_options(&options, html.data(), html.size());
  std::string raw;
  collect(out->document, raw);
  std::string title = find_title(out->document);
  gumbo_destroy_output(&options, out);
  std::string text = tidy(raw);
  if (!title.empty() && text.rfind(title, 0) != 0) text = title + "\n\n" + text;
  return text;
}

}  // namespace bioagent
