// svg::Doc, the colour scales, legends and colour bars (see svg.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
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

std::string ramp(const std::string& hue, double v, double max) {
  double t = max > 0 ? std::clamp(v / max, 0.0, 1.0) : 0;
  int r = 0, g = 0, b = 0;
  if (hue.size() == 7 && hue[0] == '#') {
    const long x = std::strtol(hue.c_str() + 1, nullptr, 16);
    r = int((x >> 16) & 255), g = int((x >> 8) & 255), b = int(x & 255);
  }
  return rgb(255 + (r - 255) * t, 255 + (g - 255) * t, 255 + (b - 255) * t);
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

void Doc::path(std::string_view d, std::string_view stroke, double width, std::string_view fill,
               std::string_view extra) {
  body_ += "<path d=\"" + std::string(d) + "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(width) +
           "\" fill=\"" + std::string(fill) + "\" " + std::string(extra) + "/>\n";
}

void Doc::circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
                 std::string_view extra) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + std::string(fill) +
           "\" stroke=\"" + std::string(stroke) + "\" " + std::string(extra) + "/>\n";
}

void Doc::text(double x, double y, std::string_view s, double size, std::string_view anchor, std::string_view extra) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
           std::string(anchor) + "\" " + std::string(extra) + ">" + esc(s) + "</text>\n";
}

double Doc::legend(double x, double y, const std::vector<LegendItem>& items, std::string_view id,
                   const std::string& heading, double size, double row) {
  if (items.empty()) return 0;
  open_group(data("legend", id));
  double at = y;
  if (!heading.empty()) {
    text(x, at + size * 0.8, heading, size, "start", "font-weight=\"bold\"");
    at += row;
  }
  const double box = size * 0.9;
  for (auto& it : items) {
    const double mid = at + size * 0.45;
    if (it.shape == "line")
      line(x, mid, x + box * 1.6, mid, it.colour, 2);
    else if (it.shape == "circle")
      circle(x + box / 2, mid, box / 2, it.colour);
    else
      rect(x, at, box, box, it.colour, "#555555", "stroke-width=\"0.3\"");
    text(x + box * (it.shape == "line" ? 1.6 : 1) + size * 0.4, at + size * 0.8, it.label, size);
    at += row;
  }
  close_group();
  return at - y;
}

double Doc::colour_bar(double x, double y, double w, const std::function<std::string(double)>& colour, double lo,
                       double hi, const std::vector<double>& ticks, const std::function<std::string(double)>& label,
                       const std::string& title, std::string_view id, double size) {
  open_group(data("scale-legend", id));
  text(x, y + size * 0.8, title, size, "start", "font-weight=\"bold\"");
  const double top = y + size * 1.3, h = size;
  const int steps = 40;
  for (int k = 0; k < steps; ++k) {
    const double v = lo + (hi - lo) * (k + 0.5) / steps;
    rect(x + w * k / steps, top, w / steps + 0.3, h, colour(v));
  }
  rect(x, top, w, h, "none", "#555555", "stroke-width=\"0.4\"");
  for (double v : ticks) {
    const double tx = hi > lo ? x + w * (v - lo) / (hi - lo) : x;
    line(tx, top + h, tx, top + h + 3, "#555555", 0.6);
    text(tx, top + h + 3 + size * 0.9, label(v), size, "middle");
  }
  close_group();
  return (top - y) + h + 3 + size * 1.2;
}

std::string Doc::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w_) + "\" height=\"" + num(h_) +
         "\" viewBox=\"0 0 " + num(w_) + " " + num(h_) +
         "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" role=\"img\">\n<title>" + esc(title_) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body_ + "</svg>\n";
}

}  // namespace bioagent::svg
