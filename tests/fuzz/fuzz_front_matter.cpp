// Fuzzes the front-matter reader (title, authors, DOI, year, abstract) on
// made-up first pages: each input line is one text line, its first byte the
// font size, its second byte whether a new block starts or the line is
// rotated; the first two lines are also the PDF's own title and author.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "papers/paper_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  bioagent::PdfDoc doc;
  doc.pages.emplace_back();
  bioagent::PdfPage& page = doc.pages.back();
  page.number = 1;
  page.width = 612;
  page.height = 792;
  float y = 40;
  size_t n = 0;
  while (!in.empty()) {
    size_t end = in.find('\n');
    std::string_view line = in.substr(0, end);
    in = end == std::string_view::npos ? std::string_view() : in.substr(end + 1);
    if (line.size() < 2) continue;
    float font = 4.0f + static_cast<float>(static_cast<uint8_t>(line[0]) % 40);
    uint8_t flags = static_cast<uint8_t>(line[1]);
    std::string text(line.substr(2));
    if (n == 0) doc.info_title = text;
    if (n == 1) doc.info_author = text;
    if (n++ == 0 || (flags & 1) || page.blocks.empty()) {
      page.blocks.emplace_back();
      page.blocks.back().x0 = 72;
      page.blocks.back().y0 = y;
    }
    bioagent::PdfBlock& b = page.blocks.back();
    bool rotated = flags & 2;
    bioagent::PdfLine box{72, y, rotated ? 90.0f : 540.0f, y + (rotated ? 300.0f : font * 1.2f), font};
    b.text += (b.lines.empty() ? "" : "\n") + text;
    b.lines.push_back(box);
    b.x1 = 540;
    b.y1 = box.y1;
    b.font_size = font;
    y = box.y1 + static_cast<float>(flags >> 2);
  }
  bioagent::PaperMetadata m = bioagent::extract_metadata(doc);
  if (m.title.size() > 400) std::abort();  // a title never grows past its cap
  return 0;
}
