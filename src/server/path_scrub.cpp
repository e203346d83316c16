// PathScrubber (see path_scrub.h).
#include "server/path_scrub.h"

#include <algorithm>
#include <cctype>

namespace bioagent::server {

namespace {

std::vector<std::string> forms(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::string given = p.lexically_normal().string();
  while (given.size() > 1 && given.back() == '/') given.pop_back();
  if (given.size() > 1) out.push_back(given);
  std::error_code ec;
  const std::string canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec).string();
  if (!ec && canonical.size() > 1 && canonical != given) out.push_back(canonical);
  return out;
}

}  // namespace

PathScrubber::PathScrubber(const std::filesystem::path& state,
                           std::vector<std::pair<std::filesystem::path, std::string>> folders) {
  if (!state.empty())
    for (auto& f : forms(state)) prefixes_.push_back({f, "", true});
  for (auto& [folder, to] : folders)
    if (!folder.empty())
      for (auto& f : forms(folder)) prefixes_.push_back({f, to, false});
  std::stable_sort(prefixes_.begin(), prefixes_.end(),
                   [](const Prefix& a, const Prefix& b) { return a.from.size() > b.from.size(); });
}

bool PathScrubber::applies_to(const std::string& content_type) {
  for (const char* t : {"application/json", "text/event-stream", "text/plain", "application/problem+json"})
    if (content_type.rfind(t, 0) == 0) return true;
  return false;
}

void PathScrubber::scrub(std::string& text) const {
  for (const Prefix& p : prefixes_) {
    for (size_t at = text.find(p.from); at != std::string::npos; at = text.find(p.from, at)) {
      size_t end = at + p.from.size();
      const char next = end < text.size() ? text[end] : '\0';
      // Only the whole folder name: "/srv/state" is not a prefix of "/srv/state2".
      const bool name_ends = next == '/' || next == '"' || next == '\'' || next == ' ' || next == '\0' || next == ')' ||
                             next == '\n' || next == ',' || next == ':' || next == '\\';
      if (!name_ends) {
        at = end;
        continue;
      }
      std::string to = p.to;
      if (next == '/') {
        ++end;
        if (p.session && text.compare(end, 9, "sessions/") == 0) {  // "<state>/sessions/<id>/x" -> "x"
          size_t id_end = end + 9;
          while (id_end < text.size() && (std::isalnum(static_cast<unsigned char>(text[id_end])) ||
                                          text[id_end] == '-' || text[id_end] == '_' || text[id_end] == '.'))
            ++id_end;
          if (id_end < text.size() && text[id_end] == '/' && id_end > end + 9) end = id_end + 1;
        }
      } else {
        to = to.empty() ? "." : to;  // the folder itself
      }
      text.replace(at, end - at, to);
      at += to.size();
    }
  }
}

}  // namespace bioagent::server
