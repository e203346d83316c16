#include "bioagent/notebook.h"

#include "tools/notebook/notebook_parse.h"

#include <re2/re2.h>
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

namespace fs = std::filesystem;

namespace bioagent {
namespace notebook {

using simdjson::error_code;

namespace {

#define NB_TRY(expr)                           \
  do {                                         \
    if (error_code _e = (expr); _e) return _e; \
  } while (0)

// String pieces of a notebook "multiline string" (a string or an array of
// strings). The views point into the parser's string buffer, which lives as
// long as the document, so nothing is copied until the text is actually used.
using Pieces = std::vector<std::string_view>;

// Deeper than this inside one value is refused (simdjson's own limit of 1024
// levels is then never reached, in a whole file or in a piece of one).
constexpr int kMaxNesting = 256;

}  // namespace

error_code check_value(od::value v, int depth) {
  if (depth > kMaxNesting) return simdjson::DEPTH_ERROR;
  od::json_type type;
  NB_TRY(v.type().get(type));  // also refuses a token that cannot start a value
  if (type == od::json_type::object) {
    od::object o;
    NB_TRY(v.get_object().get(o));
    for (auto f : o) {
      od::field field;
      NB_TRY(std::move(f).get(field));
      NB_TRY(check_value(field.value(), depth + 1));
    }
  } else if (type == od::json_type::array) {
    od::array a;
    NB_TRY(v.get_array().get(a));
    for (auto item : a) {
      od::value iv;
      NB_TRY(item.get(iv));
      NB_TRY(check_value(iv, depth + 1));
    }
  }
  return simdjson::SUCCESS;  // a scalar is one token: skipping it is exact
}

namespace {

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
      if (type != od::json_type::string) {
        NB_TRY(check_value(iv));  // other types are skipped
        continue;
      }
      NB_TRY(iv.get_string().get(sv));
      out.push_back(sv);
    }
  } else {
    NB_TRY(check_value(v));
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
  // On-Demand found the end by counting brackets; a full parse proves the
  // text is one well-formed value (these outputs are small and rare).
  thread_local simdjson::dom::parser dom;
  simdjson::dom::element checked;
  NB_TRY(dom.parse(raw.data(), raw.size()).get(checked));
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

// One output's parts as read from its JSON; the piece vectors are reused
// across outputs (capacity kept), one set per thread.
struct OutputParts {
  std::string_view type;
  Pieces &stream, &ename, &evalue, &plain, &html, &traceback, &images;
  std::string json;
  bool has_plain = false, has_html = false, has_json = false;
};

// An output's "data": text/plain, text/html, application/json kept; images noted, never decoded.
error_code collect_mime_data(od::value v, OutputParts& o) {
  od::object data;
  if (v.get_object().get(data) != simdjson::SUCCESS) return check_value(v);
  for (auto df : data) {
    od::field d;
    NB_TRY(std::move(df).get(d));
    std::string_view mime;
    NB_TRY(d.unescaped_key().get(mime));
    if (mime == "text/plain") {
      o.has_plain = true;
      NB_TRY(collect_text(d.value(), o.plain));
    } else if (mime == "text/html") {
      o.has_html = true;
      NB_TRY(collect_text(d.value(), o.html));
    } else if (mime == "application/json") {
      o.has_json = true;
      NB_TRY(raw_text(d.value(), o.json));
    } else {
      // An image's (large) payload is never decoded; checking it reads one token.
      if (mime.substr(0, 6) == "image/") o.images.push_back(mime);
      NB_TRY(check_value(d.value()));
    }
  }
  return simdjson::SUCCESS;
}

error_code collect_output(od::object out, OutputParts& o) {
  for (auto f : out) {
    od::field field;
    NB_TRY(std::move(f).get(field));
    std::string_view key;
    NB_TRY(field.unescaped_key().get(key));
    od::value v = field.value();
    if (key == "output_type") {
      NB_TRY(v.get_string().get(o.type));
    } else if (key == "text") {
      NB_TRY(collect_text(v, o.stream));
    } else if (key == "ename") {
      NB_TRY(collect_text(v, o.ename));
    } else if (key == "evalue") {
      NB_TRY(collect_text(v, o.evalue));
    } else if (key == "traceback") {
      NB_TRY(collect_text(v, o.traceback));
    } else if (key == "data") {
      NB_TRY(collect_mime_data(v, o));
    } else {
      NB_TRY(check_value(v));
    }
  }
  return simdjson::SUCCESS;
}

// The output's text by its type, after `body` (where this output's text starts in `text`).
void render_output(const OutputParts& o, size_t body, std::string& text) {
  if (o.type == "stream") {
    append_pieces(o.stream, text);
    strip_ansi_from(text, body);  // coloured logs are common
  } else if (o.type == "error") {
    append_pieces(o.ename, text);
    text += ": ";
    append_pieces(o.evalue, text);
    for (auto line : o.traceback) {
      text += '\n';
      append_clean(line, text);
    }
  } else if (o.type == "execute_result" || o.type == "display_data" || o.type == "update_display_data") {
    if (o.has_plain)
      append_pieces(o.plain, text);
    else if (o.has_html)
      append_pieces(o.html, text);
    if (text.size() == body && o.has_json) text += o.json;
    for (auto mime : o.images) {
      if (text.size() > body) text += '\n';
      text += '[';
      text.append(mime);
      text += ']';
    }
  }
}

// Text of one output, following the preference order of the seed's tool:
// stream text; else text/plain, text/html, application/json; images noted;
// errors as "ename: evalue" plus the traceback. Keys come in any order (Jupyter
// writes them sorted, so output_type is usually last): collect, then decide.
// Appends to `text`, separated by a newline from what is already there.
error_code append_output_text(od::object out, std::string& text) {
  thread_local Pieces stream, ename, evalue, plain, html, traceback, images;
  for (Pieces* p : {&stream, &ename, &evalue, &plain, &html, &traceback, &images}) p->clear();
  OutputParts o{{}, stream, ename, evalue, plain, html, traceback, images, {}, false, false, false};
  NB_TRY(collect_output(out, o));
  const size_t start = text.size();
  if (start > 0 && text.back() != '\n') text += '\n';
  const size_t body = text.size();
  render_output(o, body, text);
  if (text.size() == body) text.resize(start);  // nothing added: no separator either
  return simdjson::SUCCESS;
}

}  // namespace

error_code note_root_field(std::string_view key, od::value value, RootInfo& info) {
  if (key == "nbformat" && value.get_int64().get(info.nbformat) == simdjson::SUCCESS) return simdjson::SUCCESS;
  if (key == "nbformat") info.nbformat = 0;
  if (key == "worksheets") info.has_worksheets = true;
  return check_value(value);
}

error_code read_cell(od::object cell, RawCell& out) {
  // Texts gather in per-thread scratch buffers (capacity kept across cells);
  // `out` views them until the next call.
  thread_local std::string source, output;
  thread_local Pieces pieces;
  source.clear();
  output.clear();
  out.type = "unknown";
  for (auto cf : cell) {
    od::field f;
    NB_TRY(std::move(cf).get(f));
    std::string_view key;
    NB_TRY(f.unescaped_key().get(key));
    od::value v = f.value();
    if (key == "cell_type") {
      std::string_view t;  // lives in the parser's string buffer, as long as the document
      if (v.get_string().get(t) == simdjson::SUCCESS)
        out.type = t;
      else
        NB_TRY(check_value(v));
    } else if (key == "source") {
      pieces.clear();
      NB_TRY(collect_text(v, pieces));
      append_pieces(pieces, source);
    } else if (key == "outputs") {
      od::array outputs;
      if (v.get_array().get(outputs) != simdjson::SUCCESS) {
        NB_TRY(check_value(v));
        continue;
      }
      for (auto ro : outputs) {
        od::value item;
        NB_TRY(ro.get(item));
        od::object o;
        if (item.get_object().get(o) == simdjson::SUCCESS)
          NB_TRY(append_output_text(o, output));
        else
          NB_TRY(check_value(item));
      }
    } else {
      NB_TRY(check_value(v));
    }
  }
  out.source = source;
  out.output = output;
  return simdjson::SUCCESS;
}

bool consumed(od::document& doc) {
  const char* at = nullptr;
  return doc.current_location().get(at) == simdjson::OUT_OF_BOUNDS;
}

namespace {
std::mutex pool_mu;
std::vector<std::unique_ptr<od::parser>> pool;
}  // namespace

PooledParser::PooledParser() {
  std::lock_guard<std::mutex> lock(pool_mu);
  if (pool.empty()) {
    parser_ = std::make_unique<od::parser>();
  } else {
    parser_ = std::move(pool.back());
    pool.pop_back();
  }
}

PooledParser::~PooledParser() {
  std::lock_guard<std::mutex> lock(pool_mu);
  if (pool.size() < 16) pool.push_back(std::move(parser_));
}

}  // namespace notebook

