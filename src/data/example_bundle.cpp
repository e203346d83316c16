// The generated demonstration bundle: the layout and identifiers of
// TaijiChat's www/ folder (seed 000), filled with generated scores for real
// transcription-factor symbols. Deterministic: the same files every time.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "bioagent/bundle.h"
#include "bioagent/json_text.h"
#include "data/png.h"
#include "table/xlsx_writer.h"

namespace fs = std::filesystem;

namespace bioagent {
namespace {

const std::vector<std::string> kStates = {"Naive", "TE", "MP", "TCM", "TEM", "TRM", "TEXprog", "TEXeff", "TEXterm"};
// Transcription factors studied in CD8+ T-cell differentiation and exhaustion.
const std::vector<std::string> kTfs = {
    "TCF7",  "LEF1",  "BACH2",  "FOXO1", "KLF2",  "ID3",   "EOMES", "TBX21",   "PRDM1",  "ID2",    "ZEB2", "BATF",
    "IRF4",  "TOX",   "TOX2",   "NR4A1", "NR4A2", "NR4A3", "RUNX3", "BHLHE40", "NFATC1", "NFATC2", "EGR2", "MAF",
    "IKZF2", "HIC1",  "ZNF683", "JUNB",  "FOS",   "FOSB",  "STAT3", "STAT4",   "STAT5A", "IRF8",   "AHR",  "BCL6",
    "MYB",   "SATB1", "ETS1",   "NFKB1", "REL",   "HIF1A", "ZEB1",  "SMAD3",   "KLF6",   "GATA3",  "VDR",  "RORA"};

// splitmix64: a fixed, portable pseudo-random sequence.
struct Rng {
  uint64_t s;
  double next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  }
};

double round_to(double v, int digits) {
  double p = std::pow(10.0, digits);
  return std::round(v * p) / p;
}

Cell S(const std::string& s) { return Cell::of_string(s); }
Cell N(double v) { return Cell::of_number(v); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  return out ? Status{} : internal_error("cannot write '" + p.string() + "'");
}

Status bubble_plot(const fs::path& p, Rng& rng, size_t hue) {
  Canvas c(360, 240, {255, 255, 255});
  c.line(30, 210, 340, 210, {60, 60, 60}, 2);
  c.line(30, 20, 30, 210, {60, 60, 60}, 2);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 5; ++j)
      c.fill_circle(60 + i * 38, 40 + j * 38, 3 + static_cast<int>(rng.next() * 14), palette(hue + (j % 2)),
                    0.35 + 0.6 * rng.next());
  return c.write_png(p);
}

Status curve_plot(const fs::path& p, Rng& rng, size_t wave) {
  Canvas c(360, 240, {255, 255, 255});
  c.line(30, 210, 340, 210, {60, 60, 60}, 2);
  c.line(30, 20, 30, 210, {60, 60, 60}, 2);
  for (size_t k = 0; k < 3; ++k) {
    int px = 30, py = 200;
    for (int x = 30; x <= 340; x += 10) {
      double t = (x - 30) / 310.0;
      double center = (static_cast<double>(wave) - 0.5) / 7.0;
      int y = 200 - static_cast<int>(170 * std::exp(-std::pow((t - center) * 5, 2)) * (0.6 + 0.4 * rng.next()));
      c.line(px, py, x, y, palette(wave + k), 2);
      px = x;
      py = y;
    }
  }
  return c.write_png(p);
}

Status bar_plot(const fs::path& p, Rng& rng, size_t hue, int bars) {
  Canvas c(360, 240, {255, 255, 255});
  c.line(40, 20, 40, 220, {60, 60, 60}, 2);
  for (int i = 0; i < bars; ++i) {
    int len = 40 + static_cast<int>(rng.next() * 270) * (bars - i) / bars;
    c.fill_rect(42, 28 + i * (190 / bars), len, 190 / bars - 6, palette(hue));
  }
  return c.write_png(p);
}

