// The web UI's built files, read once when the server starts. A request names
// an entry of this fixed set; no request path is ever joined onto a folder.
#include <fstream>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

constexpr size_t kMaxAssetsBytes = size_t(64) << 20;  // a built UI is a few hundred KiB

std::string mime_of(const fs::path& p) {
  static const std::map<std::string, std::string> m = {{".html", "text/html; charset=utf-8"},
                                                       {".js", "text/javascript"},
                                                       {".css", "text/css"},
                                                       {".svg", "image/svg+xml"},
                                                       {".png", "image/png"},
                                                       {".json", "application/json"},
                                                       {".ico", "image/x-icon"},
                                                       {".woff2", "font/woff2"}};
  auto it = m.find(p.extension().string());
  return it == m.end() ? "application/octet-stream" : it->second;
}

}  // namespace

Result<WebAssets> WebAssets::load(const fs::path& dir) {
  WebAssets a;
  if (dir.empty()) return a;
  std::error_code ec;
  size_t total = 0;
  // Regular files only: symlinks are not followed, hidden entries are skipped.
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    std::string rel = fs::relative(it->path(), dir, ec).generic_string();
    if (ec || rel.empty() || rel.find("..") != std::string::npos) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string body(std::istreambuf_iterator<char>(in), {});
    total += body.size();
    if (total > kMaxAssetsBytes)
      return resource_exhausted("the web UI folder " + dir.string() + " holds more than 64 MiB; is it the built UI?");
    a.files_[rel] = {std::move(body), mime_of(it->path())};
  }
  if (ec) return internal_error("cannot read the web UI folder " + dir.string() + ": " + ec.message());
  return a;
}

const WebAssets::Asset* WebAssets::find(const std::string& name) const {
  auto it = files_.find(name.empty() ? "index.html" : name);
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace bioagent::server
