// The layout of a PDF as the paper library needs it: per page, text blocks
// (with their box, text and dominant font size, and each line's box and size),
// image blocks (with their box) and the boxes of everything drawn; the PDF's
// own metadata; a SHA-256 of the file. MuPDF underneath.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct PdfLine {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float font_size = 0;  // the size most of the line's characters have
  bool bold = false;    // most of its characters are in a bold font
};

struct PdfBlock {
  bool image = false;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::string text;            // text blocks: lines joined with '\n'
  float font_size = 0;         // the size most of the block's characters have
  std::vector<PdfLine> lines;  // one per '\n'-separated line of text
};

struct PdfRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct PdfPage {
  int number = 0;  // from 1
  float width = 0, height = 0;
  std::vector<PdfBlock> blocks;
  // Where the page draws: filled and stroked paths, shadings and images (at
  // most 20,000; none larger than most of the page). Vector figures have no
  // image block, so this is how their region is found.
  std::vector<PdfRect> graphics;
};

// The region of the figure a caption block describes: the cluster of
// graphics right above the caption (else right below it) that overlaps the
// caption's columns, with the text inside that band (axis labels). False when
// no graphics are near.
bool figure_region(const PdfPage& page, const PdfBlock& caption, PdfRect* out);

// The regions of the ruled tables (booktabs and most journals) that a page's
// table captions name. The horizontal rules of one table share their ends; a
// caption's candidates are the runs of such rules starting just under it or
// ending just above it (captioned below), each up to another caption; nearest
// pairs are matched first. Empty for a caption whose table has no rules.
std::vector<std::optional<PdfRect>> table_regions(const PdfPage& page, const std::vector<const PdfBlock*>& captions);

// The text blocks of a table without rules whose caption block `caption` sits
// under it: the rows clustered above the caption, when there are more of them
// than under it (else empty: the table follows its caption). A row is a text
// block that is short (under 40 characters a line) or shares its line with
// another block; a cluster grows from the caption while the next block on its
// side is a row, lies within 14 pt and overlaps the caption's columns; blocks
// with `stop[k]` set (other captions) end it. Indices in reading order.
std::vector<size_t> unruled_table_blocks(const PdfPage& page, size_t caption, const std::vector<char>& stop);

struct PdfDoc {
  std::string sha256;  // hex of the file's bytes
  std::string info_title, info_author, info_keywords, info_creation_date;
  std::vector<PdfPage> pages;
  int page_count = 0;
};

// A PDF file's bytes and their SHA-256, read once: the digest decides whether
// the paper is already in the library, the bytes go to the reader.
struct PdfFile {
  std::filesystem::path path;
  std::string bytes, sha256;
};
Result<PdfFile> load_pdf_file(const std::filesystem::path& path);

// Reads at most `max_pages` pages (0: all). Encrypted, truncated and non-PDF
// files are clear errors naming the file.
Result<PdfDoc> read_pdf_layout(const PdfFile& file, int max_pages = 0);

}  // namespace bioagent
