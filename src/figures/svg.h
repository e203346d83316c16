// A small SVG writer for the pipeline's figures: shapes, text with escaping,
// the Okabe-Ito colour-blind-safe palette, colour scales, legends and axes.
// Figures are self-contained (no fonts or scripts loaded from anywhere).
//
// What a figure draws is marked for the figure checks (tests/js/figure_check):
// a legend is a <g data-legend="..."> whose swatches name every colour the
// data marks use; marks coloured by a continuous scale carry data-scale="id"
// and the scale's bar is a <g data-scale-legend="id">; an axis is a
// <g data-axis="id"> titled by a <text data-axis-title="id">; an element that
// backs a caption's claim carries data-claim="claim" (supports, subgroups,
// scale-bar, ...); a member's name is a <text data-gene="1">.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/xml_escape.h"

namespace bioagent::svg {

inline std::string esc(std::string_view s) { return xml_escape(s); }

inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

// A journal prints a figure at most 180 mm (510.24 pt) wide and no text under 7 pt: a figure W units wide
// needs fonts of at least min_font(W).
constexpr double kPrintWidthPt = 510.24;
constexpr double kMinPrintPt = 7;
inline double min_font(double width) { return kMinPrintPt * width / kPrintWidthPt; }

// Okabe & Ito (2008), distinguishable with the common colour-vision deficiencies.
inline const char* palette(size_t i) {
  static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
  return k[i % 8];
}

// Blue - white - red for z-scores in [-limit, limit].
std::string diverging(double z, double limit = 2.5);
// Light yellow to dark blue for counts in [0, max].
std::string sequential(double v, double max);
// White to `hue` (a #rrggbb colour) for v in [0, max]: one ramp per scale.
std::string ramp(const std::string& hue, double v, double max);

// A legend entry: a swatch (rect, line or circle) of `colour` and its label.
struct LegendItem {
  std::string label, colour;
  std::string shape = "rect";
};

class Doc {
 public:
  Doc(double width, double height, std::string title);
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "none",
            std::string_view extra = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view extra = "");
  void path(std::string_view d, std::string_view stroke, double width = 1, std::string_view fill = "none",
            std::string_view extra = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke = "none",
              std::string_view extra = "");
  // anchor: start, middle, end
  void text(double x, double y, std::string_view s, double size = 11, std::string_view anchor = "start",
            std::string_view extra = "");
  void raw(std::string_view s) { body_ += s; }
  void open_group(std::string_view attributes) { body_ += "<g " + std::string(attributes) + ">\n"; }
  void close_group() { body_ += "</g>\n"; }
  // A legend titled `heading` (none when empty), one row per item (`row` apart); returns its height.
  double legend(double x, double y, const std::vector<LegendItem>& items, std::string_view id,
                const std::string& heading = "", double size = 10, double row = 15);
  // A horizontal colour bar for a continuous scale `id`: `colour(v)` over [lo, hi], ticks at `ticks` (labels
  // from `label`), the scale's title above; returns its height.
  double colour_bar(double x, double y, double w, const std::function<std::string(double)>& colour, double lo,
                    double hi, const std::vector<double>& ticks, const std::function<std::string(double)>& label,
                    const std::string& title, std::string_view id, double size = 10);
  // The figure may grow after layout (a legend placed below): its size is read at str().
  void set_size(double width, double height) { w_ = width, h_ = height; }
  double width() const { return w_; }
  double height() const { return h_; }
  std::string str() const;

 private:
  double w_, h_;
  std::string title_, body_;
};

// A text's data attribute (`name="value"`), escaped.
inline std::string data(std::string_view name, std::string_view value) {
  return "data-" + std::string(name) + "=\"" + esc(value) + "\"";
}

}  // namespace bioagent::svg
