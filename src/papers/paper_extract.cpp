// Extraction: a PDF's layout turned into rows of the paper schema (no database
// access, so many papers are prepared in parallel and written one at a time).
#include <mupdf/fitz.h>

#include <re2/re2.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "bioagent/json_text.h"
#include "bioagent/papers.h"
#include "papers/page_chunks.h"
#include "papers/paper_extract.h"
#include "papers/paper_metadata.h"
#include "papers/paper_references.h"
#include "papers/pdf_layout.h"

namespace bioagent {

namespace {

// A UUID from a SHA-256 of `seed` (deterministic: re-ingesting gives the same ids).
std::string derived_uuid(const std::string& seed) {
  std::string h = sha256_hex(seed);  // 64 hex digits; the UUID takes the first 32
  h[12] = '5';                       // version 5-like: name-based
  h[16] = "89ab"[std::stoi(h.substr(16, 1), nullptr, 16) & 3];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20, 12);
}

std::string join_list(const std::vector<std::string>& v) {  // for string_split(?, chr(31))
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "\x1f" : "") + v[i];
  return out;
}

// RE2, not std::regex: linear time, and std::regex's backtracking was a visible
// share of extraction.
// A caption: the label and number, then punctuation or a capitalised word
// ("Figure 3: …", "FIG. 1. …", "Table 2 Summary …"), not prose about it
// ("Figure 4 shows …", "Table 12 lists …").
const RE2 kFigure(R"(^\s*(?:Figure|FIGURE|Fig\.?|FIG\.?)\s*\d+[A-Za-z]?\s*(?:[\.:|\-–—]|\s[A-Z(\[]|$))");
const RE2 kTable(R"(^\s*(?:Table|TABLE)\s*(?:\d+|[IVX]+)\s*(?:[\.:|\-–—]|\s[A-Z(\[]|$))");
const RE2 kNumberedHeading(R"((?:\d+(?:\.\d+)*|[IVX]+)\.?\s+[A-Z][^\n]{0,90})");
const RE2 kSectionNumber(R"((?:\d+(?:\.\d+)*|[IVX]+)\.?)");
const RE2 kAppendixHeading(R"((?:Appendix\s+)?[A-H](?:\.\d+)*\.?:?\s+[A-Z][^\n]{0,90})");
const RE2 kSectionNumberPrefix(R"(^((?:\d+(?:\.\d+)*|[IVX]+)\.?\s+))");
const RE2 kAppendixNumber(R"([A-H](?:\.\d+)*\.?)");
// A display equation: a short block ending in an equation number "(3)" with a
// relation sign and more symbols than words.
const RE2 kEquationNumber(R"(\(\s*\d{1,3}[a-z]?\s*\)\s*$)");
bool looks_like_equation(const std::string& t) {
  if (t.size() < 5 || t.size() > 400 || !RE2::PartialMatch(t, kEquationNumber)) return false;
  static const char* kRelations[] = {"=", "≤", "≥", "≈", "∝", "<", ">", "∈"};
  bool relation = false;
  for (auto* r : kRelations) relation |= t.find(r) != std::string::npos;
  if (!relation) return false;
  size_t letters_in_words = 0, symbols = 0, word = 0;
  for (unsigned char c : t) {
    if (std::isalpha(c)) {
      ++word;
      continue;
    }
    if (word >= 4) letters_in_words += word;  // long runs of letters are prose
    word = 0;
    if (!std::isspace(c)) ++symbols;
  }
  if (word >= 4) letters_in_words += word;
  return letters_in_words < 2 * symbols;
}

bool known_heading(const std::string& t) {
  static const std::set<std::string> kNames = {"abstract",
                                               "introduction",
                                               "background",
                                               "methods",
                                               "materials and methods",
                                               "results",
                                               "discussion",
                                               "results and discussion",
                                               "conclusion",
                                               "conclusions",
                                               "references",
                                               "bibliography",
                                               "acknowledgements",
                                               "acknowledgments",
                                               "related work",
                                               "experiments",
                                               "literature cited",
                                               "supplementary material",
                                               "appendix"};
  std::string l = lower(t);
  while (!l.empty() && (l.back() == '.' || l.back() == ':' || l.back() == ' ')) l.pop_back();
  return kNames.count(l) > 0;
}

