// Model configuration (named models, keys from the environment or a private
// file) and chat messages in the OpenAI wire format.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bioagent/json_get.h"
#include "bioagent/llm.h"

namespace bioagent {

Json ModelConfig::to_public_json() const {
  return Json{{"name", name},
              {"base_url", base_url},
              {"model", model},
              {"api_key", api_key.empty() ? "none" : "set"},
              {"api_key_env", api_key_env},
              {"prompt_price_per_1k", prompt_price_per_1k},
              {"completion_price_per_1k", completion_price_per_1k},
              {"vision", vision}};
}

Result<ModelConfig> ModelCatalog::get(const std::string& name) const {
  if (models.empty())
    return Status(ErrorCode::kUnavailable,
                  "no language model is configured (set BIOAGENT_LLM_BASE_URL and BIOAGENT_LLM_MODEL, or write "
                  "~/.config/bioagent/models.json)");
  const std::string& want = name.empty() ? default_model : name;
  for (auto& m : models)
    if (m.name == want) return m;
  std::string list;
  for (auto& m : models) list += (list.empty() ? "" : ", ") + m.name;
  return not_found("no model named '" + want + "'; configured: " + list);
}

Result<ModelCatalog> parse_model_catalog(const Json& j, bool file_is_private) {
  if (!j.is_object() || !j.contains("models") || !j["models"].is_array())
    return parse_error("a model catalog is an object with a 'models' list");
  ModelCatalog c;
  for (auto& m : j["models"]) {
    if (!m.is_object()) return parse_error("each model is an object");
    ModelConfig mc;
    mc.name = json_get(m, "name", std::string());
    mc.base_url = json_get(m, "base_url", std::string());
    mc.model = json_get(m, "model", mc.name);
    if (mc.name.empty() || mc.base_url.empty())
      return parse_error("each model needs a name and a base_url" + (mc.name.empty() ? "" : " ('" + mc.name + "')"));
    mc.api_key_env = json_get(m, "api_key_env", std::string());
    if (m.contains("api_key")) {
      if (!file_is_private)
        return permission_denied("the model file holds an API key for '" + mc.name +
                                 "' but others can read it; chmod 600 it or use api_key_env");
      mc.api_key = json_get(m, "api_key", std::string());
    } else if (!mc.api_key_env.empty()) {
      if (const char* k = std::getenv(mc.api_key_env.c_str())) mc.api_key = k;
    }
    mc.prompt_price_per_1k = json_get(m, "prompt_price_per_1k", 0.0);
    mc.completion_price_per_1k = json_get(m, "completion_price_per_1k", 0.0);
    mc.vision = json_get(m, "vision", false);
    mc.timeout_seconds = json_get(m, "timeout_seconds", 120);
    c.models.push_back(std::move(mc));
  }
  c.default_model = json_get(j, "default", c.models.empty() ? std::string() : c.models[0].name);
  return c;
}

Result<ModelCatalog> load_model_catalog() {
  auto env = [](const char* k) {
    const char* v = std::getenv(k);
    return std::string(v ? v : "");
  };
  std::string path = env("BIOAGENT_MODELS_FILE");
  if (path.empty() && !env("HOME").empty()) path = env("HOME") + "/.config/bioagent/models.json";
  ModelCatalog c;
  std::error_code ec;
  if (!path.empty() && std::filesystem::exists(path, ec)) {
    struct stat st {};
    bool is_private = ::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) == 0;
    std::ifstream in(path);
    Json j = Json::parse(in, nullptr, false);
    if (j.is_discarded()) return parse_error("the model file " + path + " is not valid JSON");
    auto parsed = parse_model_catalog(j, is_private);
    if (!parsed) return Status(parsed.status().code(), path + ": " + parsed.status().message());
    c = std::move(*parsed);
  }
  if (!env("BIOAGENT_LLM_BASE_URL").empty() && !env("BIOAGENT_LLM_MODEL").empty()) {
    ModelConfig m;
    m.name = "default";
    m.base_url = env("BIOAGENT_LLM_BASE_URL");
    m.model = env("BIOAGENT_LLM_MODEL");
    m.api_key_env = "BIOAGENT_LLM_API_KEY";
    m.api_key = env("BIOAGENT_LLM_API_KEY");
    m.vision = env("BIOAGENT_LLM_VISION") == "1";
    c.models.insert(c.models.begin(), m);
    if (c.default_model.empty()) c.default_model = "default";
  }
  return c;
}

Json ChatMessage::to_json() const {
  Json j = {{"role", role}};
  j["content"] = content;
  if (!tool_calls.empty()) {
    Json calls = Json::array();
    for (auto& c : tool_calls)
      calls.push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    j["tool_calls"] = calls;
  }
  if (!tool_call_id.empty()) j["tool_call_id"] = tool_call_id;
  return j;
}

ChatMessage ChatMessage::system(std::string text) { return {"system", Json(std::move(text)), {}, ""}; }
ChatMessage ChatMessage::user(std::string text) { return {"user", Json(std::move(text)), {}, ""}; }
ChatMessage ChatMessage::tool(std::string call_id, std::string text) {
  return {"tool", Json(std::move(text)), {}, std::move(call_id)};
}
ChatMessage ChatMessage::user_with_image(std::string text, const std::string& png_base64) {
  Json parts = Json::array({{{"type", "text"}, {"text", std::move(text)}},
                            {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64," + png_base64}}}}});
  return {"user", parts, {}, ""};
}

std::string ChatMessage::text() const {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (auto& p : content)
      if (json_get(p, "type", std::string()) == "text") out += json_get(p, "text", std::string());
  return out;
}

}  // namespace bioagent