namespace {

using simdjson::error_code;
namespace od = notebook::od;

Status json_error(const std::string& label, error_code e) {
  Status s = parse_error(label + " is not valid JSON (" + std::string(simdjson::error_message(e)) +
                         "); the notebook file may be corrupt or truncated");
  s.with("path", label);
  return s;
}

// Parses the whole document on this thread; errors say where it went wrong.
Status parse_sequential(simdjson::padded_string_view buf, const std::string& label, CellCollector& collector,
                        notebook::RootInfo& info, bool& has_cells) {
  notebook::PooledParser p;
  od::document doc;
  if (error_code e = p->iterate(buf).get(doc); e) return json_error(label, e);
  od::object root;
  if (error_code e = doc.get_object().get(root); e) {
    if (e == simdjson::INCORRECT_TYPE)
      return parse_error(label + " is not a Jupyter notebook: the top level is not a JSON object");
    return json_error(label, e);
  }
  for (auto rf : root) {
    od::field field;
    if (error_code e = std::move(rf).get(field); e) return json_error(label, e);
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key); e) return json_error(label, e);
    if (key != "cells") {
      if (error_code e = notebook::note_root_field(key, field.value(), info); e) return json_error(label, e);
      continue;
    }
    od::array cells;
    if (field.value().get_array().get(cells) != simdjson::SUCCESS)
      return parse_error(label + " is not a Jupyter notebook: 'cells' is not an array");
    has_cells = true;
    for (auto rc : cells) {
      od::object cell;
      if (error_code e = rc.get_object().get(cell); e) {
        if (e == simdjson::INCORRECT_TYPE)
          return parse_error(label + ": cell " + std::to_string(collector.size()) + " is not an object");
        return json_error(label, e);
      }
      RawCell raw;
      if (error_code e = notebook::read_cell(cell, raw); e) return json_error(label, e);
      collector.push(raw);
    }
  }
  if (!notebook::consumed(doc))
    return parse_error(label + " is not valid JSON: more text follows the notebook's closing brace");
  return Status::ok();
}