Status network_plot(const fs::path& p, Rng& rng, size_t hue) {
  Canvas c(300, 300, {255, 255, 255});
  const int n = 9;
  for (int i = 0; i < n; ++i) {
    double a = 2 * M_PI * i / n;
    int x = 150 + static_cast<int>(105 * std::cos(a)), y = 150 + static_cast<int>(105 * std::sin(a));
    c.line(150, 150, x, y, {150, 150, 150}, 1 + static_cast<int>(rng.next() * 4));
    c.fill_circle(x, y, 12, palette(hue + 1 + (i % 3)));
  }
  c.fill_circle(150, 150, 22, palette(hue));
  return c.write_png(p);
}

Status diagram(const fs::path& p) {
  Canvas c(480, 200, {250, 250, 250});
  for (int i = 0; i < 4; ++i) {
    c.fill_rect(20 + i * 118, 70, 90, 60, palette(i + 4));
    if (i < 3) c.line(112 + i * 118, 100, 136 + i * 118, 100, {60, 60, 60}, 3);
  }
  return c.write_png(p);
}

// TF PageRank: one table per state (TFs in rows), plus the overall table; their files in manifest's tf_catalog.
Status write_pagerank_tables(const fs::path& tmp, Rng& rng, Json& manifest) {
  Json catalog = Json::object();
  std::vector<std::vector<double>> scores(kTfs.size(), std::vector<double>(kStates.size()));
  for (size_t t = 0; t < kTfs.size(); ++t)
    for (size_t s = 0; s < kStates.size(); ++s) {
      double bump = std::exp(-std::pow((static_cast<double>(s) - static_cast<double>(t % 9)) / 2.0, 2));
      scores[t][s] = round_to(0.0005 + 0.02 * bump * (0.5 + rng.next()), 6);
    }
  std::vector<std::vector<Cell>> overall = {{S("TF")}};
  for (auto& s : kStates) overall[0].push_back(S(s));
  for (size_t t = 0; t < kTfs.size(); ++t) {
    overall.push_back({S(kTfs[t])});
    for (size_t s = 0; s < kStates.size(); ++s) overall.back().push_back(N(scores[t][s]));
  }
  BIOAGENT_RETURN_IF_ERROR(write_xlsx(tmp / "tablePagerank/Overall_TF_PageRank.xlsx", {{"PageRank", overall}}));
  catalog["Overall_TF_PageRank"] = "tablePagerank/Overall_TF_PageRank.xlsx";
  for (size_t s = 0; s < kStates.size(); ++s) {
    std::vector<size_t> order(kTfs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a][s] > scores[b][s]; });
    std::vector<std::vector<Cell>> rows = {{S("TF"), S("PageRank score"), S("Rank"), S("Specificity z-score")}};
    for (size_t r = 0; r < order.size(); ++r)
      rows.push_back(
          {S(kTfs[order[r]]), N(scores[order[r]][s]), N(static_cast<double>(r + 1)),
           N(round_to(3.0 - 6.0 * static_cast<double>(r) / static_cast<double>(order.size()) + rng.next() * 0.2, 3))});
    std::string rel = "tablePagerank/" + kStates[s] + ".xlsx";
    BIOAGENT_RETURN_IF_ERROR(write_xlsx(tmp / rel, {{kStates[s], rows}}));
    catalog[kStates[s]] = rel;
  }
  manifest["tf_catalog"] = catalog;
  return {};
}

