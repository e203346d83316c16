#include "bioagent/notebook.h"

#include "tools/notebook/cell_pipeline.h"

#include <re2/re2.h>
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>

namespace fs = std::filesystem;

namespace bioagent {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

#define NB_TRY(expr)                           \
  do {                                         \
    if (error_code _e = (expr); _e) return _e; \
  } while (0)

// String pieces of a notebook "multiline string" (a string or an array of
// strings). The views point into the parser's string buffer, which lives as
// long as the document, so nothing is copied until the text is actually used.
using Pieces = std::vector<std::string_view>;

error_code collect_text(od::value v, Pieces& out) {
  od::json_type type;
  NB_TRY(v.type().get(type));
  std::string_view sv;
  if (type == od::json_type::string) {
    NB_TRY(v.get_string().get(sv));
    out.push_back(sv);
  } else if (type == od::json_type::array) {
    od::array arr;
    NB_TRY(v.get_array().get(arr));
    for (auto item : arr) {
      od::value iv;
      NB_TRY(item.get(iv));
      NB_TRY(iv.type().get(type));
      if (type != od::json_type::string) continue;  // other types are skipped
      NB_TRY(iv.get_string().get(sv));
      out.push_back(sv);
    }
  }
  return simdjson::SUCCESS;
}

void append_pieces(const Pieces& pieces, std::string& out) {
  size_t n = out.size();
  for (auto p : pieces) n += p.size();
  out.reserve(n);
  for (auto p : pieces) out.append(p);
}

// Removes ANSI escapes from text[from..], in place (escapes may span pieces).
void strip_ansi_from(std::string& text, size_t from) {
  if (text.find('\x1b', from) == std::string::npos) return;
  std::string clean = strip_ansi(std::string_view(text).substr(from));
  text.resize(from);
  text += clean;
}

// Appends `text` without ANSI escapes (copying through strip_ansi only when needed).
void append_clean(std::string_view text, std::string& out) {
  if (text.find('\x1b') == std::string_view::npos)
    out.append(text);
  else
    out += strip_ansi(text);
}

// Compact JSON text of any value (for application/json outputs).
error_code raw_text(od::value v, std::string& out) {
  od::json_type type;
  NB_TRY(v.type().get(type));
  std::string_view raw;
  if (type == od::json_type::object) {
    od::object o;
    NB_TRY(v.get_object().get(o));
    NB_TRY(o.raw_json().get(raw));
  } else if (type == od::json_type::array) {
    od::array a;
    NB_TRY(v.get_array().get(a));
    NB_TRY(a.raw_json().get(raw));
  } else {
    raw = v.raw_json_token();
  }
  // Compact it: drop whitespace outside strings (the text is valid JSON).
  out.clear();
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < raw.size())
        out += raw[++i];
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out += c;
    }
  }
  return simdjson::SUCCESS;
}

// Text of one output, following the preference order of the seed's tool:
// stream text; else text/plain, text/html, application/json; images noted;
// errors as "ename: evalue" plus the traceback. Keys come in any order (Jupyter
// writes them sorted, so output_type is usually last): collect, then decide.
// Appends to `text`, separated by a newline from what is already there.
error_code append_output_text(od::object out, std::string& text) {
  std::string_view type;
  // Scratch vectors reused across outputs (capacity kept), one set per thread.
  thread_local Pieces stream, ename, evalue, plain, html, traceback, images;
  for (Pieces* p : {&stream, &ename, &evalue, &plain, &html, &traceback, &images}) p->clear();
  std::string json;
  bool has_plain = false, has_html = false, has_json = false;
  for (auto f : out) {
    od::field field;
    NB_TRY(std::move(f).get(field));
    std::string_view key;
    NB_TRY(field.unescaped_key().get(key));
    od::value v = field.value();
    if (key == "output_type") {
      NB_TRY(v.get_string().get(type));
    } else if (key == "text") {
      NB_TRY(collect_text(v, stream));
    } else if (key == "ename") {
      NB_TRY(collect_text(v, ename));
    } else if (key == "evalue") {
      NB_TRY(collect_text(v, evalue));
    } else if (key == "traceback") {
      NB_TRY(collect_text(v, traceback));
    } else if (key == "data") {
      od::object data;
      if (v.get_object().get(data) != simdjson::SUCCESS) continue;
      for (auto df : data) {
        od::field d;
        NB_TRY(std::move(df).get(d));
        std::string_view mime;
        NB_TRY(d.unescaped_key().get(mime));
        if (mime == "text/plain") {
          has_plain = true;
          NB_TRY(collect_text(d.value(), plain));
        } else if (mime == "text/html") {
          has_html = true;
          NB_TRY(collect_text(d.value(), html));
        } else if (mime == "application/json") {
          has_json = true;
          NB_TRY(raw_text(d.value(), json));
        } else if (mime.substr(0, 6) == "image/") {
          images.push_back(mime);  // the (large) payload itself is never decoded
        }
      }
    }
  }
  const size_t start = text.size();
  if (start > 0 && text.back() != '\n') text += '\n';
  const size_t body = text.size();
  if (type == "stream") {
    append_pieces(stream, text);
    strip_ansi_from(text, body);  // coloured logs are common
  } else if (type == "error") {
    append_pieces(ename, text);
    text += ": ";
    append_pieces(evalue, text);
    for (auto line : traceback) {
      text += '\n';
      append_clean(line, text);
    }
  } else if (type == "execute_result" || type == "display_data" || type == "update_display_data") {
    if (has_plain)
      append_pieces(plain, text);
    else if (has_html)
      append_pieces(html, text);
    if (text.size() == body && has_json) text += json;
    for (auto mime : images) {
      if (text.size() > body) text += '\n';
      text += '[';
      text.append(mime);
      text += ']';
    }
  }
  if (text.size() == body) text.resize(start);  // nothing added: no separator either
  return simdjson::SUCCESS;
}

