// The colours every gene-family figure draws with, in one place: motif n has
// the same colour in the motif map, the logos and the combined panel; domains
// and subfamilies draw from lists of their own, so that a domain is never
// mistaken for a motif beside it. All lists keep their first colours
// colour-blind-safe (Okabe-Ito).
#pragma once

#include <cstddef>
#include <string>

namespace bioagent::figures {

// Twelve colours that stay apart (Okabe-Ito first, then Paul Tol's olive and
// wine, a purple, black and light grey; no two greens or blues alike); motif
// n (0-based, "motif n+1") is motif_colour(n). Twelve motifs before a repeat:
// the motif stage finds at most ten by default.
inline const char* motif_colour(size_t n) {
  static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                            "#F0E442", "#7F3C8D", "#999933", "#882255", "#000000", "#BBBBBB"};
  return k[n % 12];
}
// The motif's colour from its label ("motif 3" -> motif_colour(2)); labels of another form get grey.
inline std::string motif_colour(const std::string& label) {
  const std::string prefix = "motif ";
  if (label.rfind(prefix, 0) != 0 || label.size() == prefix.size()) return "#999999";
  size_t n = 0;
  for (size_t i = prefix.size(); i < label.size(); ++i) {
    if (label[i] < '0' || label[i] > '9') return "#999999";
    n = n * 10 + size_t(label[i] - '0');
  }
  return n == 0 ? "#999999" : motif_colour(n - 1);
}
// Domains: muted hues none of the motif colours use.
inline const char* domain_colour(size_t n) {
  static const char* k[] = {"#8C6D31", "#6B4C9A", "#393B79", "#1F5F5F", "#C7A46B", "#5F6F7F"};
  return k[n % 6];
}
// The gene-structure column: coding exons, UTRs (an intron is the line between them).
inline const char* cds_colour() { return "#3A7D44"; }
inline const char* utr_colour() { return "#A6CEE3"; }

}  // namespace bioagent::figures
