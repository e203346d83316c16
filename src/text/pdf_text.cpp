// PDF text through MuPDF. MuPDF reports errors with setjmp/longjmp (fz_try):
// no C++ object with a destructor lives inside those blocks.
#include <mupdf/fitz.h>

#include "text/mupdf_context.h"

#include "bioagent/text_extract.h"

namespace bioagent {

Result<std::string> pdf_to_text(std::string_view bytes, size_t max_chars,
                                std::chrono::steady_clock::time_point deadline) {
  fz_context* ctx = new_quiet_mupdf_context();
  if (!ctx) return internal_error("cannot start the PDF reader (out of memory)");
  fz_stream* stream = nullptr;
  fz_document* doc = nullptr;
  fz_buffer* text = nullptr;
  const char* failure = nullptr;
  int encrypted = 0, pages = 0, read = 0, out_of_time = 0, missing = 0;
  size_t chars = 0;
  fz_var(stream);
  fz_var(doc);
  fz_var(text);
  fz_try(ctx) {
    doc = open_pdf_in_memory(ctx, bytes, &stream);
    if (fz_needs_password(ctx, doc)) {
      encrypted = 1;
    } else {
      text = fz_new_buffer(ctx, 4096);
      pages = fz_count_pages(ctx, doc);
      for (int i = 0; i < pages && i < kMaxPdfPages && (max_chars == 0 || chars < max_chars); ++i) {
        if (std::chrono::steady_clock::now() >= deadline) {
          out_of_time = 1;
          break;
        }
        fz_page* page = nullptr;
        fz_var(page);
        // A page tree that claims more pages than it holds: the pages read so far are the text.
        fz_try(ctx) { page = fz_load_page(ctx, doc, i); }
        fz_catch(ctx) { page = nullptr; }
        if (!page && i > 0) {
          missing = i + 1;
          break;
        }
        if (!page) page = fz_load_page(ctx, doc, i);  // the first page: MuPDF's own error ends the read
        read = i + 1;
        fz_stext_page* st = nullptr;
        fz_var(st);
        fz_try(ctx) {
          st = fz_new_stext_page_from_page(ctx, page, nullptr);
          fz_buffer* b = fz_new_buffer_from_stext_page(ctx, st);
          unsigned char* data = nullptr;
          size_t len = fz_buffer_storage(ctx, b, &data);
          fz_append_data(ctx, text, data, len);
          fz_append_byte(ctx, text, '\n');
          for (size_t k = 0; k < len; ++k) chars += (data[k] & 0xC0) != 0x80;
          fz_drop_buffer(ctx, b);
        }
        fz_always(ctx) {
          fz_drop_stext_page(ctx, st);
          fz_drop_page(ctx, page);
        }
        fz_catch(ctx) { fz_rethrow(ctx); }
      }
    }
  }
  fz_catch(ctx) { failure = fz_caught_message(ctx); }
  std::string result;
  std::string error = failure ? failure : "";
  if (text) {
    unsigned char* data = nullptr;
    size_t len = fz_buffer_storage(ctx, text, &data);
    result.assign(reinterpret_cast<const char*>(data), len);
  }
  fz_drop_buffer(ctx, text);
  fz_drop_document(ctx, doc);
  fz_drop_stream(ctx, stream);
  fz_drop_context(ctx);
  if (encrypted) return unsupported("the PDF is encrypted (password-protected); its text cannot be read");
  if (!error.empty()) return parse_error("not a readable PDF: " + error);
  if (missing)
    result += "[stopped at page " + std::to_string(missing) + " of " + std::to_string(pages) +
              ": the PDF's page tree names more pages than it holds]\n";
  else if (out_of_time)
    result += "[stopped at page " + std::to_string(read + 1) + " of " + std::to_string(pages) +
              ": the time allowed for reading the PDF ran out]\n";
  else if (read < pages && (max_chars == 0 || chars < max_chars))
    result += "[stopped after " + std::to_string(read) + " of " + std::to_string(pages) + " pages, the most read]\n";
  return result;
}

}  // namespace bioagent
