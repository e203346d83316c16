// One MCP connection's message routing (see mcp_streams.h): request streams
// kept for Last-Event-ID replay, and the queue of the session's GET stream.
#include "server/mcp_streams.h"

#include <algorithm>

#include "bioagent/json_text.h"

namespace bioagent::server {

bool is_rpc_response(const std::string& line) {
  Json m = parse_json_bounded(line);
  return m.is_object() && m.contains("id") && !m.contains("method");
}

bool is_rpc_request(const std::string& line) {
  Json m = parse_json_bounded(line);
  return m.is_object() && m.contains("id") && m.contains("method");
}

McpConnection::~McpConnection() { session.reset(); }

void McpConnection::route(const std::string& line, const std::string& key) {
  std::lock_guard lock(rmu_);
  if (key.empty()) {
    if (line.empty()) return;
    unrouted_.push_back(line);
    if (unrouted_.size() > kMaxUnrouted) unrouted_.pop_front();
    cv_.notify_all();
    return;
  }
  auto it = open_.find(key);
  if (it == open_.end()) return;
  McpStream& s = *it->second;
  if (line.empty()) {
    if (s.cut == std::string::npos) s.cut = s.lines.size();
  } else if (!s.answered) {
    s.lines.push_back(line);
    if (is_rpc_response(line)) {
      s.answered = true;
      s.answered_at = Clock::now();
      if (s.detached) {  // its reader is gone: kept for the client's Last-Event-ID
        kept_.push_back(it->second);
        open_.erase(it);
        prune_kept_locked();
      }
    }
  }
  cv_.notify_all();
}

std::shared_ptr<McpStream> McpConnection::open(const std::string& key) {
  std::lock_guard lock(rmu_);
  auto s = std::make_shared<McpStream>();
  s->id = "s" + std::to_string(++next_stream_);
  open_[key] = s;
  by_id_[s->id] = s;
  return s;
}

void McpConnection::prune_kept_locked() {
  const auto now = Clock::now();
  while (!kept_.empty() && (kept_.size() > kKeptStreams || now - kept_.front()->answered_at > kKeepFor)) {
    by_id_.erase(kept_.front()->id);
    kept_.pop_front();
  }
}

void McpConnection::close(const std::string& key, bool abandoned) {
  std::lock_guard lock(rmu_);
  auto it = open_.find(key);
  if (it == open_.end()) return;
  auto s = it->second;
  if (!s->answered && !abandoned && s->cut != std::string::npos) {
    s->detached = true;  // the call goes on: its answer is routed here, for the resuming client
    return;
  }
  open_.erase(it);
  if (s->answered && s->cut != std::string::npos)
    kept_.push_back(s);
  else
    by_id_.erase(s->id);  // read to its end by its own reader, or abandoned: nothing to resume
  prune_kept_locked();
}

StreamItem McpConnection::next(const std::shared_ptr<McpStream>& s, size_t cursor, bool honours_cut,
                               Clock::time_point deadline) {
  std::unique_lock lock(rmu_);
  auto ready = [&] {
    return cursor < s->lines.size() || (honours_cut && s->cut != std::string::npos && cursor >= s->cut);
  };
  if (!cv_.wait_until(lock, deadline, ready)) return {};
  if (honours_cut && s->cut != std::string::npos && cursor >= s->cut) return {StreamItem::kCut, ""};
  return {StreamItem::kMessage, s->lines[cursor]};
}

std::shared_ptr<McpStream> McpConnection::resume(const std::string& last_event_id, size_t& cursor) {
  const size_t dash = last_event_id.rfind('-');
  if (dash == std::string::npos || dash + 1 >= last_event_id.size() || dash + 7 < last_event_id.size()) return nullptr;
  const std::string n = last_event_id.substr(dash + 1);
  if (!std::all_of(n.begin(), n.end(), ::isdigit)) return nullptr;
  std::lock_guard lock(rmu_);
  prune_kept_locked();
  auto it = by_id_.find(last_event_id.substr(0, dash));
  if (it == by_id_.end()) return nullptr;
  cursor = std::stoul(n);
  if (cursor > it->second->lines.size() || (it->second->answered && cursor >= it->second->lines.size())) return nullptr;
  return it->second;
}

void McpConnection::add_unrouted(const std::string& line) {
  std::lock_guard lock(rmu_);
  unrouted_.push_back(line);
  if (unrouted_.size() > kMaxUnrouted) unrouted_.pop_front();
  cv_.notify_all();
}

std::optional<std::string> McpConnection::next_unrouted(Clock::time_point deadline) {
  std::unique_lock lock(rmu_);
  if (!cv_.wait_until(lock, deadline, [&] { return !unrouted_.empty(); })) return std::nullopt;
  std::string line = std::move(unrouted_.front());
  unrouted_.pop_front();
  return line;
}

bool McpConnection::claim_get_stream(bool claim) {
  std::lock_guard lock(rmu_);
  if (claim && get_stream_open_) return false;
  get_stream_open_ = claim;
  return true;
}

}  // namespace bioagent::server
