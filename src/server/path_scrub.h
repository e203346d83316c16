// Server paths out of what clients read: every JSON, event-stream or plain-text
// response body (and each streamed piece) has the server's folders (the state
// folder, the shared species folder, the data roots, the workspace roots)
// replaced by names relative to them: "<state>/sessions/<id>/x" -> "x",
// "<state>/y" -> "y", "<root>/z" -> "<root name>:z" (as RunService::place_name
// names places). The messages themselves
// name files relative to the session or data root; this is the edge that
// catches what a library or a tool's output still carries.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace bioagent::server {

class PathScrubber {
 public:
  // `folders`: (folder, what replaces it with its slash), e.g. ("/srv/roots/genomes", "genomes:");
  // `state`: the state folder, whose sessions/<id>/ prefix goes as well. Canonical and given forms both.
  PathScrubber(const std::filesystem::path& state, std::vector<std::pair<std::filesystem::path, std::string>> folders);
  // Whether bodies of this content type are scrubbed (text kinds only; files and images never).
  static bool applies_to(const std::string& content_type);
  void scrub(std::string& text) const;

 private:
  struct Prefix {
    std::string from, to;
    bool session = false;  // the state folder: a following "sessions/<id>/" goes too
  };
  std::vector<Prefix> prefixes_;  // longest first
};

}  // namespace bioagent::server
