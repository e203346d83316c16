// ViewImage (seed 001): render one page of a paper, or a clip of it, to PNG.
// Only that page is rendered, within a pixel budget (a page of any stated
// size is scaled down to fit it), in a child process bounded in memory and
// time (a hostile content stream costs the child, never the server).
#include <mupdf/fitz.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bioagent/papers.h"
#include "core/isolated_call.h"
#include "papers/duckdb_conn.h"
#include "text/mupdf_context.h"

namespace bioagent {
namespace {

// The most pixels one rendered page or clip may have (an A4 page at 600 dpi is 34.8 million);
// a larger one is rendered at the dpi that fits, which the answer states.
constexpr double kMaxPagePixels = 36e6;

std::string base64(const unsigned char* d, size_t n) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = static_cast<uint32_t>(d[i]) << 16;
    if (i + 1 < n) v |= static_cast<uint32_t>(d[i + 1]) << 8;
    if (i + 2 < n) v |= d[i + 2];
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < n ? k[(v >> 6) & 63] : '=';
    out += i + 2 < n ? k[v & 63] : '=';
  }
  return out;
}

// The paper's PDF path, with page_number checked against its page count.
Result<std::string> paper_pdf(const std::string& db_path, const std::string& paper_id, int page_number) {
  std::error_code ec;
  if (!std::filesystem::exists(db_path, ec)) return not_found("the paper library does not exist yet");
  auto db = DuckDb::open(db_path, true);
  if (!db) return db.status();
  auto r = (*db)->query("SELECT pdf_path, num_pages FROM metadata WHERE paper_id::VARCHAR = ?", {}, {paper_id});
  if (!r) return r.status();
  if (r->rows.empty()) return not_found("no paper with id '" + paper_id + "' in the library");
  const std::string pdf = r->rows[0][0].get<std::string>();
  const int pages = r->rows[0][1].get<int>();
  if (page_number < 1 || page_number > pages) {
    Status s = invalid_argument("page_number " + std::to_string(page_number) +
                                " is out of range: the paper has pages 1 to " + std::to_string(pages));
    s.with("field", "args.page_number").with("rule", "range");
    return s;
  }
  return pdf;
}

// A page (or the box on it) rendered by MuPDF: the PNG bytes and size, or the
// reader's error, or outside when the box does not lie on the page.
struct RenderedPage {
  std::string png, error;
  int width = 0, height = 0;
  bool started = true;  // false: MuPDF could not start
  bool outside = false;
  fz_rect bounds = fz_empty_rect;
  double dpi = 0;  // as rendered
};

