// Inside src/server: one MCP connection's message routing for Streamable
// HTTP. An McpSession's sink hands every message it sends to its request's
// stream (notifications, requests to the client, then the response); a
// stream keeps its messages after they are written, numbered, so a client
// whose SSE stream ended early resumes it with Last-Event-ID (event ids
// "<stream>-<n>", the priming event "<stream>-0"). Messages of no request go
// to the session's GET stream.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/mcp_server.h"
#include "bioagent/workspace.h"

namespace bioagent::server {

using Clock = std::chrono::steady_clock;

// A JSON-RPC response (an id, no method).
bool is_rpc_response(const std::string& line);
// A JSON-RPC request (an id and a method): a question to the client.
bool is_rpc_request(const std::string& line);

// The messages of one request, in the order they were sent, kept for replay.
struct McpStream {
  std::string id;                  // "s<n>", unique within its connection
  std::vector<std::string> lines;  // every message so far
  size_t cut = std::string::npos;  // the server asked the first reader to end before lines[cut]
  bool answered = false;           // the response is among `lines`
  bool detached = false;           // its first reader ended before the answer (a cut): still routed
  Clock::time_point answered_at;
};

// What a reader of a stream gets next.
struct StreamItem {
  enum Kind { kMessage, kCut, kTimeout } kind = kTimeout;
  std::string line;
};

class McpConnection {
 public:
  static constexpr size_t kMaxUnrouted = 256;         // GET-stream messages waiting; the oldest go first
  static constexpr size_t kKeptStreams = 32;          // answered streams kept for Last-Event-ID
  static constexpr std::chrono::minutes kKeepFor{5};  // ... and for this long at most

  McpConnection() = default;
  ~McpConnection();  // the session first: its calls may still route messages here

  std::mutex mu;                         // serialises session->handle_message
  std::unique_ptr<Workspace> workspace;  // what its tools read; outlives `session`
  std::unique_ptr<McpSession> session;

  // The sink: a message goes to its request's stream; an empty line cuts it; a message of no
  // request goes to the GET stream's queue; one of a request already closed is dropped.
  void route(const std::string& line, const std::string& key);
  // Opens request `key`'s stream (before its message is handled, so nothing it sends is lost).
  std::shared_ptr<McpStream> open(const std::string& key);
  // Request `key`'s first reader has ended. `abandoned` (the client left, the call is cancelled):
  // the stream goes. Otherwise an answered stream that was cut is kept for replay, and one
  // still waiting for its answer stays routed until the answer arrives, then is kept.
  void close(const std::string& key, bool abandoned = false);
  // The item at `cursor`, waiting until `deadline`. A reader that `honours_cut` gets kCut at the
  // server's cut (a resumed reader reads on past it).
  StreamItem next(const std::shared_ptr<McpStream>& s, size_t cursor, bool honours_cut, Clock::time_point deadline);
  // The stream a Last-Event-ID "<stream>-<n>" names, with the cursor to resume at (n); null when
  // unknown or when everything it will ever hold was read.
  std::shared_ptr<McpStream> resume(const std::string& last_event_id, size_t& cursor);

  std::optional<std::string> next_unrouted(Clock::time_point deadline);
  bool claim_get_stream(bool claim);  // false when the GET stream is open already
  void add_unrouted(const std::string& line);

 private:
  void prune_kept_locked();
  std::mutex rmu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<McpStream>> open_;   // request key -> stream
  std::deque<std::shared_ptr<McpStream>> kept_;              // answered streams, oldest first
  std::map<std::string, std::shared_ptr<McpStream>> by_id_;  // stream id -> stream (open or kept)
  std::deque<std::string> unrouted_;
  bool get_stream_open_ = false;
  int next_stream_ = 0;
};

}  // namespace bioagent::server
