// Where an owner's species folders are: its uploads, its chosen folder of a
// server-side data root (`serve --root`), the roots' species folders and the
// shared folder; the names answers show (root name + relative path, never a
// server path).
#include <re2/re2.h>

#include <fstream>
#include <set>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

constexpr int kFolderDepth = 2;  // species folders: the root's children and grandchildren

// `inner` lies inside `outer` (both canonical).
bool inside(const fs::path& inner, const fs::path& outer) {
  auto rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

// The species folder's files the pipeline reads, with the kind and bytes of each
// (and the name it reads each as); links leading out of the root are not offered.
Json folder_files(const fs::path& dir, const fs::path& root) {
  return data_view_plan(dir, "", [&](const fs::path& real) { return inside(real, root); })["read"];
}

// `state`: the server's state folder (every session's uploads and runs), never listed even inside a root.
void list_folders(const fs::path& dir, const fs::path& root, const fs::path& state, int depth, Json& out) {
  std::error_code ec;
  std::vector<fs::path> subdirs;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (!name.empty() && name[0] != '.' && e.is_directory(ec) && !e.is_symlink(ec) && e.path() != state &&
        !inside(e.path(), state))
      subdirs.push_back(e.path());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (auto& d : subdirs) {
    Json plan = data_view_plan(d, "", [&](const fs::path& real) { return inside(real, root); });
    if (!plan["read"].empty() && !plan["prefix"].get<std::string>().empty())
      out.push_back({{"folder", d.lexically_relative(root).generic_string()},
                     {"prefix", plan["prefix"]},
                     {"family", plan["family"]},
                     {"files", plan["read"]}});
    if (depth > 1) list_folders(d, root, state, depth - 1, out);
  }
}

// The state folder (every session's uploads and runs), canonical: never a data folder, even inside a root.
fs::path state_folder_of(const RunServiceOptions& o) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(o.state_dir, ec);
  return ec ? o.state_dir : p;
}

fs::path selection_file(const fs::path& session_dir) { return session_dir / "data_folder.json"; }

// The session's chosen folder ({root, folder, prefix}), or an empty object.
Json read_selection(const fs::path& session_dir) {
  std::ifstream in(selection_file(session_dir));
  if (!in) return Json::object();
  Json j = Json::parse(std::string(std::istreambuf_iterator<char>(in), {}), nullptr, false);
  return j.is_object() ? j : Json::object();
}

}  // namespace

Result<std::vector<DataRoot>> name_data_roots(const std::vector<std::string>& paths) {
  std::vector<DataRoot> out;
  for (auto& p : paths) {
    std::error_code ec;
    fs::path canon = fs::canonical(p, ec);
    if (ec || !fs::is_directory(canon, ec)) return invalid_argument("data root '" + p + "' is not a folder");
    std::string base = canon.filename().string();
    if (base.empty()) base = "root";
    std::string name = base;
    for (int n = 2; std::any_of(out.begin(), out.end(), [&](const DataRoot& r) { return r.name == name; }); ++n)
      name = base + "-" + std::to_string(n);
    out.push_back({name, canon});
  }
  return out;
}

Result<fs::path> RunService::Impl::resolve_data_folder(const std::string& root, const std::string& folder) const {
  auto it = std::find_if(o.data_roots.begin(), o.data_roots.end(), [&](const DataRoot& r) { return r.name == root; });
  if (it == o.data_roots.end()) return not_found("no data root named '" + root.substr(0, 80) + "'");
  // A relative name of plain parts: no '..', no absolute path, no hidden or empty part.
  static const RE2 part("[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}");
  if (folder.empty() || folder.size() > 1024 || folder.front() == '/')
    return invalid_argument("folder must be a name relative to the root (e.g. Lchi)");
  size_t start = 0;
  while (start <= folder.size()) {
    size_t slash = folder.find('/', start);
    std::string p = folder.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!RE2::FullMatch(p, part) || p.find("..") != std::string::npos)
      return invalid_argument("folder '" + folder.substr(0, 200) + "' is not a plain relative name under the root");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::error_code ec;
  fs::path real = fs::canonical(it->path / folder, ec);
  if (ec || !fs::is_directory(real, ec)) return not_found("no folder '" + folder + "' in data root '" + root + "'");
  if (!inside(real, it->path))  // a link leading out of the root
    return Status(ErrorCode::kPermissionDenied, "folder '" + folder + "' leads out of data root '" + root + "'");
  if (real == state_folder_of(o) || inside(real, state_folder_of(o)))  // other sessions' uploads and runs
    return Status(ErrorCode::kPermissionDenied, "folder '" + folder + "' is the server's state folder");
  return real;
}

fs::path RunService::uploads_dir(const std::string& owner) const { return impl_->owner_dir(owner) / "data"; }