// An unnumbered subsection heading on a line of its own ("Search strategy and
// identification of studies"): short, capitalised, at most ten words, about
// body-sized (much larger text is a title), not ending a sentence.
bool plausible_subheading(const std::string& t, const PdfLine& line, int body) {
  if (t.size() < 3 || t.size() >= 80 || std::fabs(line.font_size - float(body)) > 1.5f) return false;
  if (!std::isupper(static_cast<unsigned char>(t[0])) || t.find_first_of(",;") != std::string::npos ||
      std::string(".:").find(t.back()) != std::string::npos)
    return false;
  size_t words = 1, letters = 0;
  for (char c : t) {
    words += c == ' ';
    letters += std::isalpha(static_cast<unsigned char>(c)) != 0;
  }
  return words <= 10 && letters * 2 > t.size();
}

// A block that is a heading, or opens with one: BMC and Hindawi set a heading
// as the first line of its paragraph's block, and "1" / "Introduction" or
// "I." / "INTRODUCTION" come as two lines. Known section names always count;
// numbered ones when bold, larger than the body, or a block of their own;
// after the reference list, lettered ones ("A Prompts", "B.2 Data") likewise;
// past the front matter, unnumbered subheadings: a line of its own clearly
// larger than the body (`subheadings` kLarge, also inside a reference list,
// where boxed notes follow it), or (kAll) a first line set apart from the
// next: bold above a line that is not, or larger than it.
enum class Subheadings { kNone, kLarge, kAll };
struct Heading {
  bool found = false;
  bool subheading = false;  // found by the unnumbered-subheading rule only
  std::string title, rest;  // rest: the block's text after the heading lines
  size_t rest_from = 0;     // the index of rest's first line in the block
};
Heading split_heading(const PdfBlock& b, int body, bool after_references, Subheadings subheadings) {
  // Only the first two lines are looked at (this runs for every block): no split of the whole text.
  Heading h;
  const size_t n_lines = static_cast<size_t>(std::count(b.text.begin(), b.text.end(), '\n')) + 1;
  if (n_lines != b.lines.size()) {  // no line boxes: the whole block or nothing
    std::string t = one_line(b.text);
    bool whole = t.size() < 100 && n_lines == 1 &&
                 (known_heading(t) || (RE2::FullMatch(t, kNumberedHeading) && b.font_size >= float(body) - 0.5f));
    if (whole) h = {true, false, t, ""};
    return h;
  }
  size_t end = b.text.find('\n');  // of the heading's lines so far
  std::string t = trim(b.text.substr(0, end), " ");
  size_t used = 1;
  if (n_lines > 1 && (RE2::FullMatch(t, kSectionNumber) || (after_references && RE2::FullMatch(t, kAppendixNumber)))) {
    size_t next = b.text.find('\n', end + 1);
    t += " " + trim(b.text.substr(end + 1, next == std::string::npos ? std::string::npos : next - end - 1), " ");
    end = next;
    ++used;
  }
  if (t.empty() || t.size() >= 100 || t.back() == '.' || t.back() == ',') return h;
  std::string name = t;
  if (std::string number; RE2::PartialMatch(t, kSectionNumberPrefix, &number)) name = t.substr(number.size());
  const PdfLine& line = b.lines[used - 1];
  bool numbered =
      (RE2::FullMatch(t, kNumberedHeading) ||
       (after_references && RE2::FullMatch(t, kAppendixHeading) && t.size() < 60)) &&
      (line.bold || line.font_size >= float(body) + 0.5f || (used == n_lines && line.font_size >= float(body) - 0.5f));
  const bool large = n_lines == 1 && line.font_size >= float(body) + 0.8f && t.find(' ') != std::string::npos;
  const bool set_apart =
      line.bold ? (n_lines == 1 || !b.lines[1].bold) : (n_lines > 1 && b.lines[1].font_size <= line.font_size - 0.4f);
  const bool subheading =
      used == 1 && plausible_subheading(t, line, body) &&
      ((subheadings != Subheadings::kNone && large) || (subheadings == Subheadings::kAll && set_apart));
  const bool named = known_heading(name) || known_heading(t) || numbered;
  if (!named && !subheading) return h;
  h = {true, !named, t, end == std::string::npos ? "" : b.text.substr(end + 1), used};
  return h;
}

