// svg::Doc and the colour scales (see svg.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "figures/svg.h"

namespace bioagent::svg {
namespace {

std::string rgb(double r, double g, double b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(std::lround(r)), int(std::lround(g)), int(std::lround(b)));
  return buf;
}

}  // namespace

std::string diverging(double z, double limit) {
  double t = std::clamp(z / limit, -1.0, 1.0);
  // blue (33,102,172) - white - red (178,24,43)
  if (t < 0) return rgb(255 + (33 - 255) * -t, 255 + (102 - 255) * -t, 255 + (172 - 255) * -t);
  return rgb(255 + (178 - 255) * t, 255 + (24 - 255) * t, 255 + (43 - 255) * t);
}

std::string sequential(double v, double max) {
  double t = max > 0 ? std::clamp(v / max, 0.0, 1.0) : 0;
  // light yellow (255,255,217) to dark blue (8,29,88), through green-blue
  return rgb(255 + (8 - 255) * t, 255 + (29 - 255) * t, 217 + (88 - 217) * t);
}

Doc::Doc(double width, double height, std::string title) : w_(width), h_(height), title_(std::move(title)) {}

void Doc::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
               std::string_view extra) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) + "\" height=\"" +
           num(std::max(0.0, h)) + "\" fill=\"" + std::string(fill) + "\" stroke=\"" + std::string(stroke) + "\" " +
           std::string(extra) + "/>\n";
}

void Doc::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
               std::string_view extra) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(width) + "\" " + std::string(extra) +
           "/>\n";
}

void Doc::path(std::string_view d, std::string_view stroke, double width, std::string_view fill) {
  body_ += "<path d=\"" + std::string(d) + "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(width) +
           "\" fill=\"" + std::string(fill) + "\"/>\n";
}

void Doc::circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + std::string(fill) +
           "\" stroke=\"" + std::string(stroke) + "\"/>\n";
}

void Doc::text(double x, double y, std::string_view s, double size, std::string_view anchor, std::string_view extra) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
           std::string(anchor) + "\" " + std::string(extra) + ">" + esc(s) + "</text>\n";
}

void Doc::legend(double x, double y, const std::vector<std::pair<std::string, std::string>>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    rect(x, y + double(i) * 16, 11, 11, items[i].second);
    text(x + 16, y + double(i) * 16 + 10, items[i].first, 11);
  }
}

std::string Doc::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w_) + "\" height=\"" + num(h_) +
         "\" viewBox=\"0 0 " + num(w_) + " " + num(h_) +
         "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" role=\"img\">\n<title>" + esc(title_) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body_ + "</svg>\n";
}

}  // namespace bioagent::svg
