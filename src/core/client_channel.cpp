// The transport-neutral part of asking the client: method and capability
// names, the Status values every channel shares, and the conveniences tools
// use. The channels themselves live with the MCP server (src/mcp).
#include "bioagent/client_channel.h"

#include "bioagent/tool.h"

namespace bioagent {

std::string_view client_ask_method(ClientAsk ask) {
  switch (ask) {
    case ClientAsk::kSampling:
      return "sampling/createMessage";
    case ClientAsk::kElicitation:
      return "elicitation/create";
    case ClientAsk::kRoots:
      return "roots/list";
  }
  return "";
}

std::string_view client_ask_capability(ClientAsk ask) {
  switch (ask) {
    case ClientAsk::kSampling:
      return "sampling";
    case ClientAsk::kElicitation:
      return "elicitation";
    case ClientAsk::kRoots:
      return "roots";
  }
  return "";
}

Status client_unsupported(ClientAsk ask) {
  std::string cap(client_ask_capability(ask));
  return Status(ErrorCode::kUnsupported,
                "the client does not support " + cap + " (it did not declare the '" + cap + "' capability)")
      .with("client_capability", cap);
}

Status input_required_status() {
  return Status(ErrorCode::kCancelled, "the client's answer comes with the call's next round")
      .with("input_required", true);
}

bool is_input_required(const Status& s) {
  return s.code() == ErrorCode::kCancelled && s.details().value("input_required", false);
}

Result<Json> ClientChannel::ask(ClientAsk ask, Json params, std::string key) {
  auto answers = ask_all({ClientQuestion{ask, std::move(params), std::move(key)}});
  if (answers.empty()) return Status(ErrorCode::kInternal, "the client channel gave no answer");
  return std::move(answers.front());
}

Result<Json> ask_client(const ToolContext& ctx, ClientAsk ask, Json params, std::string key) {
  if (!ctx.client()) return client_unsupported(ask);
  return ctx.client()->ask(ask, std::move(params), std::move(key));
}

Result<std::string> client_completion(const ToolContext& ctx, const std::string& system_prompt,
                                      const std::string& user_text, int max_tokens) {
  Json params = {{"messages", Json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", user_text}}}}})},
                 {"maxTokens", max_tokens}};
  if (!system_prompt.empty()) params["systemPrompt"] = system_prompt;
  auto r = ask_client(ctx, ClientAsk::kSampling, std::move(params));
  if (!r) return r.status();
  // CreateMessageResult.content is one block or (2025-11-25) an array of blocks: the text blocks joined.
  const Json content = r->value("content", Json());
  std::string text;
  for (const Json& block : content.is_array() ? content : Json::array({content}))
    if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string())
      text += block["text"].get<std::string>();
  if (text.empty()) return Status(ErrorCode::kUnavailable, "the client's model answered with no text");
  return text;
}

Result<Json> client_form(const ToolContext& ctx, const std::string& message, const Json& requested_schema,
                         std::string key, std::chrono::milliseconds wait) {
  if (!ctx.client()) return client_unsupported(ClientAsk::kElicitation);
  ClientQuestion q{
      ClientAsk::kElicitation, {{"message", message}, {"requestedSchema", requested_schema}}, std::move(key), wait};
  auto answers = ctx.client()->ask_all({q});
  if (answers.empty()) return Status(ErrorCode::kInternal, "the client channel gave no answer");
  Result<Json> r = std::move(answers.front());
  if (!r) return r.status();
  const std::string action = r->value("action", "");
  if (action != "accept" && action != "decline" && action != "cancel")
    return Status(ErrorCode::kUnavailable, "the client's answer to a form has no action accept, decline or cancel");
  return r;
}

}  // namespace bioagent
