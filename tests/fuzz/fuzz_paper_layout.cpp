// Fuzzes what ingestion reads from a PDF's layout: front matter (title,
// authors, DOI, year, abstract), headings and sections, reference lists,
// captions, tables, equations and chunks, on made-up pages. Each input line
// is one text line: its first byte the font size (bit 7: graphics drawn
// beside it, bit 6: a table rule under it), its second byte flags (bit 0
// a new block, bit 1 rotated, bit 2 a new page, bit 3 bold, bit 4 an image
// block first, the rest the gap below; all three set: a cell beside the last
// line, as in a table's row), the rest its text; the first two lines are also
// the PDF's own title and author.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "papers/paper_extract.h"
#include "papers/paper_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  bioagent::PdfDoc doc;
  doc.sha256 = "fuzz";
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
    if (doc.pages.empty() || (flags & 4)) {
      doc.pages.emplace_back();
      doc.pages.back().number = static_cast<int>(doc.pages.size());
      doc.pages.back().width = 612;
      doc.pages.back().height = 792;
      y = 40;
    }
    bioagent::PdfPage& page = doc.pages.back();
    if (flags & 16) {
      bioagent::PdfBlock image;
      image.image = true;
      image.x0 = 100, image.y0 = y, image.x1 = 400, image.y1 = y + 120;
      page.blocks.push_back(image);
      y += 124;
    }
    if (n++ == 0 || (flags & 21) || page.blocks.empty() || page.blocks.back().image) {
      page.blocks.emplace_back();
      page.blocks.back().x0 = 72;
      page.blocks.back().y0 = y;
    }
    bioagent::PdfBlock& b = page.blocks.back();
    bool rotated = flags & 2;
    float x0 = 72.0f + static_cast<float>(flags >> 5) * 6.0f;  // indents for hanging reference lists
    bioagent::PdfLine box{
        x0, y, rotated ? 90.0f : 540.0f, y + (rotated ? 300.0f : font * 1.2f), font, (flags & 8) != 0};
    // All gap bits set: a cell beside the block's last line (a table row's next cell), not under it.
    const bool beside = (flags & 0xE0) == 0xE0 && !b.lines.empty();
    if (beside) {
      const bioagent::PdfLine& last = b.lines.back();
      const float x = std::min(last.x0 + 90.0f, 560.0f);
      box = {x, last.y0, x + 40.0f + static_cast<float>(text.size() % 60), last.y1, font, (flags & 8) != 0};
    }
    if (static_cast<uint8_t>(line[0]) & 0x80)  // something drawn beside the line (figure parts)
      page.graphics.push_back({x0 - font, y - font, 540.0f - static_cast<float>(flags), y + 3 * font});
    if (static_cast<uint8_t>(line[0]) & 0x40)  // a table rule under the line
      page.graphics.push_back({x0, y + font * 1.3f, 480.0f + static_cast<float>(flags & 7), y + font * 1.3f + 0.5f});
    b.text += (b.lines.empty() ? "" : "\n") + text;
    b.lines.push_back(box);
    b.x1 = std::max(540.0f, box.x1);
    b.y1 = std::max(b.y1, box.y1);
    b.font_size = font;
    if (!beside) y = box.y1 + static_cast<float>((flags >> 5) & 3);
  }
  doc.page_count = static_cast<int>(doc.pages.size());
  bioagent::PaperMetadata m = bioagent::extract_metadata(doc);
  if (m.title.size() > 400) std::abort();  // a title never grows past its cap
  bioagent::PreparedPaper p = bioagent::prepare_paper(doc, "fuzz.pdf");
  for (auto& r : p.rows)
    if (r.params.empty()) std::abort();  // every row is parameterised, never spliced
  return 0;
}
