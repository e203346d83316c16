#include "table/zip_archive.h"

#include <libdeflate.h>
#include <zip.h>

#include <fstream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "table/office_container.h"

namespace bioagent {
namespace {

constexpr zip_int64_t kMaxEntries = 100000;  // an xlsx has tens of parts

// An archive with two entries of one name is ambiguous (readers disagree on
// which one counts): refused, as is one with an absurd number of entries.
Status check_entries(zip* za, const std::string& label) {
  zip_int64_t n = zip_get_num_entries(za, 0);
  if (n > kMaxEntries) {
    Status s = resource_exhausted("'" + label + "' has " + std::to_string(n) + " zip entries; the limit is " +
                                  std::to_string(kMaxEntries));
    s.with("path", label);
    return s;
  }
  std::set<std::string> names;
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(za, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    if (name && !names.insert(name).second) {
      Status s = parse_error("'" + label + "' has two zip entries named '" + std::string(name).substr(0, 200) +
                             "'; the file is refused as ambiguous");
      s.with("path", label).with("part", std::string(name).substr(0, 200));
      return s;
    }
  }
  return {};
}

// The whole file when it starts as an OLE compound file (its directory may sit anywhere), within the
// limit on what one workbook may inflate to; else its first bytes.
std::string ole_file_bytes(const std::filesystem::path& path, const TableLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  std::string head(8, '\0');
  if (!in.read(head.data(), 8)) return "";
  if (static_cast<unsigned char>(head[0]) != 0xD0 || static_cast<unsigned char>(head[1]) != 0xCF) return head;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size > limits.max_uncompressed_bytes) return head;  // refused as "not a zip", not read whole
  std::string all(size, '\0');
  in.seekg(0);
  in.read(all.data(), static_cast<std::streamsize>(size));
  all.resize(static_cast<size_t>(in.gcount()));
  return all;
}

}  // namespace

Result<std::unique_ptr<ZipArchive>> ZipArchive::open(const std::filesystem::path& path, const TableLimits& limits) {
  int err = 0;
  zip* za = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string why = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    if (err == ZIP_ER_NOENT || err == ZIP_ER_OPEN)
      return not_found("cannot open '" + path.string() + "': " + why).with("path", path.string());
    if (auto office = office_container_refusal(ole_file_bytes(path, limits), path.string())) return *office;
    Status s = parse_error("'" + path.string() + "' is not a valid xlsx (zip) file: " + why);
    s.with("path", path.string());
    return s;
  }
  auto a = std::unique_ptr<ZipArchive>(new ZipArchive());
  a->za_ = za;
  a->label_ = path.string();
  BIOAGENT_RETURN_IF_ERROR(check_entries(za, a->label_));
  a->limits_ = limits;
  return a;
}

Result<std::unique_ptr<ZipArchive>> ZipArchive::open_memory(std::string_view bytes, const std::string& label,
                                                            const TableLimits& limits) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &ze);
  zip_t* za = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : nullptr;
  if (!za) {
    std::string why = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    if (src) zip_source_free(src);
    if (auto office = office_container_refusal(bytes, label)) return *office;
    Status s = parse_error("'" + label + "' is not a valid xlsx (zip) file: " + why);
    s.with("path", label);
    return s;
  }
  zip_error_fini(&ze);
  auto a = std::unique_ptr<ZipArchive>(new ZipArchive());
  a->za_ = za;
  a->label_ = label;
  BIOAGENT_RETURN_IF_ERROR(check_entries(za, a->label_));
  a->limits_ = limits;
  return a;
}

ZipArchive::~ZipArchive() {
  if (za_) zip_discard(za_);
}

bool ZipArchive::has(const std::string& name) const { return zip_name_locate(za_, name.c_str(), 0) >= 0; }

