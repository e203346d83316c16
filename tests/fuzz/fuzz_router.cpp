// Fuzzes the assistant's text readers: the router (cue tables, species and
// family mentions in any bytes, half UTF-8 included), the failure classifier
// and the generaliser that strips user names from shared error patterns.
#include <cstddef>
#include <cstdint>
#include <string>

#include "assistant/assistant_internal.h"
#include "bioagent/assistant.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  bioagent::Route r = bioagent::route_by_rules(text);
  (void)r.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)bioagent::find_gene_family(text);
  (void)bioagent::find_species(text);
  bioagent::Diagnosis d = bioagent::classify_failure("identify", text, nlohmann::json::array());
  (void)d.to_json();
  if (size < 2000) (void)bioagent::generalise(text);
  return 0;
}
