#include "table/zip_archive.h"

#include <zip.h>

#include <nlohmann/json.hpp>

namespace bioagent {

Result<std::unique_ptr<ZipArchive>> ZipArchive::open(const std::filesystem::path& path, const TableLimits& limits) {
  int err = 0;
  zip* za = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string why = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    Status s = (err == ZIP_ER_NOENT || err == ZIP_ER_OPEN)
                   ? not_found("cannot open '" + path.string() + "': " + why)
                   : parse_error("'" + path.string() + "' is not a valid xlsx (zip) file: " + why);
    s.with("path", path.string());
    return s;
  }
  auto a = std::unique_ptr<ZipArchive>(new ZipArchive());
  a->za_ = za;
  a->label_ = path.string();
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

}  // namespace bioagent
