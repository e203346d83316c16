// The assistant as a tool (assistant_chat): MCP clients and agents reach the
// same router and agents as the web chat and the terminal, in a session of the
// server's store.
#include <mutex>

#include "assistant/assistant_impl.h"
#include "bioagent/agent.h"
#include "bioagent/bundle.h"
#include "bioagent/client_channel.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"

namespace bioagent {
namespace {

const char* const kAssistantToolConfig = R"JSON([
  {
    "name": "assistant_chat",
    "type": "AssistantChatTool",
    "description": "One chat turn of the plant gene-family assistant (the web chat's router and agents): gene-family knowledge (members, domains, functions, regulators), whether a family has been studied in a species, an analysis plan for a species and family, and on an order ('Run the analysis') the run of the session's latest plan. Chinese or English. Give session_id to continue a conversation (a plan, then the order to run it); the reply names the session. Follow a run with the task id in the reply.",
    "parameter": {
      "type": "object",
      "properties": {
        "message": {"type": "string", "minLength": 1, "maxLength": 20000, "description": "The user's message, e.g. 'Summarise the SPL gene family' or '总结下SPL基因家族'."},
        "session_id": {"type": "string", "maxLength": 100, "description": "A session of an earlier turn (default: a new session)."}
      },
      "required": ["message"],
      "additionalProperties": false
    },
    "return_schema": {
      "type": "object",
      "properties": {
        "session_id": {"type": "string"},
        "answer": {"type": "string"},
        "agent": {"type": "string"},
        "intent": {"type": "string"},
        "routed_by": {"type": "string", "description": "what chose the intent: 'rules', or the model that routed the message"},
        "sources": {"type": "array"},
        "model": {"type": "string", "description": "the model that wrote the answer ('none': extracted without one)"},
        "model_source": {"type": "string", "description": "mcp_host: the model of the MCP host that called the tool (sampling)"},
        "dialog": {"type": "object", "description": "a run's parameter dialog asked as an elicitation form: the answer and what it did"},
        "task_id": {"type": "string"},
        "plan_id": {"type": "string"}
      },
      "required": ["session_id", "answer"]
    }
  }
])JSON";

// The options the assistant's own agents need from the caller's tool context.
std::map<std::string, std::string> agent_options(const ToolContext& ctx) {
  std::map<std::string, std::string> out;
  for (const char* k : {"offline", "papers_db", "cache_dir", "trajectory_dir", "allow_private_urls", "contact_email",
                        "ncbi_api_key", "embed_url", "embed_model", "embed_weight", "fusion_weights", "bundle_dir"})
    out[k] = ctx.option(k);
  return out;
}

// One assistant per state folder: the one a server shares (share_assistant_with_tool),
// else one opened on first use and kept (its tasks run in this process).
struct OpenedAssistant {
  std::unique_ptr<ToolRegistry> registry;  // the built-in tools, without this one (no recursion)
  std::unique_ptr<Workspace> workspace;    // the caller's, as it was at the first call, without a session's folder
  std::unique_ptr<Assistant> assistant;
};

std::mutex& assistants_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, OpenedAssistant>& opened_assistants() {
  static std::map<std::string, OpenedAssistant> opened;
  return opened;
}
std::map<std::string, Assistant*>& shared_assistants() {
  static std::map<std::string, Assistant*> shared;
  return shared;
}

std::string state_key(const fs::path& state) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(state, ec);
  return (ec ? state : canonical).lexically_normal().string();
}

Result<Assistant*> assistant_for(const ToolContext& ctx) {
  fs::path state = ctx.option("assistant_state_dir").empty() ? default_bundle_dir().parent_path() / "state"
                                                             : fs::path(ctx.option("assistant_state_dir"));
  std::lock_guard lock(assistants_mutex());
  const std::string key = state_key(state);
  if (auto s = shared_assistants().find(key); s != shared_assistants().end()) return s->second;
  auto& opened = opened_assistants();
  auto it = opened.find(key);
  if (it != opened.end()) return it->second.assistant.get();
  OpenedAssistant o;
  o.registry = std::make_unique<ToolRegistry>();
  register_builtin_types(*o.registry);
  BIOAGENT_RETURN_IF_ERROR(o.registry->load_builtin());
  AssistantOptions ao;
  ao.runs.state_dir = state;
  ao.runs.data_dir =
      ctx.option("assistant_data_dir").empty() ? state / "example-data" : fs::path(ctx.option("assistant_data_dir"));
  ao.registry = o.registry.get();
  // The caller's workspace lives for one call: the assistant keeps its own copy.
  o.workspace = std::make_unique<Workspace>(ctx.workspace().without_session());
  ao.workspace = o.workspace.get();
  ao.tool_options = agent_options(ctx);
  ao.runs.resume_tasks = false;  // the server resumes its own unfinished tasks
  auto a = Assistant::open(ao);
  if (!a) return a.status();
  o.assistant = std::move(*a);
  Assistant* out = o.assistant.get();
  opened.emplace(key, std::move(o));
  return out;
}

Result<Json> assistant_chat_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto a = assistant_for(ctx);
  if (!a) return a.status();
  std::string sid = args.value("session_id", "");
  if (sid.empty()) {
    auto s = (*a)->create_session();
    if (!s) return s.status();
    sid = (*s)["session_id"];
  }
  // The MCP call's client lends its model (sampling) when the server has none, and answers a run's
  // parameter dialog as a form (elicitation).
  ChatOptions co;
  co.client = ctx.client();
  auto r = (*a)->chat(sid, args.at("message").get<std::string>(), nullptr, co);
  if (!r) return r.status();
  Json out = {{"session_id", sid},
              {"answer", r->value("answer", "")},
              {"agent", r->value("agent", "")},
              {"intent", r->value("route", Json::object()).value("intent", "")},
              {"routed_by", r->value("route", Json::object()).value("decided_by", "rules")},
              {"model", r->value("model", "none")},
              {"sources", r->value("sources", Json::array())}};
  if (r->contains("model_source")) out["model_source"] = (*r)["model_source"];
  if (r->contains("task") && (*r)["task"].contains("task_id")) out["task_id"] = (*r)["task"]["task_id"];
  if (r->contains("plan_id")) out["plan_id"] = (*r)["plan_id"];
  if (r->contains("dialog")) out["dialog"] = (*r)["dialog"];
  return out;
}

}  // namespace

SharedAssistant::SharedAssistant(const fs::path& state_dir, Assistant& assistant) : key_(state_key(state_dir)) {
  std::lock_guard lock(assistants_mutex());
  shared_assistants()[key_] = &assistant;
}

SharedAssistant::~SharedAssistant() {
  std::lock_guard lock(assistants_mutex());
  shared_assistants().erase(key_);
}

Status register_assistant_tool(ToolRegistry& registry) {
  registry.add_type("AssistantChatTool", assistant_chat_tool);
  return registry.load_config(kAssistantToolConfig, "assistant_tools");
}

}  // namespace bioagent
