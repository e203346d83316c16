// LlmClient: chat completions (plain and streamed) and embeddings over the
// product's HTTP client.
#include <nlohmann/json.hpp>

#include "bioagent/http.h"
#include "bioagent/json_get.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

std::string endpoint(const std::string& base, const std::string& path) {
  std::string url = base;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() < 3 || url.substr(url.size() - 3) != "/v1") url += "/v1";
  return url + path;
}

// Turns a non-2xx answer into an error a person can act on.
Status http_error(const ModelConfig& m, const HttpResponse& r) {
  std::string detail;
  Json j = parse_json_bounded(r.body);
  if (j.is_object() && j.contains("error")) {
    const Json& e = j["error"];
    detail = e.is_object() ? json_get(e, "message", json_text(e)) : e.is_string() ? e.get<std::string>() : json_text(e);
  } else {
    detail = r.body.substr(0, 300);
  }
  std::string who = "model '" + m.name + "' (" + m.model + " at " + m.base_url + ")";
  std::string lower = detail;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Status s;
  if (r.status == 401 || r.status == 403)
    s = Status(ErrorCode::kPermissionDenied, who + " refused the API key (HTTP " + std::to_string(r.status) +
                                                 "); check " + (m.api_key_env.empty() ? "the key" : m.api_key_env));
  else if (r.status == 404)
    s = Status(ErrorCode::kNotFound, who + ": not found (HTTP 404): is the base URL or model id wrong? " + detail);
  else if (lower.find("context length") != std::string::npos || lower.find("context_length") != std::string::npos ||
           lower.find("maximum context") != std::string::npos || lower.find("too many tokens") != std::string::npos)
    s = Status(ErrorCode::kResourceExhausted,
               who + ": the conversation no longer fits the model's context window: " + detail);
  else if (r.status == 429)
    s = Status(ErrorCode::kUnavailable, who + " is rate-limiting us (HTTP 429) and retries ran out: " + detail);
  else
    s = Status(r.status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kInvalidArgument,
               who + " answered HTTP " + std::to_string(r.status) + ": " + detail);
  s.with("http_status", r.status);
  return s;
}

// Adds up SSE events into one response, passing each delta on.
class StreamAssembler {
 public:
  explicit StreamAssembler(const std::function<void(const StreamDelta&)>& on_delta) : on_delta_(on_delta) {
    out_.message.role = "assistant";
  }
  void feed(std::string_view bytes) {
    buffer_.append(bytes);
    size_t nl;
    while ((nl = buffer_.find('\n')) != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      line_(line);
    }
  }
  Result<ChatResponse> finish() {
    if (!buffer_.empty()) line_(buffer_);
    buffer_.clear();
    if (!error_.is_ok()) return error_;
    if (!saw_event_) return parse_error("the model server's stream held no data events");
    out_.message.content = text_.empty() && !out_.message.tool_calls.empty() ? Json() : Json(text_);
    return out_;
  }

