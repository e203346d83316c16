#include "bioagent/bundle.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace bioagent {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool inside(const fs::path& child, const fs::path& root) {
  auto c = child.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++c) {
    if (r->empty()) continue;
    if (c == child.end() || *c != *r) return false;
  }
  return true;
}

// Every string in these manifest fields names a file of the bundle.
const char* kFileMaps[] = {"tf_catalog", "communities", "images"};
const char* kFileFields[] = {"wave_search_file", "tf_correlation_file", "ui_texts_file"};

}  // namespace

Result<DataBundle> DataBundle::open(const fs::path& dir) {
  std::error_code ec;
  fs::path root = fs::canonical(dir, ec);
  if (ec || !fs::is_directory(root)) {
    Status s = not_found("data bundle folder '" + dir.string() + "' does not exist");
    s.with("path", dir.string());
    return s;
  }
  fs::path manifest_path = root / "bundle.json";
  std::ifstream in(manifest_path, std::ios::binary);
  if (!in) {
    Status s = not_found("'" + root.string() +
                         "' is not a data bundle: it has no bundle.json manifest (write one, or create the example "
                         "bundle with `bioagent data example-bundle DIR`)");
    s.with("path", root.string());
    return s;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  DataBundle b;
  b.root_ = root;
  b.manifest_ = Json::parse(ss.str(), nullptr, false);
  if (b.manifest_.is_discarded() || !b.manifest_.is_object())
    return parse_error("'" + manifest_path.string() + "' is not a JSON object");
  // Check every path the manifest names now, so no tool ever follows one out.
  auto check = [&](const std::string& where, const Json& v) -> Status {
    if (!v.is_string()) return parse_error("'" + manifest_path.string() + "': " + where + " must be a string path");
    auto r = b.resolve(v.get<std::string>());
    if (!r && r.status().code() == ErrorCode::kPermissionDenied)
      return Status(ErrorCode::kPermissionDenied, "'" + manifest_path.string() + "': " + where + " ('" +
                                                      v.get<std::string>() + "') points outside the bundle");
    return {};
  };
  for (const char* section : kFileMaps) {
    if (!b.manifest_.contains(section)) continue;
    if (!b.manifest_[section].is_object())
      return parse_error("'" + manifest_path.string() + "': '" + section + "' must be an object");
    for (auto& [k, v] : b.manifest_[section].items())
      BIOAGENT_RETURN_IF_ERROR(check(std::string(section) + "." + k, v));
  }
  for (const char* field : kFileFields) {
    if (b.manifest_.contains(field)) BIOAGENT_RETURN_IF_ERROR(check(field, b.manifest_[field]));
  }
  return b;
}

std::string DataBundle::web_path(const std::string& relative) const {
  std::string prefix = manifest_.value("web_prefix", "www");
  return prefix.empty() ? relative : prefix + "/" + relative;
}

Result<fs::path> DataBundle::resolve(const std::string& relative) const {
  std::string rel = relative;
  std::string prefix = manifest_.value("web_prefix", "www") + "/";
  if (rel.rfind(prefix, 0) == 0) rel = rel.substr(prefix.size());
  if (rel.empty()) return invalid_argument("empty path");
  if (rel.find('\0') != std::string::npos) return invalid_argument("path contains a NUL byte");
  fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : root_ / rel;
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(p, ec);
  if (ec || !inside(canon, root_)) {
    Status s = permission_denied("'" + relative + "' lies outside the data bundle '" + root_.string() + "'");
    s.with("path", relative);
    return s;
  }
  return canon;
}

std::string DataBundle::find_key(const std::string& section, const std::string& key) const {
  if (!manifest_.contains(section) || !manifest_[section].is_object()) return "";
  const std::string want = lower(key);
  for (auto& [k, v] : manifest_[section].items()) {
    if (lower(k) == want) return k;
  }
  return "";
}

std::vector<std::string> DataBundle::keys(const std::string& section) const {
  std::vector<std::string> out;
  if (manifest_.contains(section) && manifest_[section].is_object()) {
    for (auto& [k, v] : manifest_[section].items()) out.push_back(k);
  }
  return out;
}

fs::path default_bundle_dir() {
  if (const char* home = std::getenv("BIOAGENT_HOME"); home && *home) return fs::path(home) / "example-bundle";
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return fs::path(xdg) / "bioagent/example-bundle";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".local/share/bioagent/example-bundle";
  return fs::temp_directory_path() / "bioagent/example-bundle";
}

}  // namespace bioagent
