#include "genefamily/algo/iqtree_log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bioagent/genefamily.h"

namespace bioagent {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The leading number of a ModelFinder table row ("  12  LG+F+G4   4902.5 ..."), 0 otherwise.
int model_row_number(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t digits = i;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
  if (digits == i || digits - i > 6 || digits >= line.size() || line[digits] != ' ') return 0;
  size_t name = digits;
  while (name < line.size() && line[name] == ' ') ++name;
  if (name >= line.size() || !std::isupper(static_cast<unsigned char>(line[name]))) return 0;
  return std::atoi(std::string(line.substr(i, digits - i)).c_str());
}

// "Iteration 30 / LogL: -4921.978 / Time: 0h:0m:58s (0h:2m:23s left)" -> {30, "2:23"}.
std::pair<int, std::string> iteration(std::string_view line) {
  int it = std::atoi(std::string(line.substr(10, 8)).c_str());
  std::string left;
  auto open = line.rfind('(');
  auto close = line.find(" left)", open == std::string_view::npos ? line.size() : open);
  if (open != std::string_view::npos && close != std::string_view::npos) {
    std::string t(line.substr(open + 1, close - open - 1));  // 0h:2m:23s
    int h = 0, m = 0, s = 0;
    if (std::sscanf(t.c_str(), "%dh:%dm:%ds", &h, &m, &s) == 3) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%d:%02d", h * 60 + m, s);
      left = buf;
    }
  }
  return {it, left};
}

}  // namespace

std::string iqtree_phase(std::string_view log) {
  std::string phase;
  int models = 0, model = 0;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    std::string_view line = log.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? log.size() : end + 1;
    if (starts_with(line, "Perform fast likelihood tree search")) {
      phase = "initial tree";
    } else if (starts_with(line, "ModelFinder will test up to ")) {
      models = std::atoi(std::string(line.substr(28, 8)).c_str());
      model = 0;
      phase = "ModelFinder 0/" + std::to_string(models);
    } else if (models > 0 && model >= 0 && model_row_number(line) > 0) {
      model = std::min(model_row_number(line), models);
      phase = "ModelFinder " + std::to_string(model) + "/" + std::to_string(models);
    } else if (starts_with(line, "Best-fit model:")) {
      model = -1;  // the table is over
      phase = "ModelFinder done";
    } else if (starts_with(line, "Iteration ")) {
      auto [it, left] = iteration(line);
      // at least 100 iterations, then on until the bootstrap converges: no fixed total
      phase = "UFBoot " + std::to_string(it) + "/≥100" + (left.empty() ? "" : " ~" + left);
    } else if (starts_with(line, "TREE SEARCH COMPLETED") || line.find("FINALIZING TREE SEARCH") != line.npos) {
      phase = "final optimisation";
    } else if (starts_with(line, "Computing bootstrap consensus tree")) {
      phase = "UFBoot consensus";
    }
  }
  return phase;
}

int iqtree_threads(std::string_view log) {
  auto kernel = log.find("\nKernel:");
  auto threads = kernel == std::string_view::npos ? kernel : log.find(" threads", kernel);
  auto dash = threads == std::string_view::npos ? threads : log.rfind("- ", threads);
  if (dash == std::string_view::npos || dash < kernel) return 1;
  return std::max(1, std::atoi(std::string(log.substr(dash + 2, threads - dash - 2)).c_str()));
}

namespace {
std::string minutes_seconds(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}
}  // namespace

std::string iqtree_progress_text(const std::string& phase, double expected_seconds, double elapsed_seconds,
                                 int sequences, int columns) {
  if (phase.empty() || phase.find('~') != std::string::npos || expected_seconds < 0) return phase;
  const std::string size = std::to_string(sequences) + " × " + std::to_string(columns);
  if (elapsed_seconds < expected_seconds)
    return phase + " · ~" + minutes_seconds(expected_seconds - elapsed_seconds) + " left (" +
           std::to_string(int(expected_seconds / 60 + 1)) + " min expected for " + size + ")";
  return phase + " · " + minutes_seconds(elapsed_seconds) + " so far, past the " +
         std::to_string(int(expected_seconds / 60 + 1)) + " min expected for " + size;
}

double iqtree_expected_seconds(int sequences, int columns, int cpus) {
  if (sequences <= 0 || columns <= 0) return -1;
  // CPU seconds ~ k · sequences² · columns: each likelihood costs sequences ·
  // columns, and the tree search's NNI rounds (100 at least, with UFBoot) grow
  // with the sequences. k from the phylogeny stage's restricted run on one thread
  // (ModelFinder, tree search, 1,000 UFBoot) on real families: 94 Ostreococcus MYB
  // proteins × 147 columns, 442 CPU s (k 3.4e-4); HMMER's 45 globins × 154 columns,
  // 78 CPU s (k 2.5e-4). Generated families are more divergent than real ones
  // (55 FN3 × 196 columns took 487 CPU s: k 8.2e-4), so they run longer than said.
  // IQ-TREE's second thread gains about 60% on alignments of a few hundred columns.
  constexpr double kCpuSecondsPerUnit = 3.5e-4, kExtraThreadGain = 0.6;
  const double cpu = kCpuSecondsPerUnit * double(sequences) * sequences * columns;
  return cpu / (1 + (std::max(1, cpus) - 1) * kExtraThreadGain);
}

}  // namespace bioagent
