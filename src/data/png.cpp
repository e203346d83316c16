#include "data/png.h"

#include <zlib.h>

#include <cmath>
#include <fstream>

namespace bioagent {

Canvas::Canvas(int width, int height, Rgb bg) : w_(width), h_(height), px_(static_cast<size_t>(width * height * 3)) {
  for (size_t i = 0; i < px_.size(); i += 3) {
    px_[i] = bg.r;
    px_[i + 1] = bg.g;
    px_[i + 2] = bg.b;
  }
}

void Canvas::blend(int x, int y, Rgb c, double a) {
  if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
  uint8_t* p = &px_[static_cast<size_t>((y * w_ + x) * 3)];
  p[0] = static_cast<uint8_t>(p[0] * (1 - a) + c.r * a);
  p[1] = static_cast<uint8_t>(p[1] * (1 - a) + c.g * a);
  p[2] = static_cast<uint8_t>(p[2] * (1 - a) + c.b * a);
}

void Canvas::fill_rect(int x, int y, int w, int h, Rgb c) {
  for (int j = y; j < y + h; ++j)
    for (int i = x; i < x + w; ++i) blend(i, j, c, 1.0);
}

void Canvas::fill_circle(int cx, int cy, int r, Rgb c, double alpha) {
  for (int j = -r; j <= r; ++j)
    for (int i = -r; i <= r; ++i)
      if (i * i + j * j <= r * r) blend(cx + i, cy + j, c, alpha);
}

void Canvas::line(int x0, int y0, int x1, int y1, Rgb c, int t) {
  int steps = std::max(std::abs(x1 - x0), std::abs(y1 - y0)) + 1;
  for (int s = 0; s <= steps; ++s) {
    int x = x0 + (x1 - x0) * s / steps, y = y0 + (y1 - y0) * s / steps;
    fill_rect(x - t / 2, y - t / 2, t, t, c);
  }
}

namespace {

void put32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xFF);
}

void chunk(std::string& out, const char* type, const std::string& data) {
  put32(out, static_cast<uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  out += body;
  put32(out,
        static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

}  // namespace

Status Canvas::write_png(const std::filesystem::path& path) const {
  std::string raw;
  raw.reserve(static_cast<size_t>(h_ * (w_ * 3 + 1)));
  for (int y = 0; y < h_; ++y) {
    raw += '\0';  // filter type: none
    raw.append(reinterpret_cast<const char*>(&px_[static_cast<size_t>(y * w_ * 3)]), static_cast<size_t>(w_ * 3));
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string z(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 9) != Z_OK)
    return internal_error("cannot compress the image for '" + path.string() + "'");
  z.resize(size);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<uint32_t>(w_));
  put32(ihdr, static_cast<uint32_t>(h_));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  std::ofstream out(path, std::ios::binary);
  out.write(png.data(), static_cast<std::streamsize>(png.size()));
  if (!out) return internal_error("cannot write '" + path.string() + "'");
  return {};
}

Rgb palette(size_t i) {
  static const Rgb kColors[] = {{230, 159, 0}, {86, 180, 233}, {0, 158, 115},   {240, 228, 66},
                                {0, 114, 178}, {213, 94, 0},   {204, 121, 167}, {80, 80, 80}};
  return kColors[i % 8];
}

}  // namespace bioagent
