// A tiny RGB raster with shape drawing and PNG output (zlib), for the
// illustrative images of the example data bundle.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct Rgb {
  uint8_t r, g, b;
};

class Canvas {
 public:
  Canvas(int width, int height, Rgb background);
  int width() const { return w_; }
  int height() const { return h_; }
  void fill_rect(int x, int y, int w, int h, Rgb c);
  void fill_circle(int cx, int cy, int radius, Rgb c, double alpha = 1.0);
  void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1);
  Status write_png(const std::filesystem::path& path) const;

 private:
  void blend(int x, int y, Rgb c, double alpha);
  int w_, h_;
  std::vector<uint8_t> px_;
};

// Colour-blind-safe categorical palette (Okabe–Ito).
Rgb palette(size_t i);

}  // namespace bioagent
