// The MCP host's model as an LlmClient: the agents' chat requests become
// sampling/createMessage questions to the client of the MCP call being served
// (bioagent/client_channel.h), so the same prompts, budgets and citation checks
// apply whether a configured model or the host's model writes the answer.
//
// Within one call the questions are keyed "sampling-1", "sampling-2", ... in
// asking order. On a 2026-07-28 round trip the first unanswered question ends
// the call (interrupted() says so) and every later chat() of this client fails
// at once without asking: the turn runs again with the answer, and the same
// keys then name the same questions.
#include <mutex>

#include "bioagent/client_channel.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

constexpr int kDefaultMaxTokens = 4096;  // sampling needs a cap; a configured model's server has its own

ModelConfig host_model_config() {
  ModelConfig m;
  m.name = "mcp-host";
  m.model = "mcp-host";
  m.base_url = "mcp:sampling";  // not a URL: the question travels over the MCP connection
  return m;
}

Json text_block(const std::string& text) { return {{"type", "text"}, {"text", valid_utf8(text)}}; }

// A ChatMessage's content as sampling content blocks: text parts, and data-URL images as image blocks.
Json content_blocks(const Json& content) {
  Json blocks = Json::array();
  if (content.is_string()) blocks.push_back(text_block(content.get<std::string>()));
  if (content.is_array())
    for (const Json& part : content) {
      if (!part.is_object()) continue;
      const std::string type = part.value("type", "");
      if (type == "text") blocks.push_back(text_block(part.value("text", "")));
      if (type != "image_url" || !part.contains("image_url") || !part["image_url"].is_object()) continue;
      const std::string url = part["image_url"].value("url", "");
      const size_t semi = url.find(";base64,");
      if (url.rfind("data:", 0) == 0 && semi != std::string::npos)
        blocks.push_back({{"type", "image"}, {"mimeType", url.substr(5, semi - 5)}, {"data", url.substr(semi + 8)}});
    }
  return blocks;
}

Json tool_use_block(const ToolCall& call) {
  Json input = parse_json_bounded(call.arguments);
  return {{"type", "tool_use"},
          {"id", call.id},
          {"name", call.name},
          {"input", input.is_object() ? input : Json::object()}};
}

// The messages other than system ones as SamplingMessages. Tool results, which a sampling
// conversation carries in a user message of their own, are grouped per assistant turn.
Json sampling_messages(const std::vector<ChatMessage>& messages) {
  Json out = Json::array();
  for (const ChatMessage& m : messages) {
    if (m.role == "system") continue;
    if (m.role == "tool") {
      Json result = {{"type", "tool_result"}, {"toolUseId", m.tool_call_id}, {"content", content_blocks(m.content)}};
      const bool joins = !out.empty() && out.back()["role"] == "user" && out.back()["content"].is_array() &&
                         !out.back()["content"].empty() && out.back()["content"][0].value("type", "") == "tool_result";
      if (joins)
        out.back()["content"].push_back(result);
      else
        out.push_back({{"role", "user"}, {"content", Json::array({result})}});
      continue;
    }
    Json blocks = content_blocks(m.content);
    for (const ToolCall& call : m.tool_calls) blocks.push_back(tool_use_block(call));
    if (blocks.empty()) blocks.push_back(text_block(""));
    out.push_back(
        {{"role", m.role == "assistant" ? "assistant" : "user"}, {"content", blocks.size() == 1 ? blocks[0] : blocks}});
  }
  return out;
}

Json tool_choice_of(const Json& choice) {
  if (choice.is_string() && (choice == "auto" || choice == "required" || choice == "none")) return {{"mode", choice}};
  if (choice.is_object()) return {{"mode", "required"}};  // a named function: sampling names none, it requires one
  return {{"mode", "auto"}};
}

// OpenAI function specs as MCP tools.
Json sampling_tools(const Json& functions) {
  Json out = Json::array();
  for (const Json& f : functions) {
    const Json fn = f.value("function", Json::object());
    if (!fn.is_object() || !fn.contains("name")) continue;
    Json schema = fn.value("parameters", Json::object());
    if (!schema.is_object() || schema.value("type", "") != "object") schema = {{"type", "object"}};
    out.push_back({{"name", fn["name"]}, {"description", fn.value("description", "")}, {"inputSchema", schema}});
  }
  return out;
}

std::string finish_reason_of(const std::string& stop_reason) {
  if (stop_reason == "toolUse") return "tool_calls";
  if (stop_reason == "maxTokens") return "length";
  if (stop_reason == "endTurn" || stop_reason == "stopSequence" || stop_reason.empty()) return "stop";
  return stop_reason;
}

