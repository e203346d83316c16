#include "tools/notebook/cell_pipeline.h"

#include <nlohmann/json.hpp>

namespace bioagent {
namespace {

// Byte offset just past the first `max` characters (code points, as Python
// counts), or npos when the text has no more than `max` characters; `total`
// receives the character count in that case of truncation.
size_t cut_after_chars(const std::string& s, size_t max, size_t* total) {
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

constexpr size_t kBatch = 128;

}  // namespace

std::string truncate_chars(std::string&& s, size_t max) {
  if (s.size() <= max) return std::move(s);  // bytes >= chars
  size_t total = 0;
  size_t cut = cut_after_chars(s, max, &total);
  if (cut == std::string::npos) return std::move(s);
  s.resize(cut);
  s += "... [truncated: ";
  s += std::to_string(max);
  s += " of ";
  s += std::to_string(total);
  s += " characters shown]";
  return std::move(s);
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

bool Matcher::matches(const std::string& text) const {
  if (re_) return RE2::PartialMatch(text, *re_);
  thread_local std::string low;
  low.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) low[i] = ascii_lower(text[i]);
  for (auto& t : terms_) {
    if (low.find(t) != std::string::npos) return true;
  }
  return false;
}

CellPipeline::CellPipeline(const Matcher& matcher, const NotebookQuery& q, bool threaded) : matcher_(matcher), q_(q) {
  if (threaded) helper_ = std::thread([this] { work(); });
}

CellPipeline::~CellPipeline() {
  if (helper_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    helper_.join();
  }
}

void CellPipeline::build(RawCell&& r, size_t idx) {
  const bool match = r.matched;
  Json c(Json::value_t::object);
  auto& obj = c.get_ref<Json::object_t&>();
  obj.reserve(4);  // one allocation per cell object, not three
  obj.emplace("idx", idx);
  obj.emplace("type", std::move(r.type));
  if (q_.include_source) obj.emplace("source", truncate_chars(std::move(r.source), q_.max_output_chars));
  obj.emplace("output", truncate_chars(std::move(r.output), q_.max_output_chars));
  if (match) matching_.push_back(c);
  cells_.push_back(std::move(c));
}

void CellPipeline::push(RawCell&& cell) {
  // Matching runs on the parsing thread: it balances the two threads' work.
  cell.matched = matcher_.active() && (matcher_.matches(cell.source) || matcher_.matches(cell.output));
  if (!helper_.joinable()) {
    build(std::move(cell), next_idx_++);
    return;
  }
  batch_.push_back(std::move(cell));
  if (batch_.size() < kBatch) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(batch_));
  }
  batch_.clear();
  cv_.notify_one();
}

void CellPipeline::work() {
  try {
    for (;;) {
      std::vector<RawCell> b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;  // done and drained
        b = std::move(queue_.front());
        queue_.pop_front();
      }
      for (auto& r : b) build(std::move(r), next_idx_++);
    }
  } catch (...) {
    failure_ = std::current_exception();
  }
}

void CellPipeline::finish(Json* cells, Json* matching) {
  if (helper_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!batch_.empty()) queue_.push_back(std::move(batch_));
      done_ = true;
    }
    cv_.notify_all();
    helper_.join();
    if (failure_) std::rethrow_exception(failure_);
  }
  *cells = std::move(cells_);
  *matching = std::move(matching_);
}

}  // namespace bioagent
