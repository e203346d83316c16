// MuPDF reports errors with setjmp/longjmp (fz_try): no C++ object with a
// destructor is created inside those blocks; results are copied out after.
#include "papers/pdf_layout.h"

#include "bioagent/digest.h"
#include "bioagent/text_extract.h"

#include <mupdf/fitz.h>

#include "text/mupdf_context.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

namespace bioagent {
namespace {

// A device that passes text and images on to the structured-text device and
// records the box of everything drawn (one interpretation of the page serves
// both). Only calls that need no clip stack are passed on.
struct GraphicsTee {
  fz_device super;
  fz_device* text;
  PdfPage* page;
  float max_area;
};

// The visible part of what is drawn: clipped to the current clip (the tee
// keeps MuPDF's clip stack, so a figure's clip path bounds its paths).
void record(fz_context* ctx, fz_device* dev, fz_rect r) {
  auto* t = reinterpret_cast<GraphicsTee*>(dev);
  r = fz_intersect_rect(r, fz_device_current_scissor(ctx, dev));
  if (fz_is_empty_rect(r) || fz_is_infinite_rect(r) || t->page->graphics.size() >= 20000) return;
  if ((r.x1 - r.x0) * (r.y1 - r.y0) > t->max_area) return;  // page backgrounds
  try {
    t->page->graphics.push_back({r.x0, r.y0, r.x1, r.y1});
  } catch (...) {  // out of memory: the box is lost, not the page
  }
}
fz_device* inner(fz_device* dev) { return reinterpret_cast<GraphicsTee*>(dev)->text; }

void tee_fill_path(fz_context* ctx, fz_device* dev, const fz_path* path, int, fz_matrix ctm, fz_colorspace*,
                   const float*, float, fz_color_params) {
  record(ctx, dev, fz_bound_path(ctx, path, nullptr, ctm));
}
void tee_stroke_path(fz_context* ctx, fz_device* dev, const fz_path* path, const fz_stroke_state* stroke, fz_matrix ctm,
                     fz_colorspace*, const float*, float, fz_color_params) {
  // The line's own extent plus half its width: MuPDF's stroked bound allows for
  // miter joins and made a 0.5 pt table rule 6-13 pt tall.
  float half = stroke ? std::max(0.25f, stroke->linewidth * fz_matrix_expansion(ctm) / 2) : 0.25f;
  record(ctx, dev, fz_expand_rect(fz_bound_path(ctx, path, nullptr, ctm), half));
}
void tee_fill_shade(fz_context* ctx, fz_device* dev, fz_shade* shade, fz_matrix ctm, float alpha, fz_color_params cp) {
  record(ctx, dev, fz_bound_shade(ctx, shade, ctm));
  // Not passed on: the text device would render the shading into an image
  // (needing a clip stack it no longer sees), and shadings are not pictures.
  (void)alpha;
  (void)cp;
}
void tee_fill_image(fz_context* ctx, fz_device* dev, fz_image* image, fz_matrix ctm, float alpha, fz_color_params cp) {
  record(ctx, dev, fz_transform_rect(fz_unit_rect, ctm));
  if (inner(dev)->fill_image) inner(dev)->fill_image(ctx, inner(dev), image, ctm, alpha, cp);
}
void tee_fill_image_mask(fz_context* ctx, fz_device* dev, fz_image* image, fz_matrix ctm, fz_colorspace* cs,
                         const float* color, float alpha, fz_color_params cp) {
  record(ctx, dev, fz_transform_rect(fz_unit_rect, ctm));
  if (inner(dev)->fill_image_mask) inner(dev)->fill_image_mask(ctx, inner(dev), image, ctm, cs, color, alpha, cp);
}
void tee_fill_text(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm, fz_colorspace* cs,
                   const float* color, float alpha, fz_color_params cp) {
  if (inner(dev)->fill_text) inner(dev)->fill_text(ctx, inner(dev), text, ctm, cs, color, alpha, cp);
}
void tee_stroke_text(fz_context* ctx, fz_device* dev, const fz_text* text, const fz_stroke_state* stroke, fz_matrix ctm,
                     fz_colorspace* cs, const float* color, float alpha, fz_color_params cp) {
  if (inner(dev)->stroke_text) inner(dev)->stroke_text(ctx, inner(dev), text, stroke, ctm, cs, color, alpha, cp);
}
void tee_clip_text(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm, fz_rect scissor) {
  if (inner(dev)->clip_text) inner(dev)->clip_text(ctx, inner(dev), text, ctm, scissor);
}
void tee_clip_stroke_text(fz_context* ctx, fz_device* dev, const fz_text* text, const fz_stroke_state* stroke,
                          fz_matrix ctm, fz_rect scissor) {
  if (inner(dev)->clip_stroke_text) inner(dev)->clip_stroke_text(ctx, inner(dev), text, stroke, ctm, scissor);
}
void tee_ignore_text(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm) {
  if (inner(dev)->ignore_text) inner(dev)->ignore_text(ctx, inner(dev), text, ctm);
}

fz_device* new_graphics_tee(fz_context* ctx, fz_device* text, PdfPage* page) {
  auto* t = fz_new_derived_device(ctx, GraphicsTee);
  t->text = text;
  t->page = page;
  t->max_area = 0.8f * page->width * page->height;
  t->super.hints = text->hints;
  t->super.fill_path = tee_fill_path;
  t->super.stroke_path = tee_stroke_path;
  t->super.fill_shade = tee_fill_shade;
  t->super.fill_image = tee_fill_image;
  t->super.fill_image_mask = tee_fill_image_mask;
  t->super.fill_text = tee_fill_text;
  t->super.stroke_text = tee_stroke_text;
  t->super.clip_text = tee_clip_text;
  t->super.clip_stroke_text = tee_clip_stroke_text;
  t->super.ignore_text = tee_ignore_text;
  return &t->super;
}

// A text block's lines (with their dominant font size and boldness), its text
// and its dominant font size.
void read_text_block(fz_context* ctx, fz_stext_block* b, PdfBlock& pb) {
  // Characters per font size in tenths of a point, for the block and for
  // each line (trivial arrays: see above; only touched slots are cleared).
  int sizes[1001] = {0}, line_sizes[1001] = {0}, touched[64];
  for (fz_stext_line* l = b->u.t.first_line; l; l = l->next) {
    if (l != b->u.t.first_line) pb.text += '\n';
    int n_touched = 0, line_best = 0, chars = 0, bold = 0;
    for (fz_stext_char* ch = l->first_char; ch; ch = ch->next, ++chars) {
      bold += ch->font && fz_font_is_bold(ctx, ch->font);
      char buf[8];
      int n = fz_runetochar(buf, ch->c);
      pb.text.append(buf, static_cast<size_t>(n));
      int s = std::min(1000, std::max(0, static_cast<int>(ch->size * 10)));
      sizes[s]++;
      if (line_sizes[s]++ == 0 && n_touched < 64) touched[n_touched++] = s;
      if (line_sizes[s] > line_sizes[line_best]) line_best = s;
    }
    pb.lines.push_back(
        {l->bbox.x0, l->bbox.y0, l->bbox.x1, l->bbox.y1, static_cast<float>(line_best) / 10.0f, 2 * bold > chars});
    for (int k = 0; k < n_touched; ++k) line_sizes[touched[k]] = 0;
    if (n_touched == 64) std::fill(std::begin(line_sizes), std::end(line_sizes), 0);
  }
  int best = 0, count = 0;
  for (int s = 0; s <= 1000; ++s) {
    if (sizes[s] > count) {
      best = s;
      count = sizes[s];
    }
  }
  pb.font_size = static_cast<float>(best) / 10.0f;
}

// MuPDF's page space keeps the MediaBox's origin; the rendered page starts at
// the CropBox's corner (dx, dy). Every box is stored relative to that corner.
void shift_to_crop_box(PdfPage* out, float dx, float dy) {
  if (dx == 0 && dy == 0) return;
  auto shift = [&](auto& r) { r.x0 -= dx, r.x1 -= dx, r.y0 -= dy, r.y1 -= dy; };
  for (auto& b : out->blocks) {
    shift(b);
    for (auto& l : b.lines) shift(l);
  }
  for (auto& g : out->graphics) shift(g);
}

void read_page(fz_context* ctx, fz_document* doc, int index, PdfPage* out) {
  fz_page* page = fz_load_page(ctx, doc, index);
  fz_stext_page* st = nullptr;
  fz_device *text_dev = nullptr, *tee = nullptr;
  fz_var(st);
  fz_var(text_dev);
  fz_var(tee);
  fz_try(ctx) {
    fz_rect bounds = fz_bound_page(ctx, page);
    out->number = index + 1;
    out->width = bounds.x1 - bounds.x0;
    out->height = bounds.y1 - bounds.y0;
    fz_stext_options opts = {};
    opts.flags = FZ_STEXT_PRESERVE_IMAGES;
    st = fz_new_stext_page(ctx, bounds);
    text_dev = fz_new_stext_device(ctx, st, &opts);
    tee = new_graphics_tee(ctx, text_dev, out);
    fz_run_page_contents(ctx, page, tee, fz_identity, nullptr);
    fz_close_device(ctx, tee);
    fz_close_device(ctx, text_dev);
    for (fz_stext_block* b = st->first_block; b; b = b->next) {
      out->blocks.emplace_back();
      PdfBlock& pb = out->blocks.back();
      pb.x0 = b->bbox.x0;
      pb.y0 = b->bbox.y0;
      pb.x1 = b->bbox.x1;
      pb.y1 = b->bbox.y1;
      if (b->type == FZ_STEXT_BLOCK_IMAGE) {
        pb.image = true;
        continue;
      }
      read_text_block(ctx, b, pb);
    }
    shift_to_crop_box(out, bounds.x0, bounds.y0);
  }
  fz_always(ctx) {
    fz_drop_device(ctx, tee);
    fz_drop_device(ctx, text_dev);
    fz_drop_stext_page(ctx, st);
    fz_drop_page(ctx, page);
  }
  fz_catch(ctx) { fz_rethrow(ctx); }
}

bool page_furniture(const PdfPage& page, const PdfRect& g) {  // margin bars and full-width rules
  return g.y1 < 0.07f * page.height || g.y0 > 0.93f * page.height || g.x1 - g.x0 > 0.9f * page.width;
}

bool starts_caption(const std::string& text) {
  for (const char* label : {"Table", "TABLE", "Figure", "FIGURE", "Fig.", "FIG."})
    if (text.rfind(label, 0) == 0) return true;
  return false;
}

}  // namespace

bool figure_region(const PdfPage& page, const PdfBlock& caption, PdfRect* out) {
  constexpr float kGap = 24;  // points between the parts of one figure, and to its caption
  auto overlap_x = [](const PdfRect& a, float x0, float x1) { return a.x0 < x1 && x0 < a.x1; };
  for (int below = 0; below < 2; ++below) {  // captioned below the figure first, then above it
    std::vector<const PdfRect*> near;
    for (auto& g : page.graphics) {
      if (!page_furniture(page, g) && (below ? g.y0 >= caption.y1 - 2 : g.y1 <= caption.y0 + 2)) near.push_back(&g);
    }
    std::sort(near.begin(), near.end(),
              [&](const PdfRect* a, const PdfRect* b) { return below ? a->y0 < b->y0 : a->y1 > b->y1; });
    PdfRect r{caption.x0, 0, caption.x1, 0};
    bool any = false;
    float edge = below ? caption.y1 : caption.y0;  // how far the cluster reaches
    // Passes until nothing joins: a box beside the cluster joins once an arrow
    // reaching it has (a flow chart's second column). At most 8 passes.
    std::vector<char> joined(near.size(), 0);
    for (int pass = 0, grew = 1; grew && pass < 8; ++pass) {
      grew = 0;
      for (size_t k = 0; k < near.size(); ++k) {
        const PdfRect* g = near[k];
        if ((below ? g->y0 - edge : edge - g->y1) > kGap) {
          if (pass == 0) break;  // sorted outward: the rest are farther still
          continue;
        }
        if (joined[k] || !overlap_x(*g, r.x0, r.x1)) continue;  // the other column, for now
        if (!any) r = *g;
        r = {std::min(r.x0, g->x0), std::min(r.y0, g->y0), std::max(r.x1, g->x1), std::max(r.y1, g->y1)};
        any = true;
        joined[k] = grew = 1;
        edge = below ? std::max(edge, g->y1) : std::min(edge, g->y0);
      }
    }
    if (!any || r.x1 - r.x0 < 20 || r.y1 - r.y0 < 20) continue;  // a rule or a bullet, not a figure
    for (auto& b : page.blocks)                                  // labels inside the figure's band
      if (!b.image && &b != &caption && b.y0 >= r.y0 - 2 && b.y1 <= r.y1 + 2 && b.x0 >= r.x0 - 30 && b.x1 <= r.x1 + 30)
        r = {std::min(r.x0, b.x0), r.y0, std::max(r.x1, b.x1), r.y1};
    *out = r;
    return true;
  }
  return false;
}

namespace {

struct TableCandidate {
  float dist;      // from the caption to the table's nearest rule
  size_t caption;  // index into the captions
  PdfRect box;
};

// The runs of rules just above and just below one caption.
void table_candidates(const PdfPage& page, const PdfBlock& caption, size_t index, std::vector<TableCandidate>& out) {
  constexpr float kReach = 40;  // from the caption to the table's first or last rule
  std::vector<const PdfRect*> rules;
  for (auto& g : page.graphics)
    if (g.y1 - g.y0 <= 2.5f && g.x1 - g.x0 >= 40 && !page_furniture(page, g) && g.x0 < caption.x1 && caption.x0 < g.x1)
      rules.push_back(&g);
  // Another caption between two rules ends the run: the next table's rules may share the ends.
  auto caption_between = [&](float ya, float yb) {
    for (auto& b : page.blocks)
      if (!b.image && &b != &caption && b.y0 >= std::min(ya, yb) && b.y1 <= std::max(ya, yb) && starts_caption(b.text))
        return true;
    return false;
  };
  for (int below = 0; below < 2; ++below) {
    std::vector<const PdfRect*> side;
    for (auto* g : rules)
      if (below ? g->y0 >= caption.y1 - 2 : g->y1 <= caption.y0 + 2) side.push_back(g);
    std::sort(side.begin(), side.end(),
              [&](const PdfRect* a, const PdfRect* b) { return below ? a->y0 < b->y0 : a->y1 > b->y1; });
    if (side.empty()) continue;
    const PdfRect* first = side.front();
    float dist = below ? first->y0 - caption.y1 : caption.y0 - first->y1;
    if (dist > kReach) continue;
    PdfRect r = *first;
    float last = below ? first->y1 : first->y0;
    size_t same = 1;
    for (size_t k = 1; k < side.size(); ++k) {
      const PdfRect* g = side[k];
      if (std::fabs(g->x0 - first->x0) > 3 || std::fabs(g->x1 - first->x1) > 3) continue;  // not this table's rule
      if (caption_between(last, below ? g->y0 : g->y1)) break;
      r = {std::min(r.x0, g->x0), std::min(r.y0, g->y0), std::max(r.x1, g->x1), std::max(r.y1, g->y1)};
      last = below ? g->y1 : g->y0;
      ++same;
    }
    if (same >= 2 && r.y1 - r.y0 >= 10) out.push_back({dist, index, r});  // one rule is a separator, not a table
  }
}

}  // namespace

std::vector<std::optional<PdfRect>> table_regions(const PdfPage& page, const std::vector<const PdfBlock*>& captions) {
  std::vector<std::optional<PdfRect>> out(captions.size());
  if (captions.empty() || captions.size() > 8) return out;  // (8: 3^8 choices below; more is not a page of tables)
  std::vector<std::vector<TableCandidate>> options(captions.size());
  {
    std::vector<TableCandidate> all;
    for (size_t i = 0; i < captions.size(); ++i) table_candidates(page, *captions[i], i, all);
    for (auto& c : all) options[c.caption].push_back(c);
  }
  // Each caption takes its table above, below or none, no table twice: the
  // choice that names the most tables, then the nearest. "Table 5" under its
  // table and "Table 6" under the next sit between two tables each; taking
  // the nearest pair first gave Table 5 the table of Table 6.
  auto overlap = [](const PdfRect& a, const PdfRect& b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  };
  std::vector<const TableCandidate*> pick(captions.size(), nullptr), best_pick = pick;
  size_t best_count = 0;
  float best_dist = 0;
  auto search = [&](auto&& self, size_t i, size_t count, float dist) -> void {
    if (i == captions.size()) {
      if (count > best_count || (count == best_count && count > 0 && dist < best_dist)) {
        best_count = count;
        best_dist = dist;
        best_pick = pick;
      }
      return;
    }
    pick[i] = nullptr;
    self(self, i + 1, count, dist);
    for (auto& c : options[i]) {
      bool free = true;
      for (size_t k = 0; k < i; ++k) free &= !pick[k] || !overlap(pick[k]->box, c.box);
      if (!free) continue;
      pick[i] = &c;
      self(self, i + 1, count + 1, dist + c.dist);
      pick[i] = nullptr;
    }
  };
  search(search, 0, 0, 0.0f);
  for (size_t i = 0; i < captions.size(); ++i)
    if (best_pick[i]) out[i] = best_pick[i]->box;
  return out;
}

std::vector<size_t> unruled_table_blocks(const PdfPage& page, size_t caption, const std::vector<char>& stop) {
  const PdfBlock& cap = page.blocks[caption];
  auto is_row = [&](size_t k) {
    const PdfBlock& b = page.blocks[k];
    const size_t lines = static_cast<size_t>(std::count(b.text.begin(), b.text.end(), '\n')) + 1;
    if (b.text.size() < 40 * lines) return true;
    for (size_t o = 0; o < page.blocks.size(); ++o) {
      const PdfBlock& other = page.blocks[o];
      if (o != k && !other.image && std::fabs(other.y0 - b.y0) < 3 && (other.x1 <= b.x0 || other.x0 >= b.x1))
        return true;
    }
    return false;
  };
  std::vector<size_t> sides[2];  // 0: under the caption, 1: above it
  for (int above = 0; above < 2; ++above) {
    std::vector<size_t> order;
    for (size_t k = 0; k < page.blocks.size(); ++k) {
      const PdfBlock& b = page.blocks[k];
      if (k == caption || b.image || b.text.empty() || b.x0 >= cap.x1 || b.x1 <= cap.x0) continue;
      if (above ? b.y1 <= cap.y0 + 2 : b.y0 >= cap.y1 - 2) order.push_back(k);
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return above ? page.blocks[a].y1 > page.blocks[b].y1 : page.blocks[a].y0 < page.blocks[b].y0;
    });
    float frontier = above ? cap.y0 : cap.y1;
    for (size_t k : order) {
      const PdfBlock& b = page.blocks[k];
      const float gap = above ? frontier - b.y1 : b.y0 - frontier;
      if (gap > 14 || stop[k] || !is_row(k)) break;
      sides[above].push_back(k);
      frontier = above ? std::min(frontier, b.y0) : std::max(frontier, b.y1);
    }
  }
  if (sides[1].size() <= sides[0].size()) return {};
  std::sort(sides[1].begin(), sides[1].end());
  return sides[1];
}