// Seven TF waves: columns Wave1..Wave7 listing TFs (a TF may sit in two waves).
Status write_wave_table(const fs::path& tmp, Rng& rng, Json& manifest) {
  std::vector<std::vector<std::string>> waves(7);
  for (size_t t = 0; t < kTfs.size(); ++t) {
    waves[t % 7].push_back(kTfs[t]);
    if (rng.next() < 0.15) waves[(t + 1) % 7].push_back(kTfs[t]);
  }
  size_t longest = 0;
  for (auto& w : waves) longest = std::max(longest, w.size());
  std::vector<std::vector<Cell>> wave_rows(longest + 1);
  for (size_t w = 0; w < 7; ++w) {
    wave_rows[0].push_back(S("Wave" + std::to_string(w + 1)));
    for (size_t i = 0; i < longest; ++i) wave_rows[i + 1].push_back(i < waves[w].size() ? S(waves[w][i]) : Cell{});
  }
  BIOAGENT_RETURN_IF_ERROR(write_xlsx(tmp / "waveanalysis/searchtfwaves.xlsx", {{"TF waves", wave_rows}}));
  manifest["wave_search_file"] = "waveanalysis/searchtfwaves.xlsx";
  return {};
}

// TF-TF correlation in TRM versus TEXterm, with a network image per TF.
Status write_correlation_table(const fs::path& tmp, Rng& rng, Json& manifest) {
  std::vector<std::vector<Cell>> cor = {{S("TF Name"), S("Correlation in TRM"), S("Correlation in TEXterm"),
                                         S("Top partners (TRM)"), S("Top partners (TEXterm)"),
                                         S("TF Merged Graph Path")}};
  for (size_t t = 0; t < kTfs.size(); ++t) {
    std::string a = kTfs[(t + 3) % kTfs.size()] + ", " + kTfs[(t + 11) % kTfs.size()];
    std::string b = kTfs[(t + 5) % kTfs.size()] + ", " + kTfs[(t + 17) % kTfs.size()];
    std::string img = "networkanalysis/images/" + kTfs[t] + "_graph.png";
    cor.push_back({S(kTfs[t]), N(round_to(rng.next() * 2 - 1, 3)), N(round_to(rng.next() * 2 - 1, 3)), S(a), S(b),
                   S("www/" + img)});
    BIOAGENT_RETURN_IF_ERROR(network_plot(tmp / img, rng, t));
  }
  BIOAGENT_RETURN_IF_ERROR(write_xlsx(tmp / "TFcorintextrm/TF-TFcorTRMTEX.xlsx", {{"TRM vs TEXterm", cor}}));
  manifest["tf_correlation_file"] = "TFcorintextrm/TF-TFcorTRMTEX.xlsx";
  manifest["tf_correlation_image_column"] = "TF Merged Graph Path";
  return {};
}

// TF communities in TRM and TEXterm networks.
Status write_community_tables(const fs::path& tmp, Json& manifest) {
  Json communities = Json::object();
  for (auto [key, file, offset] : {std::tuple{"trm", "tfcommunities/trmcommunities.xlsx", 0},
                                   std::tuple{"texterm", "tfcommunities/texcommunities.xlsx", 4}}) {
    std::vector<std::vector<Cell>> rows = {{S("Community"), S("Size"), S("Hub TF"), S("Members")}};
    for (size_t c = 0; c < 6; ++c) {
      std::string members;
      size_t size = 0;
      for (size_t t = (c + static_cast<size_t>(offset)) % 6; t < kTfs.size(); t += 6, ++size)
        members += (members.empty() ? "" : ", ") + kTfs[t];
      rows.push_back({S("C" + std::to_string(c + 1)), N(static_cast<double>(size)),
                      S(kTfs[(c + static_cast<size_t>(offset)) % 6]), S(members)});
    }
    BIOAGENT_RETURN_IF_ERROR(write_xlsx(tmp / file, {{std::string(key) + " communities", rows}}));
    communities[key] = file;
  }
  manifest["communities"] = communities;
  return {};
}