RenderedPage render_page(const std::string& pdf, int page_number, const std::vector<double>& bbox, double dpi) {
  // (the page's own stated size decides the pixmap: a 10,000-pt MediaBox at 144 dpi would be 1.6 GB)
  RenderedPage out;
  fz_context* ctx = new_quiet_mupdf_context();
  if (!ctx) {
    out.started = false;
    return out;
  }
  fz_document* doc = nullptr;
  fz_page* page = nullptr;
  fz_pixmap* pix = nullptr;
  fz_buffer* png = nullptr;
  const char* failure = nullptr;
  int outside = 0;
  fz_rect bounds = fz_empty_rect;
  float zoom = static_cast<float>(dpi / 72.0);
  fz_var(doc);
  fz_var(page);
  fz_var(pix);
  fz_var(png);
  fz_var(failure);
  fz_var(outside);
  fz_var(zoom);
  fz_try(ctx) {
    doc = fz_open_document(ctx, pdf.c_str());
    page = fz_load_page(ctx, doc, page_number - 1);
    bounds = fz_bound_page(ctx, page);
    fz_rect clip = bounds;
    if (!bbox.empty()) {  // the box is relative to the rendered page's corner (the CropBox's), as stored
      clip = fz_make_rect(bounds.x0 + static_cast<float>(bbox[0]), bounds.y0 + static_cast<float>(bbox[1]),
                          bounds.x0 + static_cast<float>(bbox[0] + bbox[2]),
                          bounds.y0 + static_cast<float>(bbox[1] + bbox[3]));
      const float slack = 2;
      if (bbox[2] <= 0 || bbox[3] <= 0 || clip.x0 < bounds.x0 - slack || clip.y0 < bounds.y0 - slack ||
          clip.x1 > bounds.x1 + slack || clip.y1 > bounds.y1 + slack)
        outside = 1;
    }
    if (!outside) {
      const double area = double(clip.x1 - clip.x0) * double(clip.y1 - clip.y0) * zoom * zoom;
      if (area > double(kMaxPagePixels)) zoom *= static_cast<float>(std::sqrt(double(kMaxPagePixels) / area));
      png = render_png(ctx, page, clip, fz_scale(zoom, zoom), &pix);
    }
  }
  fz_catch(ctx) { failure = fz_caught_message(ctx); }
  out.error = failure ? failure : "";
  out.width = pix ? fz_pixmap_width(ctx, pix) : 0;
  out.height = pix ? fz_pixmap_height(ctx, pix) : 0;
  if (png) {
    unsigned char* bytes = nullptr;
    size_t n = fz_buffer_storage(ctx, png, &bytes);
    out.png.assign(reinterpret_cast<const char*>(bytes), n);
  }
  out.outside = outside != 0;
  out.dpi = double(zoom) * 72.0;
  out.bounds = bounds;
  fz_drop_buffer(ctx, png);
  fz_drop_pixmap(ctx, pix);
  fz_drop_page(ctx, page);
  fz_drop_document(ctx, doc);
  fz_drop_context(ctx);
  return out;
}

}  // namespace

Result<Json> view_image(const std::string& db_path, const std::string& paper_id, int page_number,
                        const std::vector<double>& bbox, double dpi) {
  if (!bbox.empty() && bbox.size() != 4)
    return invalid_argument(
        "bounding_box needs 4 numbers [x_min, y_min, delta_x, delta_y], or none for the whole page");
  if (!(dpi > 0) || dpi > 1200) return invalid_argument("dpi must be above 0 and at most 1200");
  auto pdf = paper_pdf(db_path, paper_id, page_number);
  if (!pdf) return pdf.status();
  IsolationLimits iso;
  iso.memory_bytes = size_t(768) << 20;
  iso.deadline = std::chrono::seconds(20);
  iso.what = "rendering page " + std::to_string(page_number);
  auto rendered = run_isolated(
      [&]() -> Result<Json> {
        RenderedPage r = render_page(*pdf, page_number, bbox, dpi);
        if (!r.started) return internal_error("cannot start the PDF reader");
        if (!r.error.empty())
          return parse_error("cannot render page " + std::to_string(page_number) +
                             " of the paper: " + valid_utf8(r.error));
        if (r.outside) {
          char page_box[96];
          std::snprintf(page_box, sizeof page_box, "[0, 0, %.0f, %.0f]", r.bounds.x1 - r.bounds.x0,
                        r.bounds.y1 - r.bounds.y0);
          Status s = invalid_argument("bounding_box lies outside page " + std::to_string(page_number) + " " + page_box +
                                      " (format [x_min, y_min, delta_x, delta_y] in points, positive sizes)");
          s.with("field", "args.bounding_box").with("rule", "inside_page");
          return s;
        }
        return Json{{"width", r.width},
                    {"height", r.height},
                    {"dpi", r.dpi},  // below the asked dpi when the page was scaled to the pixel budget
                    {"size_bytes", r.png.size()},
                    {"image_base64", base64(reinterpret_cast<const unsigned char*>(r.png.data()), r.png.size())}};
      },
      iso);
  if (!rendered) return rendered.status();
  Json out = {{"paper_id", paper_id},
              {"page_number", page_number},
              {"bounding_box", bbox.empty() ? Json::array() : Json(bbox)},
              {"mime_type", "image/png"}};
  out.update(*rendered);
  return out;
}

}  // namespace bioagent
