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

}  // namespace bioagent
