// A MuPDF context for one call: document handlers registered, MuPDF's own
// stderr messages silenced (errors reach callers as Status instead).
#pragma once

#include <mupdf/fitz.h>

#include <string_view>

namespace bioagent {

inline fz_context* new_quiet_mupdf_context() {
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  if (!ctx) return nullptr;
  fz_register_document_handlers(ctx);
  fz_set_error_callback(
      ctx, [](void*, const char*) {}, nullptr);
  fz_set_warning_callback(
      ctx, [](void*, const char*) {}, nullptr);
  return ctx;
}

// Opens a PDF held in memory (call inside fz_try; MuPDF throws on failure).
// `*stream` receives the stream, which the caller drops after the document.
inline fz_document* open_pdf_in_memory(fz_context* ctx, std::string_view bytes, fz_stream** stream) {
  *stream = fz_open_memory(ctx, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return fz_open_document_with_stream(ctx, "application/pdf", *stream);
}

// Renders `area` of `page` (page units) scaled by `ctm` on white into a new RGB pixmap (`*pix`, which
// the caller drops) and returns it as a PNG buffer (the caller drops it). Call inside fz_try.
inline fz_buffer* render_png(fz_context* ctx, fz_page* page, fz_rect area, fz_matrix ctm, fz_pixmap** pix) {
  *pix = fz_new_pixmap_with_bbox(ctx, fz_device_rgb(ctx), fz_round_rect(fz_transform_rect(area, ctm)), nullptr, 0);
  fz_clear_pixmap_with_value(ctx, *pix, 255);
  fz_device* dev = fz_new_draw_device(ctx, fz_identity, *pix);
  fz_try(ctx) {
    fz_run_page(ctx, page, dev, ctm, nullptr);
    fz_close_device(ctx, dev);
  }
  fz_always(ctx) { fz_drop_device(ctx, dev); }
  fz_catch(ctx) { fz_rethrow(ctx); }
  return fz_new_buffer_from_pixmap_as_png(ctx, *pix, fz_default_color_params);
}

}  // namespace bioagent
