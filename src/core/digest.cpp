// SHA-256 through OpenSSL's EVP interface, which uses the CPU's SHA
// instructions where present (MuPDF's portable C version was 6% of PDF
// extraction: every paper and every derived row id is hashed).
#include "bioagent/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace bioagent {
namespace {

std::string hex(const unsigned char* d, size_t n) {
  static const char* k = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += k[d[i] >> 4];
    out += k[d[i] & 15];
  }
  return out;
}

// Fetched once (an implicit fetch per call costs more than hashing a short id).
const EVP_MD* sha256() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!sha256() || EVP_Digest(data.data(), data.size(), d, &n, sha256(), nullptr) != 1) return {};
  return hex(d, n);
}

Result<std::string> file_sha256(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot read '" + path.string() + "'");
  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || !sha256() || EVP_DigestInit_ex(ctx.get(), sha256(), nullptr) != 1)
    return internal_error("SHA-256 is not available from OpenSSL");
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    EVP_DigestUpdate(ctx.get(), buf.data(), size_t(in.gcount()));
  }
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx.get(), d, &n) != 1) return internal_error("SHA-256 failed");
  return hex(d, n);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
            d, &n))
    return {};
  return hex(d, n);
}

std::string random_hex(size_t n) {
  std::vector<unsigned char> bytes(n);
  if (n > 0 && RAND_bytes(bytes.data(), int(n)) != 1) throw std::runtime_error("no random bytes from OpenSSL");
  return hex(bytes.data(), n);
}

}  // namespace bioagent