 private:
  void line_(const std::string& line) {
    if (line.rfind("data:", 0) != 0) return;  // comments, event names, keep-alives
    std::string data = line.substr(5);
    data.erase(0, data.find_first_not_of(' '));
    if (data == "[DONE]") return;
    Json j = parse_json_bounded(data);
    if (!j.is_object()) {
      if (error_.is_ok())
        error_ = parse_error("the model server sent a malformed stream event: " + data.substr(0, 200));
      return;
    }
    saw_event_ = true;
    if (j.contains("error")) {
      if (error_.is_ok())
        error_ = Status(ErrorCode::kUnavailable, "the model server reported: " + json_text(j["error"]));
      return;
    }
    if (j.contains("usage") && j["usage"].is_object()) {
      out_.usage.prompt_tokens = json_get(j["usage"], "prompt_tokens", int64_t(0));
      out_.usage.completion_tokens = json_get(j["usage"], "completion_tokens", int64_t(0));
    }
    if (j.contains("model") && j["model"].is_string()) out_.model = j["model"];
    if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) return;
    const Json& c = j["choices"][0];
    if (c.contains("finish_reason") && c["finish_reason"].is_string()) out_.finish_reason = c["finish_reason"];
    if (!c.contains("delta") || !c["delta"].is_object()) return;
    const Json& d = c["delta"];
    if (d.contains("content") && d["content"].is_string()) {
      StreamDelta sd;
      sd.content = d["content"];
      text_ += sd.content;
      if (on_delta_) on_delta_(sd);
    }
    if (d.contains("tool_calls") && d["tool_calls"].is_array())
      for (auto& tc : d["tool_calls"]) {
        size_t index = json_get(tc, "index", size_t(0));
        auto& calls = out_.message.tool_calls;
        if (index > 64) continue;  // hostile index
        if (calls.size() <= index) calls.resize(index + 1);
        StreamDelta sd;
        sd.tool_index = static_cast<int>(index);
        if (tc.contains("id") && tc["id"].is_string()) calls[index].id = tc["id"];
        if (tc.contains("function") && tc["function"].is_object()) {
          const Json& f = tc["function"];
          if (f.contains("name") && f["name"].is_string()) {
            sd.tool_name = f["name"];
            calls[index].name += sd.tool_name;
          }
          if (f.contains("arguments") && f["arguments"].is_string()) {
            sd.tool_arguments = f["arguments"];
            calls[index].arguments += sd.tool_arguments;
          }
        }
        if (on_delta_) on_delta_(sd);
      }
  }

  const std::function<void(const StreamDelta&)>& on_delta_;
  ChatResponse out_;
  std::string buffer_, text_;
  bool saw_event_ = false;
  Status error_;
};

Json request_json(const ModelConfig& m, const ChatRequest& r, bool stream) {
  Json messages = Json::array();
  for (auto& msg : r.messages) messages.push_back(msg.to_json());
  Json body = {{"model", m.model}, {"messages", messages}};
  if (!r.tools.empty()) {
    body["tools"] = r.tools;
    if (!r.parallel_tool_calls) body["parallel_tool_calls"] = false;
  }
  if (!r.tool_choice.is_null()) body["tool_choice"] = r.tool_choice;
  if (r.json_mode) body["response_format"] = {{"type", "json_object"}};
  if (r.temperature) body["temperature"] = *r.temperature;
  if (r.max_tokens) body["max_tokens"] = *r.max_tokens;
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

// A configured model on an OpenAI-compatible server.
class OpenAiCompatibleClient : public LlmClient {
 public:
  OpenAiCompatibleClient(ModelConfig model, std::unique_ptr<HttpClient> http)
      : LlmClient(std::move(model)), http_(std::move(http)) {}
  Result<ChatResponse> chat(const ChatRequest& request,
                            const std::function<void(const StreamDelta&)>& on_delta) override;
  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts,
                                                const std::string& model) override;

 private:
  std::unique_ptr<HttpClient> http_;
};

}  // namespace

Result<ChatResponse> assemble_stream(std::string_view sse, const std::function<void(const StreamDelta&)>& on_delta) {
  StreamAssembler a(on_delta);
  a.feed(sse);
  return a.finish();
}

Result<ChatResponse> parse_chat_response(const Json& j) {
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return parse_error("the model server's answer has no choices");
  const Json& c = j["choices"][0];
  if (!c.contains("message") || !c["message"].is_object())
    return parse_error("the model server's answer has no message");
  const Json& m = c["message"];
  ChatResponse out;
  out.message.role = "assistant";
  out.message.content = m.contains("content") ? m["content"] : Json();
  if (m.contains("tool_calls") && m["tool_calls"].is_array())
    for (auto& tc : m["tool_calls"]) {
      if (!tc.is_object() || !tc.contains("function") || !tc["function"].is_object()) continue;
      const Json& f = tc["function"];
      ToolCall call;
      call.id = json_get(tc, "id", std::string());
      call.name = json_get(f, "name", std::string());
      if (f.contains("arguments"))
        call.arguments = f["arguments"].is_string() ? f["arguments"].get<std::string>() : json_text(f["arguments"]);
      out.message.tool_calls.push_back(std::move(call));
    }
  out.finish_reason = json_get(c, "finish_reason", std::string());
  if (j.contains("usage") && j["usage"].is_object()) {
    out.usage.prompt_tokens = json_get(j["usage"], "prompt_tokens", int64_t(0));
    out.usage.completion_tokens = json_get(j["usage"], "completion_tokens", int64_t(0));
  }
  out.model = json_get(j, "model", std::string());
  return out;
}

