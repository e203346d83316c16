// The stdio transport: newline-delimited JSON-RPC messages on stdin, answers
// and notifications on stdout.
#include <istream>
#include <ostream>

#include "bioagent/mcp_server.h"

namespace bioagent {

namespace {

// Reads one line of at most `max` bytes; the rest of a longer line is consumed
// and flagged, so a hostile message cannot exhaust memory.
bool read_bounded_line(std::istream& in, std::string& line, size_t max, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < max)
      line.push_back(static_cast<char>(c));
    else
      too_long = true;
  }
  return any;
}

}  // namespace

int run_mcp_stdio(const ToolRegistry& registry, const Workspace& workspace, const McpOptions& options, std::istream& in,
                  std::ostream& out) {
  McpSession session(registry, workspace, options, [&out](const std::string& line) {
    out << line << '\n';
    out.flush();
  });
  std::string line;
  bool too_long = false;
  while (read_bounded_line(in, line, options.max_message_bytes, too_long)) {
    if (too_long) {
      session.reject_oversized();
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    session.handle_message(line);
  }
  session.drain();
  return 0;
}

}  // namespace bioagent
