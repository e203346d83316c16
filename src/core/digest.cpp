// SHA-256 through MuPDF's implementation (already linked for PDFs).
#include "bioagent/digest.h"

#include <mupdf/fitz.h>

#include <fstream>
#include <vector>

namespace bioagent {
namespace {

std::string hex(const unsigned char* d, size_t n) {
  static const char* k = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += k[d[i] >> 4];
    out += k[d[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  fz_sha256 sha;
  unsigned char d[32];
  fz_sha256_init(&sha);
  fz_sha256_update(&sha, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  fz_sha256_final(&sha, d);
  return hex(d, 32);
}

Result<std::string> file_sha256(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot read '" + path.string() + "'");
  fz_sha256 sha;
  fz_sha256_init(&sha);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    fz_sha256_update(&sha, reinterpret_cast<const unsigned char*>(buf.data()), size_t(in.gcount()));
  }
  unsigned char d[32];
  fz_sha256_final(&sha, d);
  return hex(d, 32);
}

}  // namespace bioagent
