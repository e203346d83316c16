// What a file that is not a zip may be when it was meant as an xlsx: an OLE
// compound file (the container of encrypted OOXML workbooks and of Excel
// 97-2003 .xls files). Its directory is read (sectors, the FAT and the
// directory's stream names; never the streams' content) to tell which.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

// The stream names of an OLE compound file's directory ("EncryptionInfo",
// "EncryptedPackage", "Workbook", ...), or nothing when `bytes` is not one (or
// its directory is cut short or loops).
std::optional<std::vector<std::string>> ole_stream_names(std::string_view bytes);

// The refusal for a workbook in an OLE container, or nothing when `bytes` is not
// one: an encrypted workbook (EncryptionInfo and EncryptedPackage streams) is
// named as encrypted (details: encrypted true), a Workbook or Book stream as an
// Excel 97-2003 .xls to save as .xlsx.
std::optional<Status> office_container_refusal(std::string_view bytes, const std::string& label);

}  // namespace bioagent
