// MuPDF reports errors with setjmp/longjmp (fz_try): no C++ object with a
// destructor is created inside those blocks; results are copied out after.
#include "papers/pdf_layout.h"

#include "bioagent/digest.h"

#include <mupdf/fitz.h>

#include "text/mupdf_context.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace bioagent {
namespace {

void read_page(fz_context* ctx, fz_document* doc, int index, PdfPage* out) {
  fz_page* page = fz_load_page(ctx, doc, index);
  fz_stext_page* st = nullptr;
  fz_var(st);
  fz_try(ctx) {
    fz_rect bounds = fz_bound_page(ctx, page);
    out->number = index + 1;
    out->width = bounds.x1 - bounds.x0;
    out->height = bounds.y1 - bounds.y0;
    fz_stext_options opts = {};
    opts.flags = FZ_STEXT_PRESERVE_IMAGES;
    st = fz_new_stext_page_from_page(ctx, page, &opts);
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
  }
  fz_always(ctx) {
    fz_drop_stext_page(ctx, st);
    fz_drop_page(ctx, page);
  }
  fz_catch(ctx) { fz_rethrow(ctx); }
}

}  // namespace

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
      int n = max_pages > 0 && max_pages < out.page_count ? max_pages : out.page_count;
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
  out.info_title = meta[0];
  out.info_author = meta[1];
  out.info_keywords = meta[2];
  out.info_creation_date = meta[3];
  return out;
}

}  // namespace bioagent
