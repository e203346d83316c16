#include "bioagent/tool.h"
#include "bioagent/workspace.h"

#include <stdexcept>

namespace bioagent {

// Default deadline is generous; interfaces set their own.
ToolContext::ToolContext() : deadline_(std::chrono::steady_clock::now() + std::chrono::hours(24)) {}

ToolContext::ToolContext(const Workspace* workspace) : ToolContext() { workspace_ = workspace; }

const Workspace& ToolContext::workspace() const {
  if (!workspace_) throw std::logic_error("ToolContext has no workspace");  // programming error
  return *workspace_;
}

Status ToolContext::check() const {
  if (cancelled()) return {ErrorCode::kCancelled, "the request was cancelled"};
  if (past_deadline()) return {ErrorCode::kTimeout, "the tool ran past its time limit"};
  return {};
}

}  // namespace bioagent
