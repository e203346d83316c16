// Chunks of tables laid out as rows, generated over the ways PDFs lay them out: cells in one block or
// one block per cell, cells that wrap (and sit centred beside them), a bold header or none, group
// labels, a table that runs on to the next page, margins around it; and prose that must stay prose
// (line-numbered preprints, two columns starting at the same height, too few rows, lists, captions).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "papers/page_chunks.h"

namespace bioagent {
namespace {

struct Layout {
  bool one_block_per_cell = false;
  bool header = false;
  bool wrapped = false;
  bool labels = false;
  bool continued = false;
};

// A block of lines (x, text) stacked from y0 down, or all at y0 when `beside`.
PdfBlock text_block(float x0, float y0, const std::vector<std::pair<float, std::string>>& lines, bool bold = false,
                    float width = 80, bool beside = false) {
  PdfBlock b;
  b.font_size = 9;
  float y = y0;
  for (auto& [x, t] : lines) {
    b.text += (b.text.empty() ? "" : "\n") + t;
    b.lines.push_back({x, y, x + width, y + 9, 9, bold});
    b.x1 = std::max(b.x1, x + width);
    if (!beside) y += 9;
  }
  b.x0 = x0, b.y0 = y0, b.y1 = beside ? y0 + 9 : y;
  return b;
}

// A row at height y: cells at x = 80, 200, 320; the first cell of a wrapped row takes two lines and the
// others sit centred beside it.
void add_row(PdfPage& page, float y, const std::vector<std::string>& cells, bool wrap, bool bold, bool per_cell) {
  PdfBlock row;
  row.font_size = 9;
  for (size_t c = 0; c < cells.size(); ++c) {
    const float x = 80 + 120.0f * float(c);
    PdfBlock cell = wrap && c == 0 ? text_block(x, y, {{x, cells[c] + " first"}, {x, "part"}}, bold)
                                   : text_block(x, wrap ? y + 4.5f : y, {{x, cells[c]}}, bold);
    if (per_cell) {
      page.blocks.push_back(cell);
      continue;
    }
    row.text += (row.text.empty() ? "" : "\n") + cell.text;
    row.lines.insert(row.lines.end(), cell.lines.begin(), cell.lines.end());
  }
  if (per_cell) return;
  row.x0 = 80, row.x1 = 400, row.y0 = y, row.y1 = y + (wrap ? 18 : 9);
  page.blocks.push_back(row);
}

PdfPage blank_page(int number) {
  PdfPage p;
  p.number = number, p.width = 612, p.height = 792;
  p.blocks.push_back(text_block(72, 30, {{72, "Running head of the paper"}, {480, std::to_string(number)}}));
  p.blocks.push_back(text_block(72, 750, {{72, "Journal footer 2024"}}));
  return p;
}

std::string row_name(int r) { return "Reagent" + std::to_string(r); }

// Two pages: prose, then the table (title, header, labels, rows), split across the pages when continued.
std::vector<std::vector<std::string>> chunk_pages(const Layout& l, int rows) {
  PdfPage first = blank_page(1), second = blank_page(2);
  first.blocks.push_back(
      text_block(72, 80, {{72, "Methods were as described before, with the reagents below."}}, false, 400));
  first.blocks.push_back(text_block(80, 100, {{80, "Key resources table"}}, true, 200));
  float y = 120;
  if (l.header) add_row(first, y, {"RESOURCE", "SOURCE", "IDENTIFIER"}, false, true, l.one_block_per_cell), y += 14;
  for (int r = 0; r < rows; ++r) {
    PdfPage& page = l.continued && r >= rows / 2 ? second : first;
    if (&page == &second && r == rows / 2) y = 80;
    if (l.labels && r % 3 == 0)
      page.blocks.push_back(text_block(80, y, {{80, "Group" + std::to_string(r / 3)}})), y += 14;
    add_row(page, y, {row_name(r), "Lab" + std::to_string(r), "ID:" + std::to_string(1000 + r)},
            l.wrapped && r % 2 == 1, false, l.one_block_per_cell);
    y += 24;
  }
  TableCarry carry;
  return {page_chunks(first, carry), page_chunks(second, carry)};
}

TEST(PageChunks, TableRowsCarryTheirTitleHeaderAndLabel) {
  for (int bits = 0; bits < 32; ++bits) {
    const Layout l{bool(bits & 1), bool(bits & 2), bool(bits & 4), bool(bits & 8), bool(bits & 16)};
    const int rows = 12;
    const auto pages = chunk_pages(l, rows);
    for (int r = 0; r < rows; ++r) {
      SCOPED_TRACE("layout " + std::to_string(bits) + ", row " + std::to_string(r));
      int found = 0;
      for (auto& chunks : pages)
        for (const std::string& chunk : chunks) {
          const size_t at = chunk.find(row_name(r) + (l.wrapped && r % 2 == 1 ? " first part" : "") + " | Lab");
          if (at == std::string::npos) continue;
          ++found;
          const std::string context = chunk.substr(0, chunk.find('\n'));
          EXPECT_EQ(context.rfind("Key resources table", 0), 0u) << chunk;
          if (l.header) {
            EXPECT_NE(context.find("RESOURCE | SOURCE | IDENTIFIER"), std::string::npos) << chunk;
          }
          if (l.labels) {
            EXPECT_NE(context.find("Group" + std::to_string(r / 3)), std::string::npos) << chunk;
          }
          EXPECT_NE(chunk.find(" | ID:" + std::to_string(1000 + r), at), std::string::npos) << "cells in order";
          EXPECT_LE(chunk.size(), 700u) << "a few rows per chunk";
          EXPECT_EQ(chunk.find("Running head"), std::string::npos) << "margins are not rows: " << chunk;
        }
      EXPECT_EQ(found, 1) << "each row in one chunk";
    }
  }
}

TEST(PageChunks, ProseStaysProse) {
  // A line-numbered preprint: every line a block of its own, its number in the margin beside it.
  PdfPage numbered = blank_page(3);
  for (int i = 0; i < 60; ++i)
    numbered.blocks.push_back(text_block(
        62, 80 + 10.0f * float(i),
        {{94, "the mutant pool was sequenced at high coverage alongside both parental lines " + std::to_string(i)},
         {62, std::to_string(200 + i)}},
        false, 18, true));
  // Two columns whose paragraphs start at the same heights (read column by column), and a pair of rows
  // too few for a table.
  PdfPage columns = blank_page(4);
  const std::string line(60, 'w');
  for (float x : {72.0f, 320.0f})
    for (int i = 0; i < 4; ++i)
      columns.blocks.push_back(
          text_block(x, 80 + 60.0f * float(i), {{x, line}, {x, line}, {x, line}, {x, line}}, false, 220));
  add_row(columns, 400, {"A", "B", "C"}, false, false, false);
  add_row(columns, 414, {"D", "E", "F"}, false, false, false);
  // A bulleted and a numbered list (the marker beside its item), and captions whose label sits beside
  // their text.
  PdfPage listed = blank_page(5);
  const std::vector<std::string> markers = {"•", "–", "1.", "(b)", "•"};
  for (size_t i = 0; i < markers.size(); ++i)
    listed.blocks.push_back(text_block(72, 80 + 12.0f * float(i),
                                       {{72, markers[i]}, {84, "Sequencing data have been deposited at SRA item"}},
                                       false, 10, true));
  for (const char* label : {"Table 1.", "Figure 2", "Table S3"})
    listed.blocks.push_back(text_block(72, 200, {{72, label}, {120, "Reagents and tools used"}}, true, 40, true));
  for (PdfPage* page : {&numbered, &columns, &listed}) {
    TableCarry carry;
    const auto chunks = page_chunks(*page, carry);
    ASSERT_FALSE(chunks.empty());
    for (const std::string& c : chunks) {
      EXPECT_LE(c.size(), 1400u);
      if (page != &columns) {
        EXPECT_EQ(c.find(" | "), std::string::npos) << "line numbers, list markers, caption labels: " << c;
      }
      EXPECT_EQ(c.find(" · "), std::string::npos) << "no table context on prose: " << c;
    }
    EXPECT_FALSE(carry.open);
  }
}

TEST(PageChunks, RowCellsReadLeftToRightAndWrappedCellsTopToBottom) {
  PdfPage page = blank_page(5);
  // Lines listed column by column, the short cell centred beside the wrapped one (as MuPDF gives them).
  PdfBlock b = text_block(37, 93, {{123, "Phospho S2 polymerase II (rat"}, {123, "monoclonal)"}});
  b.text = "Antibody\n" + b.text + "\nActive Motif";
  b.lines.insert(b.lines.begin(), PdfLine{37, 97.5f, 70, 106.5f, 9, false});
  b.lines.push_back({263, 97.5f, 306, 106.5f, 9, false});
  EXPECT_EQ(row_cells(page, b), "Antibody | Phospho S2 polymerase II (rat monoclonal) | Active Motif");
}

// A table printed without space between its rows, so that the extractor made one block of several rows
// (lines listed column by column, as MuPDF gives them): a row per baseline, over row and column counts,
// with a column whose two lines share each baseline; a cell that wrapped, or a cell missing on a baseline,
// keeps the block one row.
TEST(PageChunks, RowsStackedInOneBlockAreRowsEach) {
  PdfPage page = blank_page(3);
  for (size_t rows = 2; rows <= 5; ++rows)
    for (size_t cols = 3; cols <= 5; ++cols)
      for (bool paired : {false, true}) {
        PdfBlock b;
        b.font_size = 9;
        std::vector<std::string> want(rows);
        for (size_t c = 0; c < cols; ++c)
          for (size_t r = 0; r < rows; ++r) {
            const float x = 80 + 100.0f * float(c), y = 100 + 11.0f * float(r);
            std::string cell = "c" + std::to_string(c) + "r" + std::to_string(r);
            b.text += (b.text.empty() ? "" : "\n") + cell;
            b.lines.push_back({x, y, x + 30, y + 9, 9, false});
            if (paired && c == 1) {  // a second line on the same baseline, overlapping the cell's range
              b.text += "\nb" + std::to_string(r);
              b.lines.push_back({x + 20, y, x + 60, y + 9, 9, false});
              cell += " b" + std::to_string(r);
            }
            want[r] += (c ? " | " : "") + cell;
          }
        b.x0 = 80, b.x1 = 80 + 100.0f * float(cols), b.y0 = 100, b.y1 = 100 + 11.0f * float(rows);
        EXPECT_EQ(block_rows(page, b), want) << rows << " rows, " << cols << " columns";
        PdfPage one = blank_page(4);
        one.blocks.push_back(b);
        TableCarry carry;
        const auto chunks = page_chunks(one, carry);
        if (rows >= 3) EXPECT_TRUE(carry.open) << "a block of " << rows << " rows is a table";
        b.lines.pop_back();  // the last cell's last line gone: no longer a line of every cell on every baseline
        b.text = b.text.substr(0, b.text.rfind('\n'));
        EXPECT_EQ(block_rows(page, b).size(), 1u);
      }
  PdfBlock wrapped = text_block(37, 93, {{123, "Phospho S2 polymerase II (rat"}, {123, "monoclonal)"}});
  wrapped.text = "Antibody\n" + wrapped.text + "\nActive Motif";
  wrapped.lines.insert(wrapped.lines.begin(), PdfLine{37, 97.5f, 70, 106.5f, 9, false});
  wrapped.lines.push_back({263, 97.5f, 306, 106.5f, 9, false});
  EXPECT_EQ(block_rows(page, wrapped).size(), 1u);
}

}  // namespace
}  // namespace bioagent