// The wave images (main, GO/KEGG, two ranked lists per wave) into images; their ids per wave.
Status write_wave_images(const fs::path& tmp, Rng& rng, Json& images, Json& wave_assets) {
  for (size_t w = 1; w <= 7; ++w) {
    std::string n = std::to_string(w), base = "images/waves/wave" + n;
    images["wave" + n + "_main_img"] = base + "_main.png";
    images["wave" + n + "_gokegg_img"] = base + "_gokegg.png";
    BIOAGENT_RETURN_IF_ERROR(curve_plot(tmp / (base + "_main.png"), rng, w));
    BIOAGENT_RETURN_IF_ERROR(bar_plot(tmp / (base + "_gokegg.png"), rng, w, 8));
    Json ranked = Json::array();
    for (int k = 1; k <= 2; ++k) {
      std::string id = "wave" + n + "_ranked_text" + std::to_string(k) + "_img";
      std::string rel = base + "_ranked_text" + std::to_string(k) + ".png";
      BIOAGENT_RETURN_IF_ERROR(bar_plot(tmp / rel, rng, w + static_cast<size_t>(k), 6));
      images[id] = rel;
      ranked.push_back(id);
    }
    wave_assets[n] = {{"main_image_id", "wave" + n + "_main_img"},
                      {"gokegg_image_id", "wave" + n + "_gokegg_img"},
                      {"ranked_text_image_ids", ranked}};
  }
  return {};
}

// Images and the identifiers that name them.
Status write_images(const fs::path& tmp, Rng& rng, Json& manifest) {
  Json images = Json::object(), bubbles = Json::array(), wave_assets = Json::object();
  BIOAGENT_RETURN_IF_ERROR(diagram(tmp / "images/homedesc.png"));
  images["home_page_diagram"] = "images/homedesc.png";
  BIOAGENT_RETURN_IF_ERROR(bar_plot(tmp / "images/tfcat_overview.png", rng, 4, 9));
  images["tfcat_overview_img"] = "images/tfcat_overview.png";
  BIOAGENT_RETURN_IF_ERROR(network_plot(tmp / "images/network_correlation_desc.png", rng, 2));
  images["network_correlation_desc_img"] = "images/network_correlation_desc.png";
  for (size_t s = 0; s < kStates.size(); ++s) {
    std::string id = lower(kStates[s]) + "_bubble_plot", rel = "images/bubbleplots/" + lower(kStates[s]) + "bubble.png";
    BIOAGENT_RETURN_IF_ERROR(bubble_plot(tmp / rel, rng, s));
    images[id] = rel;
    bubbles.push_back(id);
  }
  BIOAGENT_RETURN_IF_ERROR(write_wave_images(tmp, rng, images, wave_assets));
  manifest["images"] = images;
  manifest["bubble_plots"] = bubbles;
  manifest["waves"] = wave_assets;
  return {};
}

Json navigation_texts() {
  Json nav = {{"to_tfcat", "Navigates to the 'TF Catalog' section."},
              {"to_tfwave", "Navigates to the 'TF Wave Analysis' section."},
              {"to_tfnet", "Navigates to the 'TF Network Analysis' section."},
              {"to_tfcommunity", "Navigates to the 'TF Communities' section."}};
  for (int w = 1; w <= 7; ++w)
    nav["c" + std::to_string(w) + "_link"] = "Navigates to the 'Wave " + std::to_string(w) + " Analysis' tab.";
  return nav;
}

Json ui_texts() {
  Json texts = {
      {"tf_score_calculation_info",
       "Each TF's score is its PageRank in a cell-state-specific regulatory network (TF → target edges weighted by "
       "accessibility and expression); higher scores mean a more central regulator in that state."},
      {"cell_state_specificity_info",
       "The specificity z-score compares a TF's PageRank in one state with its PageRank across all nine states."},
      {"wave_analysis_overview_text",
       "TF waves group regulators by when their activity peaks along the path from naive to terminally exhausted "
       "cells; Wave1 peaks earliest and Wave7 latest."},
      {"network_correlation_info",
       "TF-TF correlations compare co-activity of regulators in tissue-resident memory (TRM) and terminally "
       "exhausted (TEXterm) cells."},
      {"community_info", "Communities are groups of TFs that share many targets in the TRM or TEXterm network."}};
  for (int w = 1; w <= 7; ++w)
    texts["wave_" + std::to_string(w) + "_analysis_placeholder_details"] =
        "Wave " + std::to_string(w) + ": TFs whose activity peaks at stage " + std::to_string(w) +
        " of 7; see the wave's main image, its GO/KEGG enrichment and the ranked TF lists.";
  return texts;
}