Status json_error(const std::string& label, error_code e) {
  Status s = parse_error(label + " is not valid JSON (" + std::string(simdjson::error_message(e)) +
                         "); the notebook file may be corrupt or truncated");
  s.with("path", label);
  return s;
}

Result<Json> extract(simdjson::padded_string_view buf, const std::string& label, const NotebookQuery& q) {
  auto made = Matcher::make(q);
  if (!made) return made.status();

  // One parser per thread, reused across calls: its buffers stay allocated, so a
  // server answering many calls does not pay for fresh pages every time.
  thread_local od::parser parser;
  od::document doc;
  if (error_code e = parser.iterate(buf).get(doc); e) return json_error(label, e);
  od::object root;
  if (error_code e = doc.get_object().get(root); e) {
    if (e == simdjson::INCORRECT_TYPE)
      return parse_error(label + " is not a Jupyter notebook: the top level is not a JSON object");
    return json_error(label, e);
  }
  int64_t nbformat = 0;
  bool has_cells = false, has_worksheets = false;
  // Large notebooks build their cells' JSON on a second thread while parsing goes on.
  CellPipeline pipeline(*made, q, buf.size() > (2u << 20) && std::thread::hardware_concurrency() > 1);
  size_t idx = 0;
  for (auto rf : root) {
    od::field field;
    if (error_code e = std::move(rf).get(field); e) return json_error(label, e);
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key); e) return json_error(label, e);
    if (key == "nbformat") {
      if (field.value().get_int64().get(nbformat) != simdjson::SUCCESS) nbformat = 0;
    } else if (key == "worksheets") {
      has_worksheets = true;
    } else if (key == "cells") {
      od::array cells;
      if (field.value().get_array().get(cells) != simdjson::SUCCESS)
        return parse_error(label + " is not a Jupyter notebook: 'cells' is not an array");
      has_cells = true;
      for (auto rc : cells) {
        od::object cell;
        if (error_code e = rc.get_object().get(cell); e) {
          if (e == simdjson::INCORRECT_TYPE)
            return parse_error(label + ": cell " + std::to_string(idx) + " is not an object");
          return json_error(label, e);
        }
        // Texts gather in per-thread scratch buffers (capacity kept across
        // cells), then move out in one exact-size allocation each.
        thread_local std::string source, output;
        thread_local Pieces pieces;
        source.clear();
        output.clear();
        RawCell rc_out;
        std::string& type = rc_out.type;
        type = "unknown";
        for (auto cf : cell) {
          od::field f;
          if (error_code e = std::move(cf).get(f); e) return json_error(label, e);
          std::string_view ck;
          if (error_code e = f.unescaped_key().get(ck); e) return json_error(label, e);
          if (ck == "cell_type") {
            std::string_view t;
            if (f.value().get_string().get(t) == simdjson::SUCCESS) type = std::string(t);
          } else if (ck == "source") {
            pieces.clear();
            if (error_code e = collect_text(f.value(), pieces); e) return json_error(label, e);
            append_pieces(pieces, source);
          } else if (ck == "outputs") {
            od::array outputs;
            if (f.value().get_array().get(outputs) != simdjson::SUCCESS) continue;
            for (auto ro : outputs) {
              od::object o;
              if (ro.get_object().get(o) != simdjson::SUCCESS) continue;
              if (error_code e = append_output_text(o, output); e) return json_error(label, e);
            }
          }
        }
        rc_out.source.assign(source);
        rc_out.output.assign(output);
        pipeline.push(std::move(rc_out));
        ++idx;
      }
    }
  }
  if (has_worksheets || (nbformat != 0 && nbformat < 4)) {
    Status s = unsupported(label + " is nbformat " + std::to_string(nbformat ? nbformat : 3) +
                           " (the 'worksheets' layout); only nbformat 4 is supported (convert with: jupyter "
                           "nbconvert --to notebook --nbformat 4)");
    s.with("nbformat", nbformat);
    return s;
  }
  if (!has_cells) return parse_error(label + " is not a Jupyter notebook: it has no 'cells' array");

  Json out_cells, matching;
  pipeline.finish(&out_cells, &matching);

  // Room reserved up front: ordered_json keeps (const key, value) pairs in a
  // vector, and growing it copies the values (the pair is not nothrow-movable),
  // which would deep-copy the cell arrays. Keys: these nine, note, other_notebooks.
  Json result = Json::object();
  result.get_ref<Json::object_t&>().reserve(12);
  result["notebook_path"] = label;
  result["nbformat"] = nbformat;
  result["total_cells"] = idx;
  result["cells"] = std::move(out_cells);
  result["search"] = q.search.empty() ? Json() : Json(q.search);
  result["regex"] = q.regex;
  result["n_matches"] = matching.size();
  result["matching_cells"] = std::move(matching);
  if (idx == 0)
    result["note"] = "the notebook has no cells";
  else if (made->active() && result["n_matches"] == 0)
    result["note"] = "no cell's source or output contains the search " + std::string(q.regex ? "pattern" : "terms");
  return result;
}

