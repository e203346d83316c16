// The client for OpenAI-compatible chat servers (OpenAI, vLLM, llama.cpp
// server, Ollama, DeepSeek, Qwen/DashScope...): chat completions with tools
// (parallel tool calls, tool_choice), JSON mode, streaming (SSE deltas,
// tool-call arguments assembled across chunks), image content parts, and
// embeddings. Models are named in configuration; keys come only from the
// environment or a config file readable by its owner alone, and are never
// logged. Retries on 429/5xx with backoff; 401/404/context-length are clear
// errors.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

class HttpClient;

struct ModelConfig {
  std::string name;      // what the user picks (--model, the web UI's selector)
  std::string base_url;  // e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1
  std::string model;     // the server's model id
  std::string api_key;   // resolved from api_key_env or the protected file; never printed
  std::string api_key_env;
  double prompt_price_per_1k = 0, completion_price_per_1k = 0;  // USD, for the budget
  bool vision = false;
  int timeout_seconds = 120;
  Json to_public_json() const;  // without the key
};

struct ModelCatalog {
  std::vector<ModelConfig> models;
  std::string default_model;
  // Looks up by name; empty name: the default.
  Result<ModelConfig> get(const std::string& name) const;
  bool empty() const { return models.empty(); }
};

// From (in order) BIOAGENT_MODELS_FILE or ~/.config/bioagent/models.json
// ({"default": NAME, "models": [{name, base_url, model, api_key_env | api_key,
// prompt_price_per_1k, completion_price_per_1k, vision}]}; a file holding an
// api_key must not be readable by group or others), then the shortcut
// variables BIOAGENT_LLM_BASE_URL + BIOAGENT_LLM_MODEL (+ BIOAGENT_LLM_API_KEY)
// as the model "default". No configuration: an empty catalog (offline).
Result<ModelCatalog> load_model_catalog();
Result<ModelCatalog> parse_model_catalog(const Json& j, bool file_is_private);

struct ToolCall {
  std::string id, name, arguments;  // arguments: the JSON text as the model wrote it
};

struct ChatMessage {
  std::string role;  // system, user, assistant, tool
  Json content;      // string, array of content parts (text / image_url), or null
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;  // role tool
  Json to_json() const;
  static ChatMessage system(std::string text);
  static ChatMessage user(std::string text);
  static ChatMessage tool(std::string call_id, std::string text);
  // A user message with text and a PNG (base64) for a vision model.
  static ChatMessage user_with_image(std::string text, const std::string& png_base64);
  std::string text() const;  // the text parts joined
};

struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  Json tools = Json::array();  // OpenAI function specs
  Json tool_choice;            // null: server default; "auto", "none", "required" or {type:function,...}
  bool json_mode = false;      // response_format json_object
  bool parallel_tool_calls = true;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
};

struct ChatResponse {
  ChatMessage message;  // role assistant
  std::string finish_reason;
  Usage usage;
  std::string model;
};

struct StreamDelta {
  std::string content;  // new text
  int tool_index = -1;  // >= 0: a piece of tool call `tool_index`
  std::string tool_name, tool_arguments;
};

// A language model the agents ask. create() gives the OpenAI-compatible HTTP client of a
// configured model; host_model_client() the MCP host's model, asked through sampling.
class LlmClient {
 public:
  static Result<std::unique_ptr<LlmClient>> create(ModelConfig model, bool allow_private_addresses = true);
  virtual ~LlmClient();

  // on_delta set: the request streams and each delta is passed on as it comes (a client that
  // cannot stream passes the whole text as one delta).
  virtual Result<ChatResponse> chat(const ChatRequest& request,
                                    const std::function<void(const StreamDelta&)>& on_delta = nullptr) = 0;
  virtual Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts,
                                                        const std::string& model = "") = 0;
  const ModelConfig& model() const { return model_; }
  // The model that wrote the last answer, as answers name it: the configured model's name, or the
  // model the MCP host reported (its sampling result's `model`). Thread-safe.
  virtual std::string answered_by() const { return model_.name; }
  // True for the MCP host's model: answers say it was the host's.
  virtual bool is_host_model() const { return false; }
  // Not OK when a call could not be answered now but will be in the MCP call's next round (a
  // 2026-07-28 round trip: is_input_required()): whatever the turn did since is to be discarded
  // and nothing stored. OK for a configured model.
  virtual Status interrupted() const { return Status::ok(); }

 protected:
  explicit LlmClient(ModelConfig model) : model_(std::move(model)) {}
  ModelConfig model_;
};

class ClientChannel;
// The MCP host's model as an LlmClient: each chat() is one sampling/createMessage to the client
// of the call `channel` serves (system messages as systemPrompt, the rest as SamplingMessages,
// maxTokens from the request or 4096, tools as sampling tools when the client declared
// sampling.tools). Null when the client did not declare sampling. embed() is unsupported.
// `channel` must outlive the client (one call's).
std::unique_ptr<LlmClient> host_model_client(ClientChannel& channel);

// Parses an OpenAI SSE stream body ("data: {...}" lines, "data: [DONE]") into
// the response it adds up to; each delta goes to on_delta. Exposed for tests.
Result<ChatResponse> assemble_stream(std::string_view sse, const std::function<void(const StreamDelta&)>& on_delta);

// Reads a chat-completions JSON answer.
Result<ChatResponse> parse_chat_response(const Json& j);

}  // namespace bioagent