// `data` is writable (the parallel parse marks its cuts in it) and followed by
// simdjson's padding up to `capacity`.
Result<Json> extract(char* data, size_t size, size_t capacity, const std::string& label, const NotebookQuery& q) {
  auto made = Matcher::make(q);
  if (!made) return made.status();

  notebook::RootInfo info;
  size_t total = 0;
  Json out_cells, matching;
  unsigned threads = q.threads ? q.threads : std::max(1u, std::thread::hardware_concurrency());
  std::optional<notebook::PartsResult> parts;
  if (threads > 1 && size >= q.parallel_min_bytes)
    parts = notebook::parse_in_parts(data, size, capacity, *made, q, threads);
  if (parts) {
    info = parts->info;
    total = parts->total_cells;
    out_cells = std::move(parts->cells);
    matching = std::move(parts->matching);
  } else {
    CellCollector collector(*made, q);
    bool has_cells = false;
    Status s = parse_sequential(simdjson::padded_string_view(data, size, capacity), label, collector, info, has_cells);
    if (!s.is_ok()) return s;
    if (!has_cells && !info.has_worksheets && !(info.nbformat != 0 && info.nbformat < 4))
      return parse_error(label + " is not a Jupyter notebook: it has no 'cells' array");
    total = collector.size();
    collector.finish(&out_cells, &matching);
  }
  const int64_t nbformat = info.nbformat;
  if (info.has_worksheets || (nbformat != 0 && nbformat < 4)) {
    Status s = unsupported(label + " is nbformat " + std::to_string(nbformat ? nbformat : 3) +
                           " (the 'worksheets' layout); only nbformat 4 is supported (convert with: jupyter "
                           "nbconvert --to notebook --nbformat 4)");
    s.with("nbformat", nbformat);
    return s;
  }

  // Room reserved up front: ordered_json keeps (const key, value) pairs in a
  // vector, and growing it copies the values (the pair is not nothrow-movable),
  // which would deep-copy the cell arrays. Keys: these nine, note, other_notebooks.
  Json result = Json::object();
  result.get_ref<Json::object_t&>().reserve(12);
  result["notebook_path"] = label;
  result["nbformat"] = nbformat;
  result["total_cells"] = total;
  result["cells"] = std::move(out_cells);
  result["search"] = q.search.empty() ? Json() : Json(q.search);
  result["regex"] = q.regex;
  result["n_matches"] = matching.size();
  result["matching_cells"] = std::move(matching);
  if (total == 0)
    result["note"] = "the notebook has no cells";
  else if (made->active() && result["n_matches"] == 0)
    result["note"] = "no cell's source or output contains the search " + std::string(q.regex ? "pattern" : "terms");
  return result;
}

// A private memory map of a file followed by zeroed padding, as simdjson
// requires (it reads up to SIMDJSON_PADDING bytes past the end). The file is
// mapped over an anonymous reservation, so the padding is always readable.
// Writable copy-on-write: the parallel parse marks its cuts in a few pages,
// which never reach the file.
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
    // Pages fault in lazily, on whichever thread parses them (populating the
    // whole map first took 2.3 ms of 24 MB on one thread).
    void* file = mmap(m->base_, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    ::close(fd);
    if (file == MAP_FAILED) return not_found("cannot read notebook '" + path.string() + "': " + std::strerror(errno));
    return m;
  }
  ~MappedFile() {
    if (base_) munmap(base_, length_);
  }
  char* data() const { return base_; }
  size_t size() const { return size_; }
  size_t capacity() const { return length_; }

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

Result<fs::path> discover_notebook(const fs::path& folder, std::vector<fs::path>* others, const Workspace* workspace) {
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
    if (workspace && workspace->is_excluded(p)) {  // the server's state: other sessions' files
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
  return extract((*mapped)->data(), (*mapped)->size(), (*mapped)->capacity(), path.string(), q);
}

Result<Json> read_notebook_text(std::string_view text, const std::string& label, const NotebookQuery& q) {
  if (text.size() > q.max_file_bytes) return resource_exhausted(label + " is larger than the notebook size limit");
  simdjson::padded_string buf(text);
  return extract(buf.data(), buf.size(), buf.size() + simdjson::SIMDJSON_PADDING, label, q);
}

}  // namespace bioagent
