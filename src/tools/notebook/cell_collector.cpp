#include "tools/notebook/cell_collector.h"

#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

// Byte offset just past the first `max` characters (code points, as Python
// counts), or npos when the text has no more than `max` characters; `total`
// receives the character count in that case of truncation.
size_t cut_after_chars(std::string_view s, size_t max, size_t* total) {
  size_t chars = 0, i = 0, n = s.size();
  for (; i < n; ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (chars == max) break;
      ++chars;
    }
  }
  if (i >= n) return std::string::npos;
  size_t rest = 0;
  for (size_t j = i; j < n; ++j) rest += (static_cast<unsigned char>(s[j]) & 0xC0) != 0x80;
  *total = chars + rest;
  return i;
}

// Branch-free so the compiler vectorises loops over whole texts.
char ascii_lower(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return static_cast<char>(u + ((static_cast<unsigned char>(u - 'A') < 26) << 5));
}

}  // namespace

std::string truncate_chars(std::string_view s, size_t max) {
  size_t total = 0;
  size_t cut = s.size() <= max ? std::string::npos : cut_after_chars(s, max, &total);  // bytes >= chars
  if (cut == std::string::npos) return std::string(s);
  std::string out;
  out.reserve(cut + 64);
  out.append(s.substr(0, cut));
  out += "... [truncated: ";
  out += std::to_string(max);
  out += " of ";
  out += std::to_string(total);
  out += " characters shown]";
  return out;
}

Result<Matcher> Matcher::make(const NotebookQuery& q) {
  Matcher m;
  if (q.search.empty()) return m;
  if (q.regex) {
    RE2::Options opts;
    opts.set_case_sensitive(false);
    opts.set_log_errors(false);
    m.re_ = std::make_shared<RE2>(q.search, opts);
    if (!m.re_->ok()) {
      Status s = invalid_argument("search regex '" + q.search + "' is invalid: " + m.re_->error() +
                                  " (RE2 syntax: no backreferences or lookaround)");
      s.with("field", "args.search").with("rule", "regex");
      return s;
    }
    return m;
  }
  size_t start = 0;
  while (start <= q.search.size()) {
    size_t comma = std::min(q.search.find(',', start), q.search.size());
    std::string term = q.search.substr(start, comma - start);
    term.erase(0, term.find_first_not_of(" \t"));
    term.erase(term.find_last_not_of(" \t") + 1);
    for (char& c : term) c = ascii_lower(c);
    if (!term.empty()) m.terms_.push_back(std::move(term));
    start = comma + 1;
  }
  if (m.terms_.empty()) return invalid_argument("search contains no terms (only commas and spaces)");
  return m;
}

bool Matcher::matches(std::string_view text) const {
  if (re_) return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
  thread_local std::string low;
  low.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) low[i] = ascii_lower(text[i]);
  for (auto& t : terms_) {
    if (low.find(t) != std::string::npos) return true;
  }
  return false;
}

void CellCollector::push(const RawCell& r) {
  const bool match = matcher_.active() && (matcher_.matches(r.source) || matcher_.matches(r.output));
  Json c(Json::value_t::object);
  auto& obj = c.get_ref<Json::object_t&>();
  obj.reserve(4);  // one allocation per cell object, not three
  obj.emplace("idx", next_idx_++);
  obj.emplace("type", r.type);
  if (q_.include_source) obj.emplace("source", truncate_chars(r.source, q_.max_output_chars));
  obj.emplace("output", truncate_chars(r.output, q_.max_output_chars));
  if (match) matching_.push_back(c);
  cells_.push_back(std::move(c));
}

void CellCollector::finish(Json* cells, Json* matching) {
  *cells = std::move(cells_);
  *matching = std::move(matching_);
}

}  // namespace bioagent
