// Fuzzes what a language model server sends back: the action parser (seed
// 001's loop), the SSE stream assembler and the chat-completion reader.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "bioagent/agent.h"
#include "bioagent/llm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  static const std::vector<std::string> kNames = {
      "RetrieveFromDatabase", "RetrieveFromVectorstore", "ClassicRetrieve", "CalculateExpr", "ViewImage",
      "GenerateAnswer"};
  (void)bioagent::parse_action(text, kNames);
  (void)bioagent::assemble_stream(text, [](const bioagent::StreamDelta&) {});
  auto j = bioagent::Json::parse(text, nullptr, false);
  if (!j.is_discarded()) (void)bioagent::parse_chat_response(j);
  return 0;
}
