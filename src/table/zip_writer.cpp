// write_zip (see zip_writer.h).
#include "table/zip_writer.h"

#include <zip.h>

namespace bioagent {

Status write_zip(const std::filesystem::path& out,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& files) {
  std::error_code ec;
  std::filesystem::remove(out, ec);
  int err = 0;
  zip_t* za = zip_open(out.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!za) return internal_error("cannot create '" + out.string() + "'");
  for (auto& [name, path] : files) {
    zip_source_t* src = zip_source_file(za, path.c_str(), 0, -1);  // -1: to the end of the file
    if (!src || zip_file_add(za, name.c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
      if (src) zip_source_free(src);
      zip_discard(za);
      return internal_error("cannot add '" + path.string() + "' to '" + out.string() + "'");
    }
  }
  if (zip_close(za) != 0) {  // the files are read here
    std::string why = zip_strerror(za);
    zip_discard(za);
    std::filesystem::remove(out, ec);
    return internal_error("cannot write '" + out.string() + "': " + why);
  }
  return Status::ok();
}

}  // namespace bioagent
