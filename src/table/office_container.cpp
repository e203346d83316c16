// OLE compound files met where an xlsx was expected (see office_container.h).
// The layout is [MS-CFB]: a 512-byte header, then sectors of 2^shift bytes; the
// FAT chains sectors; the directory is a chain of 128-byte entries.
#include "table/office_container.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace bioagent {
namespace {

constexpr unsigned char kOleMagic[8] = {0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1};
constexpr uint32_t kEndOfChain = 0xFFFFFFFE;
constexpr size_t kMaxSectorsWalked = 1u << 20;  // a directory or DIFAT chain longer than this is broken

uint32_t u32(std::string_view b, size_t at) {
  if (at + 4 > b.size()) return kEndOfChain;
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;  // little-endian, as every supported host
}
uint16_t u16(std::string_view b, size_t at) {
  if (at + 2 > b.size()) return 0;
  uint16_t v;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}

}  // namespace

std::optional<std::vector<std::string>> ole_stream_names(std::string_view b) {
  if (b.size() < 512 || std::memcmp(b.data(), kOleMagic, 8) != 0) return std::nullopt;
  const uint16_t shift = u16(b, 30);
  if (shift != 9 && shift != 12) return std::nullopt;
  const size_t sector = size_t(1) << shift;
  auto sector_at = [&](uint32_t n) -> std::string_view {
    const size_t off = (size_t(n) + 1) * sector;
    return off + sector <= b.size() ? b.substr(off, sector) : std::string_view();
  };
  // The FAT's own sectors: 109 in the header, the rest in the DIFAT chain.
  std::vector<uint32_t> fat_sectors;
  const uint32_t n_fat = u32(b, 44);
  for (size_t i = 0; i < 109 && fat_sectors.size() < n_fat; ++i) fat_sectors.push_back(u32(b, 76 + 4 * i));
  uint32_t difat = u32(b, 68);
  for (size_t walked = 0; fat_sectors.size() < n_fat && difat < kEndOfChain - 2 && walked < kMaxSectorsWalked;
       ++walked) {
    std::string_view s = sector_at(difat);
    if (s.empty()) return std::nullopt;
    for (size_t i = 0; i + 1 < sector / 4 && fat_sectors.size() < n_fat; ++i) fat_sectors.push_back(u32(s, 4 * i));
    difat = u32(s, sector - 4);
  }
  auto next_of = [&](uint32_t n) -> uint32_t {
    const size_t per = sector / 4, which = n / per;
    if (which >= fat_sectors.size()) return kEndOfChain;
    std::string_view s = sector_at(fat_sectors[which]);
    return s.empty() ? kEndOfChain : u32(s, 4 * (n % per));
  };
  std::vector<std::string> names;
  std::set<uint32_t> seen;
  for (uint32_t dir = u32(b, 48); dir < kEndOfChain - 2; dir = next_of(dir)) {
    if (!seen.insert(dir).second || seen.size() > kMaxSectorsWalked) return std::nullopt;  // a loop
    std::string_view s = sector_at(dir);
    if (s.empty()) return std::nullopt;
    for (size_t e = 0; e + 128 <= s.size(); e += 128) {
      const uint16_t bytes = u16(s, e + 64);
      const unsigned char type = static_cast<unsigned char>(s[e + 66]);
      if (type == 0 || bytes < 2 || bytes > 64) continue;  // an unused entry
      std::string name;
      for (size_t i = 0; i + 2 < bytes; i += 2) {  // UTF-16LE; the names that matter are ASCII
        const uint16_t ch = u16(s, e + i);
        name += ch < 0x80 ? static_cast<char>(ch) : '?';
      }
      names.push_back(std::move(name));
    }
  }
  return names;
}

std::optional<Status> office_container_refusal(std::string_view bytes, const std::string& label) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kOleMagic, 8) != 0) return std::nullopt;
  const auto names = ole_stream_names(bytes);
  auto has = [&](const char* n) { return names && std::find(names->begin(), names->end(), n) != names->end(); };
  if (has("EncryptionInfo") || has("EncryptedPackage"))
    return Status(ErrorCode::kInvalidArgument,
                  "'" + label +
                      "' is an encrypted (password-protected) workbook: it cannot be read without its password; "
                      "open it in Excel, remove the password (File > Info > Protect Workbook) and save it again")
        .with("path", label)
        .with("encrypted", true);
  if (has("Workbook") || has("Book"))
    return Status(ErrorCode::kInvalidArgument, "'" + label +
                                                   "' is an Excel 97-2003 workbook (.xls), not an .xlsx; save it "
                                                   "as .xlsx (Excel Workbook) and read that")
        .with("path", label)
        .with("format", "xls");
  return Status(ErrorCode::kInvalidArgument,
                "'" + label + "' is an OLE compound file (an Office 97-2003 document), not an .xlsx workbook")
      .with("path", label);
}

}  // namespace bioagent