bool mostly_capitals(const std::string& t) {
  size_t upper = 0, letters = 0;
  for (unsigned char c : t) {
    letters += std::isalpha(c) != 0;
    upper += std::isupper(c) != 0;
  }
  return letters > 0 && upper * 4 >= letters * 3;
}

std::string first_line(const std::string& t) { return t.substr(0, t.find('\n')); }

// The lines of `b` from `from` on, as a block of their own (`text` is theirs).
PdfBlock rest_of(const PdfBlock& b, size_t from, const std::string& text) {
  PdfBlock r = b;
  r.text = text;
  r.lines.assign(b.lines.begin() + static_cast<std::ptrdiff_t>(from), b.lines.end());
  r.y0 = r.lines.empty() ? b.y0 : r.lines.front().y0;
  return r;
}

bool is_references_heading(const std::string& t) {
  std::string l = lower(t);
  return l.find("references") != std::string::npos || l.find("bibliography") != std::string::npos ||
         l.find("literature cited") != std::string::npos;
}

}  // namespace

std::string paper_id_for_sha256(const std::string& sha256) { return derived_uuid("paper/" + sha256); }

Result<PreparedPaper> prepare_paper(const std::filesystem::path& pdf) {
  auto file = load_pdf_file(pdf);
  if (!file) return file.status();
  return prepare_paper(*file);
}

Result<PreparedPaper> prepare_paper(const PdfFile& file) {
  auto layout = read_pdf_layout(file);
  if (!layout) return layout.status();
  return prepare_paper(*layout, file.path);
}

