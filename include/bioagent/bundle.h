// A data bundle: a folder laid out like TaijiChat's www/ (Excel tables, images,
// UI texts) plus a manifest, bundle.json, that maps the identifiers the data
// tools accept (datasets, images, waves, links) to files and texts. Any lab can
// point the tools at its own bundle. Every manifest path must stay inside the
// bundle. Immutable after open(); thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

class DataBundle {
 public:
  // Reads and checks DIR/bundle.json.
  static Result<DataBundle> open(const std::filesystem::path& dir);

  const std::filesystem::path& root() const { return root_; }
  const Json& manifest() const { return manifest_; }
  // The prefix of web paths the tools return ("www" → "www/images/a.png").
  std::string web_path(const std::string& relative) const;

  // A file named by the manifest or by a user: relative to the bundle root (a
  // leading "www/" is accepted), and it must stay inside the bundle.
  Result<std::filesystem::path> resolve(const std::string& relative) const;

  // Case-insensitive lookup in a manifest map ("tf_catalog", "images", ...):
  // the canonical key, or empty when absent.
  std::string find_key(const std::string& section, const std::string& key) const;
  std::vector<std::string> keys(const std::string& section) const;

 private:
  std::filesystem::path root_;
  Json manifest_;
};

// Writes the generated demonstration bundle (nine CD8+ T-cell states, TF
// PageRank tables, seven TF waves, correlations, communities, images, UI texts)
// into `dir`, which must not exist or be empty.
Status write_example_bundle(const std::filesystem::path& dir);

// Where the example bundle lives when no bundle is configured:
// $BIOAGENT_HOME or $XDG_DATA_HOME/bioagent or ~/.local/share/bioagent, + /example-bundle.
std::filesystem::path default_bundle_dir();

// Registers the sixteen data tools' types (seed 000) with `registry`.
class ToolRegistry;
void register_data_tool_types(ToolRegistry& registry);

}  // namespace bioagent
