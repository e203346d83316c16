// The workspace sandbox: file-reading tools resolve user-supplied paths only
// under configured roots. Relative paths resolve against the first root;
// absolute paths must fall under some root; ".." escapes and symlinks whose
// target lies outside every root are refused. Immutable after construction;
// thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

class Workspace {
 public:
  // Roots are canonicalised; a root that does not exist is an error.
  static Result<Workspace> create(const std::vector<std::string>& roots);
  // Default: the current directory, plus roots from BIOAGENT_ROOTS (':'-separated).
  static Result<Workspace> from_environment(const std::vector<std::string>& extra_roots = {});

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

  // Canonical path of `user_path` if it lies inside a root (the file itself
  // need not exist: its existing ancestors are resolved, symlinks included).
  Result<std::filesystem::path> resolve(const std::string& user_path) const;
  // As resolve(), and the path must exist (kNotFound otherwise).
  Result<std::filesystem::path> resolve_existing(const std::string& user_path) const;

  // Under a root and under no excluded folder.
  bool contains(const std::filesystem::path& canonical) const;

  // A folder no tool may read even where it lies under a root (the server's
  // state folder, which holds every session). Canonicalised; it need not exist.
  void exclude(const std::filesystem::path& folder);
  // A folder inside an excluded one that stays readable (the example data the
  // server writes into its state folder).
  void allow_inside_excluded(const std::filesystem::path& folder);
  const std::vector<std::filesystem::path>& excluded() const { return excluded_; }
  bool is_excluded(const std::filesystem::path& canonical) const;

  // The workspace a tool sees inside one session: these roots plus the
  // session's own folder (readable although it lies in the excluded state
  // folder, and no other session's is). A relative path names the first
  // folder where it exists (the roots in order, then the session's folder).
  Workspace for_session(const std::filesystem::path& session_folder) const;
  // This workspace without the session's folder for_session() added (itself
  // when it has none): what may be kept beyond one session's call.
  Workspace without_session() const;
  // Refusals name no absolute path (neither the roots nor what a path
  // resolved to): for servers, whose clients must not learn server paths.
  void hide_absolute_paths() { hide_paths_ = true; }
  // With hidden paths: `text` with every root written as results print paths
  // (a file under a root relative to it, the root itself "."; the state folder
  // "[state folder]"); else `text` unchanged.
  std::string scrub(std::string text) const;
  // The same over a Status's message and string details.
  Status scrub(const Status& s) const;

  // `canonical` as results print it: relative to the root it lies under ("."
  // for the root itself), so no absolute server path reaches a client.
  std::string display(const std::filesystem::path& canonical) const;

 private:
  std::vector<std::filesystem::path> roots_;
  std::vector<std::filesystem::path> excluded_, excepted_;
  bool hide_paths_ = false;
  bool has_session_ = false;  // roots_ and excepted_ end with the session's folder
};

}  // namespace bioagent