PreparedPaper prepare_paper(const PdfDoc& doc, const std::filesystem::path& pdf) {
  PreparedPaper out;
  IngestReport& rep = out.report;
  std::vector<Row>& rows = out.rows;
  rep.paper_id = paper_id_for_sha256(doc.sha256);
  rep.pdf_path = std::filesystem::absolute(pdf).string();
  rep.num_pages = doc.page_count;
  auto id = [&](const std::string& kind, size_t n) {
    return derived_uuid(doc.sha256 + "/" + kind + "/" + std::to_string(n));
  };
  auto box = [](float x0, float y0, float x1, float y1) {
    return std::vector<SqlParam>{int64_t(std::lround(x0)), int64_t(std::lround(y0)), int64_t(std::lround(x1 - x0)),
                                 int64_t(std::lround(y1 - y0))};
  };
  // Body font size: the size most text blocks have (headings are not smaller).
  std::map<int, size_t> size_votes;
  size_t total_chars = 0;
  for (auto& p : doc.pages)
    for (auto& b : p.blocks)
      if (!b.image) {
        size_votes[static_cast<int>(std::lround(b.font_size))] += b.text.size();
        total_chars += b.text.size();
      }
  int body = 10;
  size_t best = 0;
  for (auto& [s, n] : size_votes)
    if (n > best) {
      best = n;
      body = s;
    }
  if (total_chars == 0)
    rep.warnings.push_back("no text layer: the PDF looks scanned (pages stored without text; OCR is not run)");

  // Title, authors, DOI, year, abstract.
  const PaperMetadata meta = extract_metadata(doc);
  const std::string& title = meta.title;
  rep.title = title;

  // Pages, captions (figures, tables), sections, references, chunks.
  size_t image_n = 0, table_n = 0, chunk_n = 0, section_n = 0, ref_n = 0, equation_n = 0;
  // The encodable text of the rows (blank cells are not indexed: SQL's trim() removes spaces only).
  auto index = [&](const char* table, const char* column, const std::string& key, int64_t page,
                   const std::string& text) {
    if (text.find_first_not_of(' ') == std::string::npos) return;
    out.entries.push_back({table, column, key, rep.paper_id, int(page), text});
  };
  struct Section {
    std::string title, content;
    std::set<int64_t> pages;
  };
  std::vector<Section> sections;
  bool in_references = false, seen_references = false;
  ReferenceList references;
  TableCarry table_carry;  // a table of rows running on from one page to the next
  for (const PdfPage& page : doc.pages) {
    const std::string page_id = id("page", static_cast<size_t>(page.number));
    const std::string content = page_text(page);
    rows.push_back({"INSERT INTO pages VALUES (?, ?, ?, ?, ?, NULL, ?)",
                    {page_id, int64_t(page.number), int64_t(std::lround(page.width)), int64_t(std::lround(page.height)),
                     content, rep.paper_id}});
    index("pages", "page_content", page_id, page.number, content);
    std::set<size_t> used_images;
    // Table captions, found once: their ruled tables are paired per page.
    std::vector<char> table_caption(page.blocks.size(), 0);
    std::map<const PdfBlock*, PdfRect> tables_on_page;  // the ruled tables the page's table captions name
    {
      std::vector<const PdfBlock*> captions;
      for (size_t k = 0; k < page.blocks.size(); ++k)
        if (!page.blocks[k].image && RE2::PartialMatch(one_line(page.blocks[k].text), kTable)) {
          table_caption[k] = 1;
          captions.push_back(&page.blocks[k]);
        }
      auto regions = table_regions(page, captions);
      for (size_t k = 0; k < captions.size(); ++k)
        if (regions[k]) tables_on_page[captions[k]] = *regions[k];
    }
    for (size_t i = 0; i < page.blocks.size(); ++i) {
      const PdfBlock& b = page.blocks[i];
      if (b.image) continue;
      std::string t = one_line(b.text);
      if (looks_like_equation(t)) {
        rows.push_back({"INSERT INTO equations VALUES (?, ?, ?, ?, ?)",
                        {id("equation", equation_n), t, int64_t(equation_n), rep.paper_id, page_id}});
        index("equations", "equation_content", id("equation", equation_n), page.number, t);
        ++equation_n;
        continue;
      }
      if (RE2::PartialMatch(t, kFigure)) {
        // The figure: the graphics drawn next to the caption (vector or raster),
        // else the nearest image block, else the region above the caption.
        std::vector<SqlParam> bb;
        if (PdfRect r; figure_region(page, b, &r)) {
          bb = box(r.x0, r.y0, r.x1, r.y1);
          for (size_t k = 0; k < page.blocks.size(); ++k) {
            const PdfBlock& im = page.blocks[k];
            if (im.image && im.x0 >= r.x0 - 1 && im.x1 <= r.x1 + 1 && im.y0 >= r.y0 - 1 && im.y1 <= r.y1 + 1)
              used_images.insert(k);
          }
        }
        if (bb.empty()) {
          size_t nearest = SIZE_MAX;
          float dist = 1e9f;
          for (size_t k = 0; k < page.blocks.size(); ++k) {
            const PdfBlock& im = page.blocks[k];
            if (!im.image || used_images.count(k)) continue;
            float d = std::min(std::fabs(b.y0 - im.y1), std::fabs(im.y0 - b.y1));
            if (d < dist) {
              dist = d;
              nearest = k;
            }
          }
          if (nearest != SIZE_MAX && dist < page.height * 0.5f) {
            used_images.insert(nearest);
            const PdfBlock& im = page.blocks[nearest];
            bb = box(im.x0, im.y0, im.x1, im.y1);
          } else {
            float top = 0;
            for (auto& o : page.blocks)
              if (!o.image && o.y1 <= b.y0 && o.y1 > top && &o != &b) top = o.y1;
            bb = box(b.x0, top, std::max(b.x1, b.x0 + 50), b.y0);
          }
        }
        Row r{"INSERT INTO images VALUES (?, ?, NULL, [?, ?, ?, ?]::INTEGER[4], ?, ?, ?)", {id("image", image_n), t}};
        index("images", "image_caption", id("image", image_n), page.number, t);
        r.params.insert(r.params.end(), bb.begin(), bb.end());
        r.params.insert(r.params.end(), {int64_t(image_n), rep.paper_id, page_id});
        rows.push_back(r);
        ++image_n;
        continue;
      }
      if (table_caption[i]) {
        // A ruled table: the text inside its rules (captioned above or below
        // it). Else, when the caption sits under the table, the rows clustered
        // above it; else the text blocks after the caption, up to the next one.
        std::string body_text;
        float y1 = b.y1;
        std::vector<SqlParam> bb;
        if (auto ruled = tables_on_page.find(&b); ruled != tables_on_page.end()) {
          const PdfRect& r = ruled->second;
          bb = box(r.x0, r.y0, r.x1, r.y1);
          for (auto& tb : page.blocks) {
            float cy = (tb.y0 + tb.y1) / 2, cx = (tb.x0 + tb.x1) / 2;
            if (!tb.image && &tb != &b && cy > r.y0 && cy < r.y1 && cx > r.x0 && cx < r.x1)
              body_text += (body_text.empty() ? "" : "\n") + tb.text;
          }
        }
        if (bb.empty()) {
          std::vector<char> stop(table_caption);
          for (size_t k = 0; k < page.blocks.size(); ++k)
            stop[k] |= !page.blocks[k].image && RE2::PartialMatch(one_line(page.blocks[k].text), kFigure);
          PdfRect r{b.x0, b.y0, b.x1, b.y1};
          for (size_t k : unruled_table_blocks(page, i, stop)) {
            const PdfBlock& tb = page.blocks[k];
            body_text += (body_text.empty() ? "" : "\n") + tb.text;
            r = {std::min(r.x0, tb.x0), std::min(r.y0, tb.y0), std::max(r.x1, tb.x1), std::max(r.y1, tb.y1)};
          }
          if (!body_text.empty()) bb = box(r.x0, r.y0, r.x1, r.y1);
        }
        for (size_t k = i + 1; bb.empty() && k < page.blocks.size() && body_text.size() < 3000; ++k) {
          const PdfBlock& nb = page.blocks[k];
          if (nb.image) continue;
          const std::string nt = one_line(nb.text);
          if (RE2::PartialMatch(nt, kFigure) || table_caption[k]) break;
          body_text += (body_text.empty() ? "" : "\n") + nb.text;
          y1 = std::max(y1, nb.y1);
          if (body_text.size() > 1500) break;
        }
        Row r{"INSERT INTO tables VALUES (?, ?, ?, NULL, [?, ?, ?, ?]::INTEGER[4], ?, ?, ?)",
              {id("table", table_n), t, body_text}};
        index("tables", "table_caption", id("table", table_n), page.number, t);
        index("tables", "table_content", id("table", table_n), page.number, body_text);
        if (bb.empty()) bb = box(b.x0, b.y0, b.x1, y1);
        r.params.insert(r.params.end(), bb.begin(), bb.end());
        r.params.insert(r.params.end(), {int64_t(table_n), rep.paper_id, page_id});
        rows.push_back(r);
        ++table_n;
        continue;
      }
      // Headings start sections; the reference list is split into entries.
      // (Running heads such as "2 Rehabilitation Research and Practice" sit in the top margin.)
      Heading heading = b.y1 < page.height * 0.07f ? Heading{}
                                                   : split_heading(b, body, seen_references,
                                                                   sections.empty() ? Subheadings::kNone
                                                                   : in_references  ? Subheadings::kLarge
                                                                                    : Subheadings::kAll);
      if (heading.found) {
        sections.push_back({heading.title, "", {page.number}});
        // A boxed note's heading among the references ("Main messages") does not end them.
        if (!(in_references && heading.subheading)) {
          references.end();
          in_references = is_references_heading(heading.title);
        }
        seen_references |= in_references;
        // "METHODS" then "Search strategy ..." in one block: the subheading under it
        // (not the second line of a heading in capitals, "II. SELF-CONSISTENT ..." / "LARGE z LIMIT").
        if (Heading sub;
            !in_references && !heading.rest.empty() && b.lines.size() > heading.rest_from &&
            !(mostly_capitals(heading.title) && mostly_capitals(first_line(heading.rest))) &&
            (sub = split_heading(rest_of(b, heading.rest_from, heading.rest), body, seen_references, Subheadings::kAll))
                .found) {
          sections.push_back({sub.title, "", {page.number}});
          heading.rest = sub.rest;
          heading.rest_from += sub.rest_from;
        }
        if (heading.rest.empty()) continue;
      }
      const std::string& text = heading.found ? heading.rest : b.text;
      if (!sections.empty()) {
        sections.back().content += (sections.back().content.empty() ? "" : "\n") + text;
        sections.back().pages.insert(page.number);
      }
      if (in_references) references.add_block(b, heading.found ? heading.rest_from : 0, page_id, page.number);
    }
    for (size_t k = 0; k < page.blocks.size(); ++k) {  // images no caption claimed, if not tiny
      const PdfBlock& im = page.blocks[k];
      if (!im.image || used_images.count(k) || (im.x1 - im.x0) < 50 || (im.y1 - im.y0) < 50) continue;
      Row r{"INSERT INTO images VALUES (?, '', NULL, [?, ?, ?, ?]::INTEGER[4], ?, ?, ?)", {id("image", image_n)}};
      auto bb = box(im.x0, im.y0, im.x1, im.y1);
      r.params.insert(r.params.end(), bb.begin(), bb.end());
      r.params.insert(r.params.end(), {int64_t(image_n), rep.paper_id, page_id});
      rows.push_back(r);
      ++image_n;
    }
    for (const std::string& chunk : page_chunks(page, table_carry)) {
      rows.push_back({"INSERT INTO chunks VALUES (?, ?, ?, ?, ?)",
                      {id("chunk", chunk_n), chunk, int64_t(chunk_n), rep.paper_id, page_id}});
      index("chunks", "text_content", id("chunk", chunk_n), page.number, chunk);
      ++chunk_n;
    }
  }
  if (references.entries().empty())
    add_unheaded_references(
        doc, body, [&](int n) { return id("page", static_cast<size_t>(n)); }, references);
  for (auto& r : references.entries()) {
    rows.push_back({"INSERT INTO reference VALUES (?, ?, ?, ?, ?)",
                    {id("reference", ref_n), r.text, int64_t(ref_n), rep.paper_id, r.page_id}});
    index("reference", "reference_content", id("reference", ref_n), r.page, r.text);
    ++ref_n;
  }
  for (auto& s : sections) {
    std::vector<std::string> pages;
    for (auto p : s.pages) pages.push_back(std::to_string(p));
    rows.push_back(
        {"INSERT INTO sections VALUES (?, ?, ?, NULL, ?, CAST(string_split(?, chr(31)) AS INTEGER[]), ?)",
         {id("section", section_n), s.title, s.content, int64_t(section_n), join_list(pages), rep.paper_id}});
    index("sections", "section_title", id("section", section_n), s.pages.empty() ? -1 : *s.pages.begin(), s.title);
    index("sections", "section_content", id("section", section_n), s.pages.empty() ? -1 : *s.pages.begin(), s.content);
    ++section_n;
  }
  // metadata last: a paper is visible once its metadata row is (and all rows commit together).
  rows.push_back(
      {"INSERT INTO metadata (paper_id, title, abstract, num_pages, pub_year, authors, pdf_path, tags, doi, sha256)"
       " VALUES (?, ?, ?, ?, ?, list_filter(string_split(?, chr(31)), x -> x <> ''), ?,"
       " list_filter(string_split(?, chr(31)), x -> x <> ''), ?, ?)",
       {rep.paper_id, title, meta.abstract.empty() ? SqlParam(nullptr) : SqlParam(meta.abstract),
        int64_t(doc.page_count), meta.year ? SqlParam(meta.year) : SqlParam(nullptr), join_list(meta.authors),
        rep.pdf_path, join_list(meta.keywords), meta.doi.empty() ? SqlParam(nullptr) : SqlParam(meta.doi),
        doc.sha256}});
  index("metadata", "title", rep.paper_id, -1, title);
  if (!meta.abstract.empty()) index("metadata", "abstract", rep.paper_id, -1, meta.abstract);
  std::sort(out.entries.begin(), out.entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
    return std::tie(a.table_name, a.column_name, a.primary_key) < std::tie(b.table_name, b.column_name, b.primary_key);
  });
  rep.chunks = chunk_n;
  rep.images = image_n;
  rep.tables = table_n;
  rep.equations = equation_n;
  rep.sections = section_n;
  rep.references = ref_n;
  return out;
}

}  // namespace bioagent
