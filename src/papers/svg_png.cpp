// An SVG figure rendered to PNG with MuPDF's SVG document handler, for hosts
// that cannot show SVG.
#include <mupdf/fitz.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "bioagent/papers.h"
#include "text/mupdf_context.h"

namespace bioagent {

Result<SvgPng> svg_to_png(const std::string& svg_text, double scale, int max_side) {
  if (svg_text.empty()) return invalid_argument("the SVG is empty");
  if (scale <= 0 || max_side <= 0) return invalid_argument("scale and max_side must be positive");
  fz_context* ctx = new_quiet_mupdf_context();
  if (!ctx) return internal_error("cannot start the SVG renderer");
  fz_stream* stream = nullptr;
  fz_document* doc = nullptr;
  fz_page* page = nullptr;
  fz_pixmap* pix = nullptr;
  fz_buffer* png = nullptr;
  const char* failure = nullptr;
  fz_var(stream);
  fz_var(doc);
  fz_var(page);
  fz_var(pix);
  fz_var(png);
  fz_var(failure);
  fz_try(ctx) {
    stream = fz_open_memory(ctx, reinterpret_cast<const unsigned char*>(svg_text.data()), svg_text.size());
    doc = fz_open_document_with_stream(ctx, "image/svg+xml", stream);
    page = fz_load_page(ctx, doc, 0);
    fz_rect bounds = fz_bound_page(ctx, page);
    float w = bounds.x1 - bounds.x0, h = bounds.y1 - bounds.y0;
    if (!(w > 0 && h > 0)) fz_throw(ctx, FZ_ERROR_GENERIC, "the SVG has no size");
    float s = static_cast<float>(std::min<double>(scale, max_side / std::max<double>(w, h)));
    png = render_png(ctx, page, bounds, fz_scale(s, s), &pix);
  }
  fz_catch(ctx) { failure = fz_caught_message(ctx); }
  SvgPng out;
  std::string error = failure ? failure : "";
  if (pix) {
    out.width = fz_pixmap_width(ctx, pix);
    out.height = fz_pixmap_height(ctx, pix);
  }
  if (png) {
    unsigned char* bytes = nullptr;
    size_t n = fz_buffer_storage(ctx, png, &bytes);
    out.png.assign(reinterpret_cast<const char*>(bytes), n);
  }
  fz_drop_buffer(ctx, png);
  fz_drop_pixmap(ctx, pix);
  fz_drop_page(ctx, page);
  fz_drop_document(ctx, doc);
  fz_drop_stream(ctx, stream);
  fz_drop_context(ctx);
  if (!error.empty()) return parse_error("cannot render the SVG: " + error);
  return out;
}

}  // namespace bioagent
