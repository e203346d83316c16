#include "bioagent/workspace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace bioagent {
namespace {

bool is_under(const fs::path& child, const fs::path& root) {
  auto c = child.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++c) {
    if (r->empty()) continue;  // trailing separator of the root
    if (c == child.end() || *c != *r) return false;
  }
  return true;
}

std::string roots_text(const std::vector<fs::path>& roots) {
  std::string out;
  for (auto& r : roots) out += (out.empty() ? "" : ", ") + r.string();
  return out;
}

}  // namespace

Result<Workspace> Workspace::create(const std::vector<std::string>& roots) {
  Workspace w;
  for (const auto& r : roots) {
    if (r.empty()) continue;
    std::error_code ec;
    fs::path canon = fs::canonical(r, ec);
    if (ec || !fs::is_directory(canon)) {
      return not_found("workspace root '" + r + "' does not exist or is not a directory");
    }
    w.roots_.push_back(canon);
  }
  if (w.roots_.empty()) return invalid_argument("the workspace needs at least one root directory");
  return w;
}

Result<Workspace> Workspace::from_environment(const std::vector<std::string>& extra_roots) {
  std::vector<std::string> roots = extra_roots;
  if (roots.empty()) roots.push_back(fs::current_path().string());
  if (const char* env = std::getenv("BIOAGENT_ROOTS")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':')) roots.push_back(item);
  }
  return create(roots);
}

bool Workspace::contains(const fs::path& canonical) const {
  if (is_excluded(canonical)) return false;
  for (auto& r : roots_) {
    if (is_under(canonical, r)) return true;
  }
  return false;
}

void Workspace::exclude(const fs::path& folder) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(fs::absolute(folder, ec), ec);
  if (!canon.empty()) excluded_.push_back(canon);
}

void Workspace::allow_inside_excluded(const fs::path& folder) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(fs::absolute(folder, ec), ec);
  if (!canon.empty()) excepted_.push_back(canon);
}

bool Workspace::is_excluded(const fs::path& canonical) const {
  for (auto& x : excepted_)
    if (is_under(canonical, x)) return false;
  for (auto& x : excluded_)
    if (is_under(canonical, x)) return true;
  return false;
}

Workspace Workspace::for_session(const fs::path& session_folder) const {
  Workspace w = without_session();
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(fs::absolute(session_folder, ec), ec);
  if (canon.empty()) return w;
  w.roots_.push_back(canon);
  w.excepted_.push_back(canon);
  w.has_session_ = true;
  return w;
}

Workspace Workspace::without_session() const {
  Workspace w = *this;
  if (w.has_session_) {
    w.roots_.pop_back();
    w.excepted_.pop_back();
    w.has_session_ = false;
  }
  return w;
}

std::string Workspace::display(const fs::path& canonical) const {
  const fs::path* best = nullptr;
  for (auto& r : roots_)
    if (is_under(canonical, r) && (!best || r.string().size() > best->string().size())) best = &r;
  if (!best) return canonical.filename().string();
  fs::path rel = canonical.lexically_relative(*best);
  return rel.empty() ? "." : rel.string();
}

std::string Workspace::scrub(std::string text) const {
  if (!hide_paths_) return text;
  std::vector<std::pair<std::string, std::string>> names;  // (absolute, shown), longest first
  for (auto& r : roots_) names.emplace_back(r.string(), ".");
  for (auto& x : excluded_) names.emplace_back(x.string(), "[state folder]");
  std::sort(names.begin(), names.end(), [](auto& a, auto& b) { return a.first.size() > b.first.size(); });
  for (auto& [abs, shown] : names) {
    if (abs.empty() || abs == "/") continue;
    for (size_t at = 0; (at = text.find(abs, at)) != std::string::npos;) {
      const size_t end = at + abs.size();
      const unsigned char next = end < text.size() ? static_cast<unsigned char>(text[end]) : ' ';
      if (std::isalnum(next) || next == '_' || next == '-' || next == '.') {  // a longer name
        at = end;
        continue;
      }
      bool sub = next == '/';
      std::string with = sub && shown == "." ? "" : shown;
      text.replace(at, abs.size() + (sub && shown == "." ? 1 : 0), with);
      at += with.size();
    }
  }
  return text;
}

Status Workspace::scrub(const Status& s) const {
  if (!hide_paths_ || s.is_ok()) return s;
  Status out(s.code(), scrub(s.message()));
  const Json& d = s.details();
  for (auto it = d.begin(); d.is_object() && it != d.end(); ++it)
    out.with(it.key(), it->is_string() ? Json(scrub(it->get<std::string>())) : *it);
  return out;
}

Result<fs::path> Workspace::resolve(const std::string& user_path) const {
  if (user_path.empty()) return invalid_argument("empty path");
  if (user_path.find('\0') != std::string::npos) return invalid_argument("path contains a NUL byte");
  fs::path p(user_path);
  std::error_code ec;
  if (p.is_relative()) {
    fs::path first = roots_.front() / p;
    for (auto& r : roots_)
      if (fs::exists(r / p, ec)) {
        first = r / p;
        break;
      }
    p = first;
  }
  // weakly_canonical resolves symlinks in the existing prefix and folds "..".
  fs::path canon = fs::weakly_canonical(p, ec);
  if (ec) return invalid_argument("cannot resolve path '" + user_path + "': " + ec.message());
  if (is_excluded(canon)) {
    // The path is not echoed: it may name another session.
    return permission_denied("the path is inside the server's state folder, which no tool reads");
  }
  if (!contains(canon) && hide_paths_) {
    return permission_denied(
        "the path lies outside the folders tools may read (the session's own files and "
        "the data folders the server was started with); name a file inside them, as "
        "the results print it");
  }
  if (!contains(canon)) {
    Status s = permission_denied("path '" + user_path + "' resolves to '" + canon.string() +
                                 "', outside the workspace roots (" + roots_text(roots_) +
                                 "); add a root with --root or BIOAGENT_ROOTS");
    s.with("path", user_path).with("resolved", canon.string());
    return s;
  }
  return canon;
}

Result<fs::path> Workspace::resolve_existing(const std::string& user_path) const {
  auto r = resolve(user_path);
  if (!r) return r;
  std::error_code ec;
  if (!fs::exists(*r, ec)) {
    Status s = not_found("'" + user_path + "' does not exist");
    s.with("path", user_path);
    return s;
  }
  return r;
}

}  // namespace bioagent
