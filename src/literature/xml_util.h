// Small helpers over pugixml for the literature parsers.
#pragma once

#include <pugixml.hpp>

#include <string>

namespace bioagent {

// All text below `node` (inline markup such as <i> or <sup> flattened),
// whitespace runs folded to one space and trimmed.
std::string xml_text(pugi::xml_node node);

// Whitespace runs folded to one space, trimmed.
std::string fold_space(const std::string& s);

}  // namespace bioagent
