// A MuPDF context for one call: document handlers registered, MuPDF's own
// stderr messages silenced (errors reach callers as Status instead).
#pragma once

#include <mupdf/fitz.h>

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

}  // namespace bioagent
