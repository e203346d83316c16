// Readable text from fetched documents: HTML through gumbo (a real HTML5
// parser; scripts, styles and navigation dropped), PDF through MuPDF, and
// content sniffing that trusts the bytes over the Content-Type header.
// Thread-safe (each call has its own parser/context).
#pragma once

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
std::string html_to_text(std::string_view html);

// Text of a PDF held in memory, page by page, stopping after `max_chars`
// characters (0: all). Encrypted or broken files are clear errors.
Result<std::string> pdf_to_text(std::string_view bytes, size_t max_chars = 0);

}  // namespace bioagent
