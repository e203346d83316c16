// Server-side data roots (`serve --root`): the species folders found in them,
// a session's chosen folder, the names plans show (root name + relative path,
// never a server path) and the run's own view of a root folder (symbolic links
// under the names the pipeline expects, so a genome is read in place and never
// copied or renamed).
#include <re2/re2.h>

#include <fstream>
#include <set>

#include "assistant/agents.h"
#include "assistant/assistant_impl.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"

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
fs::path state_folder_of(const AssistantOptions& o) {
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

Result<fs::path> Assistant::Impl::resolve_data_folder(const std::string& root, const std::string& folder) const {
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

std::vector<fs::path> Assistant::Impl::data_dirs(const std::string& sid) const {
  std::vector<fs::path> dirs = {session_dir(sid) / "data"};
  Json chosen = read_selection(session_dir(sid));
  if (!chosen.empty())
    if (auto f = resolve_data_folder(chosen.value("root", ""), chosen.value("folder", ""))) dirs.push_back(*f);
  for (auto& r : o.data_roots) {
    dirs.push_back(r.path);
    std::error_code ec;
    for (auto& e : fs::directory_iterator(r.path, ec))  // root/<group>/<species>: one level more
      if (e.is_directory(ec) && !e.is_symlink(ec) && e.path().filename().string()[0] != '.' &&
          e.path() != state_folder_of(o))
        dirs.push_back(e.path());
  }
  dirs.push_back(o.data_dir);
  return dirs;
}

std::string Assistant::Impl::selected_prefix(const std::string& sid) const {
  Json chosen = read_selection(session_dir(sid));
  if (chosen.empty() || !resolve_data_folder(chosen.value("root", ""), chosen.value("folder", ""))) return "";
  return chosen.value("prefix", "");
}

const DataRoot* Assistant::Impl::root_holding(const fs::path& path) const {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  const fs::path state = state_folder_of(o);
  if (real == state || inside(real, state)) return nullptr;  // uploads and runs, even when a root holds the state
  for (auto& r : o.data_roots)
    if (real == r.path || inside(real, r.path)) return &r;
  return nullptr;
}

std::string Assistant::Impl::place_name(const std::string& sid, const fs::path& path) const {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  if (const DataRoot* r = root_holding(real)) return r->name + ":" + real.lexically_relative(r->path).generic_string();
  fs::path uploads = fs::weakly_canonical(session_dir(sid) / "data", ec);
  if (real == uploads || inside(real, uploads)) {
    std::string rel = real.lexically_relative(uploads).generic_string();
    return "uploads" + std::string(rel == "." ? "" : ":" + rel);
  }
  fs::path shared = fs::weakly_canonical(o.data_dir, ec);
  if (real == shared || inside(real, shared)) {
    std::string rel = real.lexically_relative(shared).generic_string();
    return "shared data" + std::string(rel == "." ? "" : ":" + rel);
  }
  return path.filename().string();
}

Result<Json> Assistant::Impl::link_root_folder(const fs::path& folder, const fs::path& view) const {
  const DataRoot* root = root_holding(folder);
  if (!root) return invalid_argument("not a folder of a data root");
  const Json plan = data_view_plan(folder, "", [&](const fs::path& real) { return inside(real, root->path); });
  BIOAGENT_RETURN_IF_ERROR(link_data_view(folder, plan, view));
  Json read = Json::array();
  for (auto& f : plan["read"]) {
    Json row = {{"file", root->name + ":" +
                             (folder / f["name"].get<std::string>()).lexically_relative(root->path).generic_string()},
                {"kind", f["kind"]},
                {"bytes", f["bytes"]}};
    if (f.contains("read_as")) row["read_as"] = f["read_as"];
    read.push_back(row);
  }
  return Json{{"read_in_place", read}, {"not_read", plan["not_read"]}};
}

void Assistant::Impl::name_plan_places(const std::string& sid, Json& p) const {
  const fs::path folder = p.value("data_dir", std::string());
  p.erase("data_dir");  // a server path: answers name places, not paths
  if (folder.empty() || !p.contains("plan")) return;
  Json& ref = p["plan"]["analysis_plan"]["reference_genome"];
  const std::string place = place_name(sid, folder);
  ref["local_path"] = place;
  const bool in_root = root_holding(folder) != nullptr;
  Json read = Json::array();
  std::error_code ec;
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(folder, ec))
    if (e.is_regular_file(ec) && e.path().filename().string()[0] != '.') names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (auto& name : names) {
    Json c = check_file_name(name);
    if (!c["kind"].is_string()) continue;
    std::string line = place + "/" + name;
    if (c.value("fixable", false)) line += " (read as " + c.value("fix", std::string()) + ")";
    read.push_back(line);
  }
  ref["files_read"] = read;
  if (in_root)
    ref["read_in_place"] =
        "the run reads these files where they are on the server (links in its own folder; nothing copied or renamed)";
  // Messages of the naming check may quote the folder: they name the place instead.
  std::string text = p["plan"].dump();
  for (const std::string path : {fs::absolute(folder).string(), folder.string()})
    for (size_t at; !path.empty() && (at = text.find(path)) != std::string::npos;) text.replace(at, path.size(), place);
  Json named = Json::parse(text, nullptr, false);
  if (!named.is_discarded()) p["plan"] = named;
  p["yaml"] = to_yaml(p["plan"]);
}

Result<Json> Assistant::data_roots(const std::string& sid) const {
  Json roots = Json::array();
  for (auto& r : impl_->o.data_roots) {
    Json folders = Json::array();
    list_folders(r.path, r.path, state_folder_of(impl_->o), kFolderDepth, folders);
    roots.push_back({{"name", r.name}, {"folders", folders}});
  }
  Json out = {{"roots", roots}, {"selected", nullptr}};
  if (!sid.empty()) {
    BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
    Json chosen = read_selection(impl_->session_dir(sid));
    if (!chosen.empty()) out["selected"] = chosen;
  }
  return out;
}

Result<Json> Assistant::select_data_folder(const std::string& sid, const std::string& root, const std::string& folder) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  fs::path file = selection_file(impl_->session_dir(sid));
  std::error_code ec;
  if (root.empty()) {
    fs::remove(file, ec);
    return Json{{"selected", nullptr}};
  }
  auto real = impl_->resolve_data_folder(root, folder);
  if (!real) return real.status();
  auto c = check_species_data(*real, "", "", false);
  Json chosen = {{"root", root}, {"folder", folder}};
  if (c) chosen["prefix"] = (*c)["prefix"];
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << chosen.dump(2);
    if (!out) return Status(ErrorCode::kInternal, "cannot save the session's data folder choice");
  }
  return Json{{"selected", chosen}, {"files", folder_files(*real, impl_->root_holding(*real)->path)}};
}

}  // namespace bioagent