// A read-only memory map of a file followed by zeroed padding, as simdjson
// requires (it reads up to SIMDJSON_PADDING bytes past the end). The file is
// mapped over an anonymous reservation, so the padding is always readable.
class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> open(const fs::path& path, size_t size) {
    auto m = std::unique_ptr<MappedFile>(new MappedFile());
    m->size_ = size;
    m->length_ = size + simdjson::SIMDJSON_PADDING;
    void* base = mmap(nullptr, m->length_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
      return resource_exhausted("cannot map " + std::to_string(size) + " bytes for '" + path.string() + "'");
    m->base_ = static_cast<char*>(base);
    if (size == 0) return m;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return not_found("cannot open notebook '" + path.string() + "': " + std::strerror(errno));
    void* file = mmap(m->base_, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (file == MAP_FAILED) return not_found("cannot read notebook '" + path.string() + "': " + std::strerror(errno));
    return m;
  }
  ~MappedFile() {
    if (base_) munmap(base_, length_);
  }
  simdjson::padded_string_view view() const { return simdjson::padded_string_view(base_, size_, length_); }

 private:
  MappedFile() = default;
  char* base_ = nullptr;
  size_t size_ = 0, length_ = 0;
};

}  // namespace

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) break;
    char kind = s[i + 1];
    if (kind == '[') {  // CSI: parameters and intermediates, then a final byte 0x40-0x7E
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
      i = j;
    } else if (kind == ']') {  // OSC: up to BEL or ESC backslash
      size_t j = i + 2;
      while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
      i = (j < s.size() && s[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  return out;
}

Result<fs::path> discover_notebook(const fs::path& folder, std::vector<fs::path>* others) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return not_found("data_folder '" + folder.string() + "' is not a directory");
  std::vector<fs::path> executed, plain;
  size_t seen = 0;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return not_found("cannot list '" + folder.string() + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const auto& p = it->path();
    std::string name = p.filename().string();
    if (!name.empty() && name[0] == '.') {  // .ipynb_checkpoints, .git, hidden files
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (++seen > 200000)
      return resource_exhausted("data_folder holds more than 200,000 entries; name the notebook_path");
    if (!it->is_regular_file(ec) || p.extension() != ".ipynb") continue;
    (name.size() > 15 && name.substr(name.size() - 15) == "_executed.ipynb" ? executed : plain).push_back(p);
  }
  std::sort(executed.begin(), executed.end());
  std::sort(plain.begin(), plain.end());
  std::vector<fs::path> all = executed;
  all.insert(all.end(), plain.begin(), plain.end());
  if (all.empty()) return not_found("no .ipynb notebook found under '" + folder.string() + "'");
  if (others) others->assign(all.begin() + 1, all.end());
  return all.front();
}

Result<Json> read_notebook(const fs::path& path, const NotebookQuery& q) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return not_found("notebook '" + path.string() + "' does not exist");
  auto size = fs::file_size(path, ec);
  if (ec) return not_found("cannot read '" + path.string() + "': " + ec.message());
  if (size > q.max_file_bytes) {
    Status s = resource_exhausted("notebook '" + path.string() + "' is " + std::to_string(size) +
                                  " bytes; the limit is " + std::to_string(q.max_file_bytes));
    s.with("limit", q.max_file_bytes);
    return s;
  }
  auto mapped = MappedFile::open(path, size);
  if (!mapped) return mapped.status();
  return extract((*mapped)->view(), path.string(), q);
}

Result<Json> read_notebook_text(std::string_view text, const std::string& label, const NotebookQuery& q) {
  if (text.size() > q.max_file_bytes) return resource_exhausted(label + " is larger than the notebook size limit");
  simdjson::padded_string buf(text);
  return extract(buf, label, q);
}

}  // namespace bioagent
