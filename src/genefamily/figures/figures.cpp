// What the gene-family figures share (see figures.h, figures_paper.h): tree
// layout, text widths, colours, label spreading, boxes and segments, axes and
// round ticks.
#include "genefamily/figures/figures.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "figures/svg.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {

TreeLayout tree_layout(const NewickTree& t) {
  TreeLayout l;
  l.depth.assign(t.nodes.size(), 0);
  l.pos.assign(t.nodes.size(), 0);
  std::function<void(int, double)> walk = [&](int n, double d) {
    l.depth[size_t(n)] = d;
    l.max_depth = std::max(l.max_depth, d);
    const auto& kids = t.nodes[size_t(n)].children;
    if (kids.empty()) {
      l.pos[size_t(n)] = double(l.leaves.size());
      l.leaves.push_back(n);
      return;
    }
    double sum = 0;
    for (int k : kids) {
      walk(k, d + std::max(0.0, t.nodes[size_t(k)].length));
      sum += l.pos[size_t(k)];
    }
    l.pos[size_t(n)] = sum / double(kids.size());
  };
  if (!t.nodes.empty()) walk(0, 0);
  if (l.max_depth <= 0) l.max_depth = 1;
  return l;
}

std::vector<std::string> leaf_order(const NewickTree& t) {
  std::vector<std::string> out;
  for (int l : tree_layout(t).leaves) out.push_back(t.nodes[size_t(l)].name);
  return out;
}

const char* distinct_colour(size_t i) {
  static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                            "#F0E442", "#7F3C8D", "#11A579", "#3969AC", "#E73F74", "#80BA5A"};
  return k[i % 12];
}

double text_width(const std::string& s, double size) {
  // DejaVu Sans advances are at most ~0.72 em for capitals, ~0.6 for lower case; a CJK character (a
  // three- or four-byte UTF-8 sequence) is a full em; a continuation byte adds nothing.
  double units = 0;
  for (unsigned char c : s)
    units += c >= 0xE0                                        ? 1.0
             : c >= 0xC0                                      ? 0.6
             : c >= 0x80                                      ? 0.0
             : (c >= 'A' && c <= 'Z') || c == 'W' || c == 'm' ? 0.72
                                                              : 0.6;
  return units * size;
}

std::vector<double> spread_labels(const std::vector<double>& wanted, double gap, double lo, double hi) {
  std::vector<size_t> order(wanted.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return wanted[a] < wanted[b]; });
  std::vector<double> y(wanted.size());
  double prev = lo - gap;
  for (size_t i : order) prev = y[i] = std::max(wanted[i], prev + gap);  // push down past the previous label
  double over = wanted.empty() ? 0 : y[order.back()] - hi;
  if (over > 0)  // shift up from the bottom, keeping the gaps
    for (size_t k = order.size(); k-- > 0;) {
      double limit = k + 1 < order.size() ? y[order[k + 1]] - gap : hi;
      y[order[k]] = std::min(y[order[k]], limit);
    }
  return y;
}

Box text_box(double x, double baseline, const std::string& s, double size, const std::string& anchor) {
  const double w = text_width(s, size);
  const double x0 = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
  return {x0, baseline - 0.8 * size, x0 + w, baseline + 0.25 * size};
}

bool overlaps(const Box& a, const Box& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

bool crosses(const Box& b, const Segment& s) {
  // Liang-Barsky clipping of the segment against the box.
  double t0 = 0, t1 = 1;
  const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
  const double p[4] = {-dx, dx, -dy, dy}, q[4] = {s.x0 - b.x0, b.x1 - s.x0, s.y0 - b.y0, b.y1 - s.y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double r = q[i] / p[i];
    if (p[i] < 0)
      t0 = std::max(t0, r);
    else
      t1 = std::min(t1, r);
    if (t0 > t1) return false;
  }
  return true;
}

void axis(svg::Doc& d, const std::string& id, bool horizontal, double at, double from, double to, double lo, double hi,
          const RoundTicks& ticks, const std::string& title, double size) {
  auto place = [&](double v) { return hi > lo ? from + (to - from) * (v - lo) / (hi - lo) : from; };
  d.open_group(svg::data("axis", id));
  if (horizontal)
    d.line(from, at, to, at, "#333333", 0.8);
  else
    d.line(at, from, at, to, "#333333", 0.8);
  double widest = 0;
  for (double v : ticks.values) {
    if (v < lo - 1e-9 || v > hi + 1e-9) continue;
    const double p = place(v);
    const std::string label = tick_label(v, ticks.decimals);
    widest = std::max(widest, text_width(label, size));
    if (horizontal) {
      d.line(p, at, p, at + 4, "#333333", 0.8);
      d.text(p, at + 4 + size, label, size, "middle");
    } else {
      d.line(at - 4, p, at, p, "#333333", 0.8);
      d.text(at - 6, p + size * 0.35, label, size, "end");
    }
  }
  d.close_group();
  const std::string mark = svg::data("axis-title", id);
  if (horizontal) {
    d.text((from + to) / 2, at + 8 + 2.2 * size, title, size, "middle", mark);
  } else {
    const double x = at - 10 - widest - size * 0.6, y = (from + to) / 2;  // vertical_axis_room follows this
    d.text(x, y, title, size, "middle", mark + " transform=\"rotate(-90 " + svg::num(x) + " " + svg::num(y) + ")\"");
  }
}

double vertical_axis_room(const RoundTicks& ticks, double size) {
  double widest = 0;
  for (double v : ticks.values) widest = std::max(widest, text_width(tick_label(v, ticks.decimals), size));
  // The rotated title's baseline sits 10 + widest + 0.6 size left of the line; its glyphs reach one ascent
  // (0.93 of the size in DejaVu Sans) further.
  return 10 + widest + size * (0.6 + 0.93);
}

double print_font(double width, double base) { return std::max(base, std::ceil(svg::min_font(width) * 10) / 10); }

RoundTicks round_ticks(double max, int intervals) {
  RoundTicks t;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  intervals = std::max(1, intervals);
  const double raw = max / intervals, power = std::pow(10.0, std::floor(std::log10(raw)));
  double mantissa = 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * power >= raw * (1 - 1e-9)) {
      mantissa = m;
      break;
    }
  t.step = mantissa * power;
  t.decimals = std::max(0, int(-std::floor(std::log10(t.step) + 1e-9)) + (mantissa == 2.5 ? 1 : 0));
  const int n = std::max(1, int(std::ceil(max / t.step - 1e-9)));
  for (int k = 0; k <= n; ++k) t.values.push_back(k * t.step);
  return t;
}

std::string tick_label(double v, int decimals) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

}  // namespace bioagent::figures
