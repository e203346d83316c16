// Readable text from fetched documents: HTML through gumbo (a real HTML5
// parser; scripts, styles and navigation dropped), PDF through MuPDF, and
// content sniffing that trusts the bytes over the Content-Type header.
// Thread-safe (each call has its own parser/context).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "bioagent/status.h"

namespace bioagent {

enum class ContentKind { kPdf, kHtml, kText, kBinary };

// What the bytes are; `content_type` only breaks ties between HTML and text.
ContentKind sniff_content(std::string_view bytes, std::string_view content_type = "");

// Visible text of an HTML document: block elements end lines, whitespace is
// folded, <script>, <style>, <noscript>, <nav>, <header>, <footer>, <aside>,
// <form>, <svg>, <iframe> and <template> are dropped. The <title> leads.
// A page nesting elements deeper than kMaxHtmlDepth (estimated in one linear
// pass, html_nesting_depth) is not given to the tree builder, whose work grows
// with depth times tags: its text is the text between the tags.
std::string html_to_text(std::string_view html);
inline constexpr size_t kMaxHtmlDepth = 1000;
size_t html_nesting_depth(std::string_view html);

// Text of a PDF held in memory, page by page, stopping after `max_chars`
// characters (0: all), after kMaxPdfPages pages, or at `deadline` (the text so
// far, with a last line saying where and why it stopped). Encrypted or broken
// files are clear errors.
inline constexpr int kMaxPdfPages = 2000;
Result<std::string> pdf_to_text(
    std::string_view bytes, size_t max_chars = 0,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace bioagent