std::vector<fs::path> RunService::data_dirs(const std::string& owner) const {
  const Impl& i = *impl_;
  std::vector<fs::path> dirs;
  const bool named = check_owner(owner).is_ok();
  if (named) dirs.push_back(uploads_dir(owner));
  Json chosen = named ? read_selection(i.owner_dir(owner)) : Json::object();
  if (!chosen.empty())
    if (auto f = i.resolve_data_folder(chosen.value("root", ""), chosen.value("folder", ""))) dirs.push_back(*f);
  for (auto& r : i.o.data_roots) {
    dirs.push_back(r.path);
    std::error_code ec;
    for (auto& e : fs::directory_iterator(r.path, ec))  // root/<group>/<species>: one level more
      if (e.is_directory(ec) && !e.is_symlink(ec) && e.path().filename().string()[0] != '.' &&
          e.path() != state_folder_of(i.o))
        dirs.push_back(e.path());
  }
  dirs.push_back(i.o.data_dir);
  return dirs;
}

std::string RunService::selected_prefix(const std::string& owner) const {
  if (!check_owner(owner).is_ok()) return "";
  Json chosen = read_selection(impl_->owner_dir(owner));
  if (chosen.empty() || !impl_->resolve_data_folder(chosen.value("root", ""), chosen.value("folder", ""))) return "";
  return chosen.value("prefix", "");
}

const std::vector<DataRoot>& RunService::roots() const { return impl_->o.data_roots; }

const DataRoot* RunService::Impl::root_holding(const fs::path& path) const {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  const fs::path state = state_folder_of(o);
  if (real == state || inside(real, state)) return nullptr;  // uploads and runs, even when a root holds the state
  for (auto& r : o.data_roots)
    if (real == r.path || inside(real, r.path)) return &r;
  return nullptr;
}

std::string RunService::place_name(const std::string& owner, const fs::path& path) const {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  if (const DataRoot* r = impl_->root_holding(real))
    return r->name + ":" + real.lexically_relative(r->path).generic_string();
  auto under = [&](const fs::path& base, const std::string& name) -> std::string {
    fs::path b = fs::weakly_canonical(base, ec);
    if (real != b && !inside(real, b)) return "";
    std::string rel = real.lexically_relative(b).generic_string();
    return name + (rel == "." ? "" : ":" + rel);
  };
  if (std::string n = under(uploads_dir(owner), "uploads"); !n.empty()) return n;
  if (std::string n = under(impl_->o.data_dir, "shared data"); !n.empty()) return n;
  if (std::string n = under(impl_->owner_dir(owner) / "runs", "runs"); !n.empty()) return n;
  return path.filename().string();
}

Result<Json> RunService::data_roots(const std::string& owner) const {
  Json roots = Json::array();
  for (auto& r : impl_->o.data_roots) {
    Json folders = Json::array();
    list_folders(r.path, r.path, state_folder_of(impl_->o), kFolderDepth, folders);
    roots.push_back({{"name", r.name}, {"folders", folders}});
  }
  Json out = {{"roots", roots}, {"selected", nullptr}};
  if (check_owner(owner).is_ok()) {
    Json chosen = read_selection(impl_->owner_dir(owner));
    if (!chosen.empty()) out["selected"] = chosen;
  }
  return out;
}

Result<Json> RunService::select_data_folder(const std::string& owner, const std::string& root,
                                            const std::string& folder) {
  BIOAGENT_RETURN_IF_ERROR(check_owner(owner));
  fs::path file = selection_file(impl_->owner_dir(owner));
  std::error_code ec;
  if (root.empty()) {
    fs::remove(file, ec);
    return Json{{"selected", nullptr}};
  }
  auto real = impl_->resolve_data_folder(root, folder);
  if (!real) return real.status();
  Json plan = data_view_plan(*real, "", [&](const fs::path& p) { return inside(p, impl_->root_holding(*real)->path); });
  if (plan["read"].empty())  // FIFOs, devices, sockets and links out of the root are never data
    return not_found("folder '" + folder.substr(0, 200) + "' in data root '" + root +
                     "' holds no genome, annotation, sequence or HMM file (only regular files are read)");
  Json chosen = {{"root", root}, {"folder", folder}, {"prefix", plan["prefix"]}};
  fs::create_directories(file.parent_path(), ec);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << json_text(chosen, 2);
    if (!out) return Status(ErrorCode::kInternal, "cannot save the data folder choice");
  }
  return Json{{"selected", chosen}, {"files", folder_files(*real, impl_->root_holding(*real)->path)}};
}

fs::path find_species_folder(const std::vector<fs::path>& dirs, const std::string& prefix) {
  if (prefix.empty()) return {};
  std::error_code ec;
  // A folder holds the species when a file carries its prefix or the folder's download names read as it.
  // Only regular files count (a link is followed): a FIFO, socket or device node named as a genome is no data.
  auto holds = [&](const fs::path& d) {
    for (auto& e : fs::directory_iterator(d, ec))
      if (e.path().filename().string().rfind(prefix + ".", 0) == 0 && e.is_regular_file(ec)) return true;
    return data_view_plan(d, "").value("prefix", std::string()) == prefix;
  };
  for (auto& d : dirs) {
    if (!fs::is_directory(d, ec)) continue;
    if (holds(d)) return d;
    for (auto& e : fs::directory_iterator(d, ec))
      if (e.is_directory(ec) && e.path().filename().string()[0] != '.' && holds(e.path())) return e.path();
  }
  return {};
}

std::string family_file_name(std::string family) {
  for (auto& c : family)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return family;
}

}  // namespace bioagent
