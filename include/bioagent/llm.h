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

class LlmClient {
 public:
  static Result<std::unique_ptr<LlmClient>> create(ModelConfig model, bool allow_private_addresses = true);
  ~LlmClient();

  // on_delta set: the request streams and each delta is passed on as it comes.
  Result<ChatResponse> chat(const ChatRequest& request,
                            const std::function<void(const StreamDelta&)>& on_delta = nullptr);
  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts, const std::string& model = "");
  const ModelConfig& model() const { return model_; }

 private:
  LlmClient() = default;
  ModelConfig model_;
  std::unique_ptr<HttpClient> http_;
};

// Parses an OpenAI SSE stream body ("data: {...}" lines, "data: [DONE]") into
// the response it adds up to; each delta goes to on_delta. Exposed for tests.
Result<ChatResponse> assemble_stream(std::string_view sse, const std::function<void(const StreamDelta&)>& on_delta);

// Reads a chat-completions JSON answer.
Result<ChatResponse> parse_chat_response(const Json& j);

}  // namespace bioagent