Result<std::string> ZipArchive::read(const std::string& name) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(za_, name.c_str(), 0, &st) != 0) {
    Status s = not_found("'" + label_ + "' has no part '" + name + "'");
    s.with("path", label_).with("part", name);
    return s;
  }
  auto bomb = [&](const std::string& why) {
    Status s = resource_exhausted("'" + label_ + "': part '" + name + "' " + why + " (refusing a possible zip bomb)");
    s.with("path", label_).with("part", name);
    return s;
  };
  if ((st.valid & ZIP_STAT_SIZE) && st.size > limits_.max_part_bytes)
    return bomb("inflates to " + std::to_string(st.size) + " bytes, over the limit of " +
                std::to_string(limits_.max_part_bytes));
  if ((st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_COMP_SIZE) && st.size > (1u << 20) &&
      static_cast<double>(st.size) > limits_.max_ratio * static_cast<double>(std::max<zip_uint64_t>(st.comp_size, 1)))
    return bomb("has a compression ratio of " + std::to_string(st.size / std::max<zip_uint64_t>(st.comp_size, 1)) +
                ":1, over the limit of " + std::to_string(static_cast<int>(limits_.max_ratio)) + ":1");
  if (inflated_ + st.size > limits_.max_uncompressed_bytes)
    return bomb("would take the archive past " + std::to_string(limits_.max_uncompressed_bytes) + " inflated bytes");
  if (st.valid & ZIP_STAT_ENCRYPTION_METHOD && st.encryption_method != ZIP_EM_NONE) {
    Status s = unsupported("'" + label_ + "': part '" + name + "' is encrypted (a password-protected workbook)");
    s.with("path", label_).with("part", name);
    return s;
  }
  if ((st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_DEFLATE && (st.valid & ZIP_STAT_SIZE) &&
      (st.valid & ZIP_STAT_COMP_SIZE) && (st.valid & ZIP_STAT_CRC))
    return read_deflated(name, st.index, st.comp_size, st.size, st.crc);
  zip_file_t* f = zip_fopen(za_, name.c_str(), 0);
  if (!f) {
    Status s = parse_error("'" + label_ + "': cannot inflate part '" + name + "': " + zip_strerror(za_));
    s.with("path", label_).with("part", name);
    return s;
  }
  std::string out;
  out.resize(st.size);
  // Never trust the declared size: read what the stream gives, within the limits.
  uint64_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(out.size() + 65536);
    zip_int64_t n = zip_fread(f, out.data() + got, out.size() - got);
    if (n < 0) {
      std::string why = zip_file_strerror(f);
      zip_fclose(f);
      Status s = parse_error("'" + label_ + "': part '" + name + "' is corrupt: " + why);
      s.with("path", label_).with("part", name);
      return s;
    }
    if (n == 0) break;
    got += static_cast<uint64_t>(n);
    if (got > limits_.max_part_bytes || inflated_ + got > limits_.max_uncompressed_bytes) {
      zip_fclose(f);
      return bomb("inflates past the size limit");
    }
  }
  zip_fclose(f);
  out.resize(got);
  inflated_ += got;
  return out;
}

// Deflated parts are inflated in one call by libdeflate (about twice zlib's
// speed) into a buffer of exactly the declared size: a part that claims less
// than it holds fails instead of growing, and the CRC is checked.
Result<std::string> ZipArchive::read_deflated(const std::string& name, uint64_t index, uint64_t comp_size,
                                              uint64_t size, uint32_t crc) {
  auto corrupt = [&](const std::string& why) {
    Status s = parse_error("'" + label_ + "': part '" + name + "' is corrupt: " + why);
    s.with("path", label_).with("part", name);
    return s;
  };
  if (comp_size > limits_.max_part_bytes) return corrupt("its compressed size is over the part size limit");
  zip_file_t* f = zip_fopen_index(za_, index, ZIP_FL_COMPRESSED);
  if (!f) return corrupt(zip_strerror(za_));
  std::string in(comp_size, '\0');
  uint64_t got = 0;
  while (got < comp_size) {
    zip_int64_t n = zip_fread(f, in.data() + got, comp_size - got);
    if (n <= 0) break;
    got += static_cast<uint64_t>(n);
  }
  zip_fclose(f);
  if (got != comp_size) return corrupt("the archive ends inside it");
  std::string out(size, '\0');
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                 libdeflate_free_decompressor);
  size_t actual = 0;
  libdeflate_result r = libdeflate_deflate_decompress(d.get(), in.data(), in.size(), out.data(), out.size(), &actual);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
    Status s = resource_exhausted("'" + label_ + "': part '" + name +
                                  "' inflates past its declared size (refusing a possible zip bomb)");
    s.with("path", label_).with("part", name);
    return s;
  }
  if (r != LIBDEFLATE_SUCCESS) return corrupt("the deflate stream is invalid");
  out.resize(actual);
  if (libdeflate_crc32(0, out.data(), out.size()) != crc) return corrupt("its CRC does not match");
  inflated_ += actual;
  return out;
}

}  // namespace bioagent