LlmClient::~LlmClient() = default;

Result<std::unique_ptr<LlmClient>> LlmClient::create(ModelConfig model, bool allow_private_addresses) {
  if (model.base_url.empty() || model.model.empty())
    return invalid_argument("model '" + model.name + "' needs a base_url and a model id");
  HttpOptions o = http_options(std::map<std::string, std::string>{});
  o.allow_private_addresses = allow_private_addresses;  // local model servers are the common case
  o.max_retries = 3;
  o.max_body_bytes = 32u << 20;
  auto http = HttpClient::create(o);
  if (!http) return http.status();
  return std::unique_ptr<LlmClient>(new OpenAiCompatibleClient(std::move(model), std::move(*http)));
}

Result<ChatResponse> OpenAiCompatibleClient::chat(const ChatRequest& request,
                                                  const std::function<void(const StreamDelta&)>& on_delta) {
  const bool stream = static_cast<bool>(on_delta);
  HttpRequest req;
  req.method = "POST";
  req.url = endpoint(model_.base_url, "/chat/completions");
  req.headers = {{"Content-Type", "application/json"}};
  if (!model_.api_key.empty()) req.headers.push_back({"Authorization", "Bearer " + model_.api_key});
  req.body = json_text(request_json(model_, request, stream));
  req.source = "llm";
  req.use_cache = false;
  req.timeout = std::chrono::seconds(model_.timeout_seconds);
  std::unique_ptr<StreamAssembler> assembler;
  if (stream) {
    assembler = std::make_unique<StreamAssembler>(on_delta);
    req.on_chunk = [&](std::string_view bytes) { assembler->feed(bytes); };
  }
  auto resp = http_->fetch(req);
  if (!resp) return resp.status();
  if (resp->status < 200 || resp->status >= 300) return http_error(model_, *resp);
  Result<ChatResponse> out = internal_error("no answer");
  bool is_sse = resp->headers.count("content-type") &&
                resp->headers.at("content-type").find("text/event-stream") != std::string::npos;
  if (stream && is_sse) {
    out = assembler->finish();
  } else {  // a server that ignores "stream" answers with plain JSON
    Json j = parse_json_bounded(resp->body);
    if (j.is_discarded()) return parse_error("the model server's answer is not JSON: " + resp->body.substr(0, 200));
    out = parse_chat_response(j);
    if (out && stream && out->message.content.is_string()) on_delta(StreamDelta{out->message.content, -1, "", ""});
  }
  if (out && out->model.empty()) out->model = model_.model;
  return out;
}

Result<std::vector<std::vector<float>>> OpenAiCompatibleClient::embed(const std::vector<std::string>& texts,
                                                                      const std::string& model) {
  HttpRequest req;
  req.method = "POST";
  req.url = endpoint(model_.base_url, "/embeddings");
  req.headers = {{"Content-Type", "application/json"}};
  if (!model_.api_key.empty()) req.headers.push_back({"Authorization", "Bearer " + model_.api_key});
  req.body = json_text(Json{{"model", model.empty() ? model_.model : model}, {"input", texts}});
  req.source = "llm";
  req.use_cache = false;
  auto resp = http_->fetch(req);
  if (!resp) return resp.status();
  if (resp->status != 200) return http_error(model_, *resp);
  Json j = parse_json_bounded(resp->body);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].size() != texts.size())
    return parse_error("the embeddings answer has no 'data' entry per input");
  std::vector<std::vector<float>> out(texts.size());
  for (auto& d : j["data"]) {
    size_t i = json_get(d, "index", size_t(0));
    if (i >= out.size() || !d.contains("embedding") || !d["embedding"].is_array())
      return parse_error("the embeddings answer has a malformed entry");
    for (auto& x : d["embedding"]) out[i].push_back(x.is_number() ? x.get<float>() : 0.0f);
  }
  return out;
}

}  // namespace bioagent
