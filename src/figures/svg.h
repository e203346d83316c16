// A small SVG writer for the pipeline's figures: shapes, text with escaping,
// the Okabe-Ito colour-blind-safe palette and two colour scales. Figures are
// self-contained (no fonts or scripts loaded from anywhere).
#pragma once

#include <cstdio>
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

// Okabe & Ito (2008), distinguishable with the common colour-vision deficiencies.
inline const char* palette(size_t i) {
  static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
  return k[i % 8];
}

// Blue - white - red for z-scores in [-limit, limit].
std::string diverging(double z, double limit = 2.5);
// Light yellow to dark blue for counts in [0, max].
std::string sequential(double v, double max);

class Doc {
 public:
  Doc(double width, double height, std::string title);
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "none",
            std::string_view extra = "");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view extra = "");
  void path(std::string_view d, std::string_view stroke, double width = 1, std::string_view fill = "none");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke = "none");
  // anchor: start, middle, end
  void text(double x, double y, std::string_view s, double size = 11, std::string_view anchor = "start",
            std::string_view extra = "");
  void raw(std::string_view s) { body_ += s; }
  // A legend of coloured squares, one row each.
  void legend(double x, double y, const std::vector<std::pair<std::string, std::string>>& items);
  std::string str() const;

 private:
  double w_, h_;
  std::string title_, body_;
};

}  // namespace bioagent::svg