// A CreateMessageResult as a ChatResponse: text blocks joined, tool_use blocks as tool calls.
Result<ChatResponse> chat_response_of(const Json& r) {
  if (r.value("role", "") != "assistant")
    return Status(ErrorCode::kUnavailable, "the MCP host's model answered with a role other than assistant");
  const Json content = r.value("content", Json());
  ChatResponse out;
  out.message.role = "assistant";
  std::string text;
  for (const Json& block : content.is_array() ? content : Json::array({content})) {
    if (!block.is_object()) continue;
    const std::string type = block.value("type", "");
    if (type == "text" && block.contains("text") && block["text"].is_string()) text += block["text"].get<std::string>();
    if (type == "tool_use" && block.contains("name") && block["name"].is_string())
      out.message.tool_calls.push_back(
          {block.value("id", ""), block["name"].get<std::string>(), json_text(block.value("input", Json::object()))});
  }
  if (text.empty() && out.message.tool_calls.empty())
    return Status(ErrorCode::kUnavailable, "the MCP host's model answered with neither text nor a tool call");
  out.message.content = text.empty() ? Json() : Json(text);
  const Json stop = r.value("stopReason", Json());
  out.finish_reason = finish_reason_of(stop.is_string() ? stop.get<std::string>() : "");
  const Json model = r.value("model", Json());
  out.model = model.is_string() ? valid_utf8(model.get<std::string>().substr(0, 200)) : "";
  return out;
}

class HostModelClient : public LlmClient {
 public:
  explicit HostModelClient(ClientChannel& channel) : LlmClient(host_model_config()), channel_(channel) {}

  Result<ChatResponse> chat(const ChatRequest& request,
                            const std::function<void(const StreamDelta&)>& on_delta) override {
    Json params = sampling_params(request);
    if (!params.is_object()) return Status(ErrorCode::kUnsupported, params.get<std::string>());
    std::string key;
    {
      std::lock_guard lock(mu_);
      if (!interrupted_.is_ok()) return interrupted_;  // this round is over: ask nothing more
      key = "sampling-" + std::to_string(++asked_);
    }
    auto answers = channel_.ask_all({ClientQuestion{ClientAsk::kSampling, std::move(params), key}});
    Result<Json> r = answers.empty() ? Result<Json>(Status(ErrorCode::kInternal, "no answer")) : answers.front();
    if (!r) {
      std::lock_guard lock(mu_);
      if (is_input_required(r.status())) interrupted_ = r.status();
      return r.status();
    }
    auto out = chat_response_of(*r);
    if (!out) return out.status();
    if (out->model.empty()) out->model = "unnamed host model";
    {
      std::lock_guard lock(mu_);
      last_model_ = out->model;
    }
    if (on_delta && out->message.content.is_string())
      on_delta(StreamDelta{out->message.content.get<std::string>(), -1, "", ""});
    return out;
  }

  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>&, const std::string&) override {
    return Status(ErrorCode::kUnsupported, "the MCP host's model offers no embeddings");
  }

  std::string answered_by() const override {
    std::lock_guard lock(mu_);
    return last_model_.empty() ? model_.name : last_model_;
  }
  bool is_host_model() const override { return true; }
  Status interrupted() const override {
    std::lock_guard lock(mu_);
    return interrupted_;
  }

 private:
  // The CreateMessageRequest's params, or a string saying why the request cannot be sampled.
  Json sampling_params(const ChatRequest& request) const {
    std::string system;
    for (const ChatMessage& m : request.messages)
      if (m.role == "system") system += (system.empty() ? "" : "\n\n") + m.text();
    if (request.json_mode) system += "\n\nReply with one JSON object and nothing else.";
    Json params = {{"messages", sampling_messages(request.messages)},
                   {"maxTokens", request.max_tokens.value_or(kDefaultMaxTokens)},
                   {"includeContext", "none"}};
    if (!system.empty()) params["systemPrompt"] = valid_utf8(system);
    if (request.temperature) params["temperature"] = *request.temperature;
    if (!request.tools.empty()) {
      const Json cap = channel_.capability(ClientAsk::kSampling);
      if (!cap.is_object() || !cap.contains("tools"))
        return "the MCP host's model cannot call tools (the client did not declare sampling.tools)";
      params["tools"] = sampling_tools(request.tools);
      params["toolChoice"] = tool_choice_of(request.tool_choice);
    }
    return params;
  }

  ClientChannel& channel_;
  mutable std::mutex mu_;
  int asked_ = 0;
  std::string last_model_;
  Status interrupted_;
};

}  // namespace

std::unique_ptr<LlmClient> host_model_client(ClientChannel& channel) {
  if (!channel.supports(ClientAsk::kSampling)) return nullptr;
  return std::make_unique<HostModelClient>(channel);
}

}  // namespace bioagent
