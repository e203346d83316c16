// Program versions (asked once per process, remembered by binary path, size
// and time) and data-file digests (remembered by path, size and time).
#include "pipeline/program_versions.h"

#include <unistd.h>

#include <fstream>
#include <mutex>

#include "bioagent/digest.h"
#include "bioagent/json_text.h"
#include "pipeline/subprocess.h"

namespace bioagent {

std::string program_version(const std::string& program) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(program); it != cache.end()) return it->second;
  std::string v = "not installed";
  if (!which(program).empty()) {
    v = "unknown";
    // Probes run in a scratch folder: some wrappers (Debian's PAML) copy a
    // control file into the current folder and run an example analysis there.
    std::error_code ec;
    fs::path scratch = fs::temp_directory_path(ec) / ("bioagent-probe-" + std::to_string(::getpid()));
    fs::create_directories(scratch, ec);
    for (auto args : {std::vector<std::string>{program, "--version"}, {program, "-h"}, {program, "-help"}}) {
      auto c = capture(args, 10000, scratch.string());
      if (!c) continue;
      // The first line that names a version number.
      size_t pos = 0;
      while (pos < c->out.size()) {
        size_t nl = c->out.find('\n', pos);
        std::string line = c->out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (line.find_first_of("0123456789") != std::string::npos && line.find('.') != std::string::npos) {
          line.erase(0, line.find_first_not_of("# \t"));
          v = line.substr(0, 120);
          break;
        }
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      if (v != "unknown") break;
    }
    fs::remove_all(scratch, ec);
  }
  cache[program] = v;
  return v;
}

Result<std::string> data_digest(RunStore& store, const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return not_found("the data file " + p.string() + " does not exist");
  auto size = int64_t(fs::file_size(p, ec));
  auto mtime = int64_t(fs::last_write_time(p, ec).time_since_epoch().count());
  std::string abs = fs::absolute(p).string();
  std::string d = store.cached_digest(abs, size, mtime);
  if (!d.empty()) return d;
  auto h = file_sha256(p);
  if (!h) return h.status();
  BIOAGENT_RETURN_IF_ERROR(store.put_digest(abs, size, mtime, *h));
  return *h;
}

// A program's version, remembered in the run record and in the user's
// cache folder by the binary's path, size and time (an upgrade changes them),
// so neither a warm re-run nor a new run starts helper processes to ask.
std::string cached_version(RunStore& store, const fs::path& book_file, const std::string& program) {
  std::string path = which(program);
  if (path.empty()) return "not installed";
  std::error_code ec;
  auto size = int64_t(fs::file_size(path, ec));
  auto mtime = int64_t(fs::last_write_time(path, ec).time_since_epoch().count());
  std::string v = store.cached_digest("version:" + path, size, mtime);
  if (!v.empty()) return v;
  static std::mutex mu;  // the book is shared by every run in this process
  std::lock_guard lock(mu);
  Json book;
  if (!book_file.empty()) {
    std::ifstream in(book_file);
    book = Json::parse(in, nullptr, false);
    if (!book.is_object()) book = Json::object();
  }
  std::string id = path + "|" + std::to_string(size) + "|" + std::to_string(mtime);
  if (book.contains(id) && book[id].is_string()) {
    v = book[id].get<std::string>();
  } else {
    v = program_version(program);
    if (!book_file.empty()) {  // written whole and renamed: readers never see half a file
      book[id] = v;
      fs::create_directories(book_file.parent_path(), ec);
      fs::path tmp = book_file.string() + ".tmp" + std::to_string(::getpid());
      std::ofstream(tmp) << json_text(book, 1);
      fs::rename(tmp, book_file, ec);
    }
  }
  // A cache of versions: a failed write only means the version is asked again next time.
  (void)store.put_digest("version:" + path, size, mtime, v);
  return v;
}

}  // namespace bioagent