Json bundle_manifest() {
  return {{"bundle_format", 1},
          {"title", "CD8+ T-cell transcription-factor atlas (generated demonstration data)"},
          {"description",
           "A bundle laid out like TaijiChat's www/ folder: TF PageRank tables for nine CD8+ T-cell states, TF waves, "
           "TF-TF correlations in TRM and TEXterm cells, TF communities, images and UI texts."},
          {"generated_demo_data", true},
          {"notice",
           "GENERATED DEMONSTRATION DATA: transcription-factor symbols are real, every score, wave, correlation and "
           "community is generated by bioagent. Do not cite."},
          {"web_prefix", "www"},
          {"paper_url", "https://www.biorxiv.org/search/CD8%2B%20T%20cell%20transcription%20factor%20PageRank"},
          {"paper_url_note", "Generated bundle: this URL is a bioRxiv search for the topic, not a specific paper."}};
}

// Every file of the bundle into tmp, in the order that fixes the generated values.
Status write_bundle_files(const fs::path& tmp) {
  Rng rng{20240401};
  Json manifest = bundle_manifest();
  BIOAGENT_RETURN_IF_ERROR(write_pagerank_tables(tmp, rng, manifest));
  BIOAGENT_RETURN_IF_ERROR(write_wave_table(tmp, rng, manifest));
  BIOAGENT_RETURN_IF_ERROR(write_correlation_table(tmp, rng, manifest));
  BIOAGENT_RETURN_IF_ERROR(write_community_tables(tmp, manifest));
  BIOAGENT_RETURN_IF_ERROR(write_images(tmp, rng, manifest));
  manifest["navigation"] = navigation_texts();
  BIOAGENT_RETURN_IF_ERROR(write_text(tmp / "ui_texts.json", json_text(ui_texts(), 2) + "\n"));
  manifest["ui_texts_file"] = "ui_texts.json";
  BIOAGENT_RETURN_IF_ERROR(
      write_text(tmp / "README.md",
                 "# Example data bundle (generated demonstration data)\n\n"
                 "Written by `bioagent data example-bundle`. Transcription-factor symbols are real; "
                 "every score, wave, correlation, community and image is generated. The layout "
                 "follows TaijiChat's www/ folder; bundle.json maps the identifiers the data "
                 "tools accept to these files.\n"));
  return write_text(tmp / "bundle.json", json_text(manifest, 2) + "\n");
}

}  // namespace

Status write_example_bundle(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    return invalid_argument("'" + dir.string() +
                            "' exists and is not empty; choose a new folder for the example bundle");
  // Written into a sibling temporary folder and renamed, so a bundle is never half there.
  fs::path tmp = dir;
  tmp += ".tmp-" + std::to_string(::getpid());
  fs::remove_all(tmp, ec);
  for (const char* sub : {"tablePagerank", "waveanalysis", "TFcorintextrm", "tfcommunities", "images",
                          "images/bubbleplots", "images/waves", "networkanalysis/images"})
    fs::create_directories(tmp / sub, ec);
  if (ec) return internal_error("cannot create '" + tmp.string() + "': " + ec.message());
  BIOAGENT_RETURN_IF_ERROR(write_bundle_files(tmp));
  if (fs::exists(dir, ec)) fs::remove(dir, ec);  // an empty folder
  fs::create_directories(dir.parent_path(), ec);
  fs::rename(tmp, dir, ec);
  if (ec) return internal_error("cannot move the example bundle into '" + dir.string() + "': " + ec.message());
  return {};
}

}  // namespace bioagent
