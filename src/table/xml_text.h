// XML text decoding for the streaming sheet scanner (no DOM): line ends as XML
// reads them, the predefined and numeric entities, and OOXML's _xHHHH_ escapes.
#pragma once

#include <string>

namespace bioagent {

// Appends literal XML text with its line ends as XML reads them: CR LF and a
// lone CR become LF (a CR written as &#13; stays, as it is no line end).
void append_eol(std::string& out, const char* b, const char* e);

// Appends text with XML's predefined and numeric entities decoded (and line ends
// as append_eol); anything else after '&' is kept literally (no DTD entities).
void append_decoded(std::string& out, const char* b, const char* e);

// Decodes OOXML's escapes of control characters in strings (_xHHHH_), in place.
void unescape_ooxml(std::string& s);

}  // namespace bioagent