Result<PdfFile> load_pdf_file(const std::filesystem::path& path) {
  PdfFile f;
  f.path = path;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    Status s = not_found("cannot read '" + path.string() + "'");
    s.with("path", path.string());
    return s;
  }
  f.bytes.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(f.bytes.data(), static_cast<std::streamsize>(f.bytes.size()));
  if (!in) return not_found("cannot read all of '" + path.string() + "'");
  f.sha256 = sha256_hex(f.bytes);
  return f;
}

Result<PdfDoc> read_pdf_layout(const PdfFile& file, int max_pages) {
  const std::filesystem::path& path = file.path;
  const std::string& bytes = file.bytes;
  PdfDoc out;
  out.sha256 = file.sha256;
  if (bytes.find("%PDF-") > 1024) {
    Status s = parse_error("'" + path.string() + "' is not a PDF (no %PDF- header)");
    s.with("path", path.string());
    return s;
  }
  fz_context* ctx = new_quiet_mupdf_context();
  if (!ctx) return internal_error("cannot start the PDF reader");
  fz_stream* stream = nullptr;
  fz_document* doc = nullptr;
  const char* failure = nullptr;
  int encrypted = 0;
  char meta[4][512] = {{0}};
  fz_var(stream);
  fz_var(failure);
  fz_var(encrypted);
  fz_var(doc);
  fz_try(ctx) {
    doc = open_pdf_in_memory(ctx, bytes, &stream);
    if (fz_needs_password(ctx, doc)) {
      encrypted = 1;
    } else {
      fz_lookup_metadata(ctx, doc, FZ_META_INFO_TITLE, meta[0], sizeof meta[0]);
      fz_lookup_metadata(ctx, doc, FZ_META_INFO_AUTHOR, meta[1], sizeof meta[1]);
      fz_lookup_metadata(ctx, doc, "info:Keywords", meta[2], sizeof meta[2]);
      fz_lookup_metadata(ctx, doc, "info:CreationDate", meta[3], sizeof meta[3]);
      out.page_count = fz_count_pages(ctx, doc);
      // A paper has at most kMaxPdfPages pages: a page tree claiming more is refused before any is read.
      int n = out.page_count > kMaxPdfPages                 ? 0
              : max_pages > 0 && max_pages < out.page_count ? max_pages
                                                            : out.page_count;
      out.pages.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) read_page(ctx, doc, i, &out.pages[static_cast<size_t>(i)]);
    }
  }
  fz_catch(ctx) { failure = fz_caught_message(ctx); }
  std::string error = failure ? failure : "";
  fz_drop_document(ctx, doc);
  fz_drop_stream(ctx, stream);
  fz_drop_context(ctx);
  if (encrypted) {
    Status s = unsupported("'" + path.string() + "' is encrypted (password-protected); it cannot be ingested");
    s.with("path", path.string());
    return s;
  }
  if (!error.empty()) {
    Status s = parse_error("'" + path.string() + "' is not a readable PDF: " + error);
    s.with("path", path.string());
    return s;
  }
  if (out.page_count > kMaxPdfPages) {
    Status s = resource_exhausted("'" + path.filename().string() + "' claims " + std::to_string(out.page_count) +
                                  " pages, more than the " + std::to_string(kMaxPdfPages) +
                                  " pages a paper in the library may have; it was not read");
    s.with("path", path.filename().string()).with("limit", "pages").with("limit_value", kMaxPdfPages);
    return s;
  }
  if (out.page_count <= 0) {  // MuPDF's repair found no page: a fragment, not a paper
    Status s =
        parse_error("'" + path.string() + "' has no readable pages: the file is truncated or damaged beyond repair");
    s.with("path", path.string());
    return s;
  }
  out.info_title = meta[0];
  out.info_author = meta[1];
  out.info_keywords = meta[2];
  out.info_creation_date = meta[3];
  return out;
}

}  // namespace bioagent
