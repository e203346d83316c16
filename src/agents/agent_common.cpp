// What the agent loops share: numbered sources, the result's rendering, and
// the JSONL trajectory.
#include <re2/re2.h>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "bioagent/agent.h"
#include "bioagent/json_text.h"

namespace bioagent {

Json AnswerSource::to_json() const {
  return Json{{"n", n}, {"title", title}, {"source", source}, {"locator", locator}};
}

namespace {
const char* const kStopReasonNames[] = {"", "answer", "max_turns", "budget", "error"};
}  // namespace

std::string to_string(StopReason reason) { return kStopReasonNames[static_cast<int>(reason)]; }

Result<StopReason> stop_reason_from_string(std::string_view name) {
  for (size_t i = 1; i < std::size(kStopReasonNames); ++i)
    if (name == kStopReasonNames[i]) return static_cast<StopReason>(i);
  return not_found("no stop reason '" + std::string(name.substr(0, 40)) + "'");
}

Json AgentResult::to_json() const {
  Json src = Json::array();
  for (auto& s : sources) src.push_back(s.to_json());
  Json j = {{"answer", answer},
            {"answer_value", answer_value},
            {"sources", src},
            {"stop_reason", to_string(stop_reason)},
            {"loop", loop},
            {"model", model},
            {"trajectory", trajectory_path},
            {"budget", budget},
            {"usage_line", budget_line}};
  if (!note.empty()) j["note"] = note;
  return j;
}

std::string AgentResult::render() const {
  std::string out = answer;
  if (!sources.empty()) {
    out += "\n\nSources:\n";
    for (auto& s : sources) {
      out += "[" + std::to_string(s.n) + "] " + (s.title.empty() ? "(untitled)" : s.title);
      if (!s.source.empty()) out += " — " + s.source;
      if (!s.locator.empty()) out += ", " + s.locator;
      out += "\n";
    }
  }
  if (!note.empty()) out += "\n" + note + "\n";
  out += "\n[" + loop + " loop · model " + model + " · " + budget_line +
         (stop_reason == StopReason::kAnswer ? "" : " · stopped: " + to_string(stop_reason)) + "]";
  if (!trajectory_path.empty()) out += "\n[trajectory: " + trajectory_path + "]";
  return out;
}

namespace {

void find_sources(const Json& j, int depth, std::vector<AnswerSource>& out,
                  const std::function<std::string(const std::string&)>& paper_title) {
  if (depth > 6) return;
  if (j.is_array()) {
    for (auto& x : j) find_sources(x, depth + 1, out, paper_title);
    return;
  }
  if (!j.is_object()) return;
  auto str = [](const Json& o, const char* k) {
    return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  if (j.contains("citation") && j["citation"].is_object()) {  // literature evidence
    const Json& c = j["citation"];
    AnswerSource s{0, str(c, "title"), str(c, "source"), str(c, "url"), ""};
    if (s.locator.empty() && !str(c, "doi").empty()) s.locator = "doi:" + str(c, "doi");
    s.key = !str(c, "doi").empty() ? "doi:" + str(c, "doi") : s.locator.empty() ? s.title : s.locator;
    out.push_back(s);
    return;
  }
  if (j.contains("pdf_id") && j.contains("page_number")) {  // paper-library hit
    std::string id = str(j, "pdf_id");
    int page = j["page_number"].is_number_integer() ? j["page_number"].get<int>() : -1;
    AnswerSource s{0, paper_title ? paper_title(id) : "", "paper library",
                   page > 0 ? "page " + std::to_string(page) : "", id + "#" + std::to_string(page)};
    if (s.title.empty()) s.title = "paper " + id.substr(0, 8);
    out.push_back(s);
    return;
  }
  if (j.contains("title") && (j.contains("url") || j.contains("source_api") || j.contains("doi"))) {  // seed 000 record
    AnswerSource s{0, str(j, "title"), str(j, "source_api"), str(j, "url"), ""};
    if (s.locator == "N/A") s.locator.clear();
    s.key = !str(j, "doi").empty() ? "doi:" + str(j, "doi") : s.locator.empty() ? s.title : s.locator;
    out.push_back(s);
    return;
  }
  for (auto& [k, v] : j.items())
    if (v.is_array() || v.is_object()) find_sources(v, depth + 1, out, paper_title);
}

}  // namespace

std::vector<int> SourceBook::number(const Json& result) {
  std::vector<AnswerSource> found;
  find_sources(result, 0, found, paper_title);
  std::vector<int> out;
  for (auto& s : found) {
    auto it = std::find_if(sources_.begin(), sources_.end(), [&](const AnswerSource& o) { return o.key == s.key; });
    if (it == sources_.end()) {
      s.n = static_cast<int>(sources_.size()) + 1;
      sources_.push_back(s);
      out.push_back(s.n);
    } else {
      out.push_back(it->n);
    }
  }
  return out;
}

std::string SourceBook::add_from(const std::string&, const Json& result) {
  std::string lines;
  std::set<int> listed;
  for (int n : number(result))
    if (listed.insert(n).second) {
      const AnswerSource& a = sources_[size_t(n - 1)];
      lines += "[" + std::to_string(n) + "] " + a.title + (a.source.empty() ? "" : " — " + a.source) +
               (a.locator.empty() ? "" : ", " + a.locator) + "\n";
    }
  return lines;
}

std::vector<AnswerSource> SourceBook::cited_in(const std::string& answer) const {
  static const RE2 kCite(R"(\[(\d{1,3})\])");
  std::set<int> cited;
  re2::StringPiece in(answer);
  int n = 0;
  while (RE2::FindAndConsume(&in, kCite, &n)) cited.insert(n);
  std::vector<AnswerSource> out;
  for (auto& s : sources_)
    if (cited.empty() || cited.count(s.n)) out.push_back(s);
  return out;
}

Result<Trajectory> Trajectory::open(const std::string& dir, const std::string& loop) {
  Trajectory t;
  if (dir.empty()) return t;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto now = std::chrono::system_clock::now();
  std::time_t tt = std::chrono::system_clock::to_time_t(now);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&tt));
  std::random_device rd;
  t.path_ = dir + "/" + stamp + "-" + loop + "-" + std::to_string(rd() % 100000) + ".jsonl";
  t.out_ = std::make_shared<std::ofstream>(t.path_);
  if (!*t.out_) return Status(ErrorCode::kInternal, "cannot write the trajectory file " + t.path_);
  return t;
}

void Trajectory::write(Json event) {
  if (!out_) return;
  Json line = {{"t", std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()}};
  for (auto& [k, v] : event.items()) line[k] = v;
  *out_ << json_text(line) << "\n";
  out_->flush();
}

}  // namespace bioagent
