// EntryStore over Xapian (see entry_store.h).
#include "index/entry_store.h"

#include <xapian.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_map>

#include "text/chinese_script.h"

namespace bioagent {
namespace {

// Slots 0-4 held one field each in stores written before the fields were
// packed; entry_of still reads them when a document has no packed slot.
enum Slot : Xapian::valueno { kPdf = 0, kPage = 1, kTable = 2, kColumn = 3, kKey = 4, kPacked = 5 };

// pdf_id, page_number, table_name, column_name, primary_key in one value, each
// as a 4-byte little-endian length and its bytes: one value read per hit
// instead of five (~20% of a top-10 query at 50k chunks).
std::string pack_fields(const IndexEntry& e) {
  std::string out;
  for (const std::string* f : {&e.pdf_id, &e.table_name, &e.column_name, &e.primary_key}) {
    uint32_t n = static_cast<uint32_t>(f->size());
    for (int b = 0; b < 4; ++b) out += static_cast<char>((n >> (8 * b)) & 0xFF);
    out += *f;
  }
  int32_t page = e.page_number;
  for (int b = 0; b < 4; ++b) out += static_cast<char>((static_cast<uint32_t>(page) >> (8 * b)) & 0xFF);
  return out;
}

// The fields of a packed value; false when it is malformed.
bool unpack_fields(const std::string& v, IndexEntry& e) {
  size_t at = 0;
  auto u32 = [&](uint32_t& n) {
    if (at + 4 > v.size()) return false;
    n = 0;
    for (int b = 0; b < 4; ++b) n |= uint32_t(static_cast<unsigned char>(v[at + b])) << (8 * b);
    at += 4;
    return true;
  };
  for (std::string* f : {&e.pdf_id, &e.table_name, &e.column_name, &e.primary_key}) {
    uint32_t n = 0;
    if (!u32(n) || at + n > v.size()) return false;
    f->assign(v, at, n);
    at += n;
  }
  uint32_t page = 0;
  if (!u32(page)) return false;
  e.page_number = static_cast<int32_t>(page);
  return at == v.size();
}

// Okapi BM25 with the usual k1 = 1.2, b = 0.75 (what SQLite FTS5's bm25() uses).
Xapian::BM25Weight bm25_weight() { return Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5); }

Status xapian_error(const Xapian::Error& e, const std::string& what) {
  return Status(ErrorCode::kInternal, what + ": " + e.get_description());
}

IndexEntry entry_of(const Xapian::Document& d) {
  IndexEntry e;
  if (std::string packed = d.get_value(kPacked); !packed.empty() && unpack_fields(packed, e)) return e;
  e.pdf_id = d.get_value(kPdf);
  e.page_number = std::atoi(d.get_value(kPage).c_str());
  e.table_name = d.get_value(kTable);
  e.column_name = d.get_value(kColumn);
  e.primary_key = d.get_value(kKey);
  return e;
}

// Runs inside Xapian's match: only documents that pass the filter are
// candidates, so ranking and truncation see the filtered set. Only built for
// a non-empty filter: it reads each candidate's values.
class FilterDecider : public Xapian::MatchDecider {
 public:
  explicit FilterDecider(const FilterExpr& f) : f_(f) {}
  bool operator()(const Xapian::Document& d) const override {
    const IndexEntry e = entry_of(d);
    auto r = f_.matches([&](std::string_view name) -> std::optional<FilterValue> {
      if (name == "id") return FilterValue{int64_t(d.get_docid())};
      if (name == "page_number") return FilterValue{int64_t(e.page_number)};
      if (name == "pdf_id") return FilterValue{e.pdf_id};
      if (name == "table_name") return FilterValue{e.table_name};
      if (name == "column_name") return FilterValue{e.column_name};
      if (name == "primary_key") return FilterValue{e.primary_key};
      return std::nullopt;
    });
    if (!r) {
      if (error.is_ok()) error = r.status();
      return false;
    }
    return *r;
  }
  mutable Status error;

 private:
  const FilterExpr& f_;
};

// Our analyser for text_bm25_en, used for documents and queries alike:
// lower-cased runs of letters and digits (bytes of other UTF-8 sequences count
// as letters, so accented names stay whole), each reduced by Xapian's English
// (Snowball) stemmer; each CJK character is a word of its own (so a Chinese
// question's English names and numbers are found). Stems are
// cached per thread across documents: a corpus repeats its words, and
// stemming dominates indexing time.
class Analyser {
 public:
  template <typename F>
  void terms(const std::string& text, F&& emit) {
    std::string w;
    auto flush = [&] {
      if (!w.empty() && w.size() <= 64) emit(stem(w));
      w.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(text[i]);
      if (unsigned cp = cjk_at(text, i)) {  // a CJK character is a word of its own
        flush();
        if (!cjk_punctuation(cp)) {
          w.assign(text, i, 3);
          flush();
        }
        i += 2;
      } else if (c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) {
        w += static_cast<char>(c);
      } else if (c >= 'A' && c <= 'Z') {
        w += static_cast<char>(c + ('a' - 'A'));
      } else {
        flush();
      }
    }
    flush();
  }
  // Call between documents only: it invalidates the stems handed out.
  void trim() {
    if (cache_.size() > 500000) cache_.clear();
  }

 private:
  const std::string& stem(const std::string& w) {
    auto it = cache_.find(w);
    if (it != cache_.end()) return it->second;
    return cache_.emplace(w, stemmer_(w)).first->second;
  }
  Xapian::Stem stemmer_{"english"};
  std::unordered_map<std::string, std::string> cache_;
};

Analyser& thread_analyser() {
  thread_local Analyser a;
  return a;
}

}  // namespace

std::vector<std::string> index_terms(const std::string& text) {
  std::vector<std::string> out;
  Analyser& analyser = thread_analyser();
  analyser.terms(text, [&](const std::string& t) { out.push_back(t); });
  analyser.trim();  // the terms are copies
  return out;
}

std::vector<double> bm25_among(const std::string& query, const std::vector<std::string>& docs) {
  constexpr double k1 = 1.2, b = 0.75;
  Analyser& analyser = thread_analyser();
  std::map<std::string, int> asked;  // query term → times asked (its wqf)
  analyser.terms(query, [&](const std::string& t) { ++asked[t]; });
  std::vector<std::map<std::string, int>> tf(docs.size());
  std::vector<double> length(docs.size(), 0);
  std::map<std::string, int> df;
  for (size_t i = 0; i < docs.size(); ++i) {
    analyser.terms(docs[i], [&](const std::string& t) {
      length[i] += 1;
      if (auto it = asked.find(t); it != asked.end()) ++tf[i][it->first];
    });
    for (auto& [t, n] : tf[i]) ++df[t];
    analyser.trim();
  }
  double avg = 0;
  for (double l : length) avg += l;
  avg = docs.empty() ? 1 : std::max(1.0, avg / double(docs.size()));
  const double n_docs = double(docs.size());
  std::vector<double> out(docs.size(), 0);
  for (size_t i = 0; i < docs.size(); ++i)
    for (auto& [t, n] : tf[i]) {
      const double idf = std::log(1 + (n_docs - df[t] + 0.5) / (df[t] + 0.5));
      const double norm = k1 * (1 - b + b * length[i] / avg);
      const int wqf = asked[t];
      out[i] += idf * n * (k1 + 1) / (n + norm) * (2.0 * wqf / (1 + wqf));
    }
  return out;
}

namespace {

// Documents of table/column whose paper is visible, as boolean terms: Xapian
// skips the rest through its posting lists, with no document read.
Xapian::Query restriction(const std::string& table, const std::string& column, const std::set<std::string>& visible) {
  std::vector<Xapian::Query> papers;
  papers.reserve(visible.size());
  for (auto& pdf : visible) papers.emplace_back("XP" + pdf);
  Xapian::Query visible_papers(Xapian::Query::OP_OR, papers.begin(), papers.end());
  return Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query("XK" + table + "/" + column), visible_papers);
}

}  // namespace

struct EntryStore::Impl {
  std::optional<Xapian::WritableDatabase> wdb;
  std::optional<Xapian::Database> rdb;  // absent: nothing indexed yet
  const Xapian::Database* db() const { return wdb ? &*wdb : rdb ? &*rdb : nullptr; }
};

EntryStore::EntryStore() : impl_(std::make_unique<Impl>()) {}
EntryStore::~EntryStore() = default;

Result<std::unique_ptr<EntryStore>> EntryStore::open(const std::string& path, bool writable) {
  auto s = std::unique_ptr<EntryStore>(new EntryStore());
  try {
    if (writable) {
      // Xapian reads its flush threshold from the environment when a writer
      // opens; unless the user set one, flush after 2000 added documents
      // instead of Xapian's 10000: smaller in-memory posting maps cost ~20%
      // less CPU per added document (bench/bm25_bench.sh).
      setenv("XAPIAN_FLUSH_THRESHOLD", kDefaultFlushThreshold, /*overwrite=*/0);
      std::error_code ec;
      std::filesystem::create_directories(path, ec);
      s->impl_->wdb.emplace(path, Xapian::DB_CREATE_OR_OPEN);
    } else if (std::filesystem::exists(std::filesystem::path(path) / "iamglass")) {
      s->impl_->rdb.emplace(path);
    }
  } catch (const Xapian::DatabaseLockError&) {
    return Status(ErrorCode::kUnavailable, "the search index " + path + " is being written by another process");
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "cannot open the search index " + path);
  }
  return s;
}

Status EntryStore::commit() {
  if (!impl_->wdb) return internal_error("the search index is open read-only");
  try {
    impl_->wdb->commit();
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "committing the search index failed");
  }
  return Status::ok();
}

namespace {

// The documents of entries[begin, end) into out (sized already); any thread.
void make_document_range(const std::vector<IndexEntry>& entries, size_t begin, size_t end, PreparedEntries& out) {
  Analyser& analyser = thread_analyser();
  std::unordered_map<std::string_view, Xapian::termcount> wdf;  // a term's count in one document
  for (size_t i = begin; i < end; ++i) {
    const IndexEntry& e = entries[i];
    if (e.text.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    out.has_text[i] = 1;
    Xapian::Document& d = out.docs[i];
    d.add_value(kPacked, pack_fields(e));
    d.add_boolean_term("XP" + e.pdf_id);
    d.add_boolean_term("XK" + e.table_name + "/" + e.column_name);
    // Counted first, then added once each (the same wdf as one add per occurrence).
    wdf.clear();
    analyser.terms(e.text, [&](const std::string& t) { ++wdf[t]; });
    for (auto& [term, n] : wdf) d.add_term(std::string(term), n);
    analyser.trim();
  }
}

// Batches at least this large are analysed on two threads (a bulk build; a
// paper's entries stay on the caller's thread, which runs beside others).
constexpr size_t kParallelEntries = 8192;

}  // namespace

void EntryStore::make_documents(const std::vector<IndexEntry>& entries, PreparedEntries& out) {
  out.docs.clear();
  out.docs.resize(entries.size());  // one document each (a copied Document would share its contents)
  out.has_text.assign(entries.size(), 0);
  if (entries.size() < kParallelEntries) return make_document_range(entries, 0, entries.size(), out);
  size_t half = entries.size() / 2;
  std::thread second([&] { make_document_range(entries, half, entries.size(), out); });
  make_document_range(entries, 0, half, out);
  second.join();
}

Result<std::vector<int64_t>> EntryStore::replace_paper(const std::string& pdf_id, const PreparedEntries& prepared,
                                                       bool commit) {
  if (!impl_->wdb) return internal_error("the search index is open read-only");
  std::vector<int64_t> ids;
  try {
    auto& db = *impl_->wdb;
    db.delete_document("XP" + pdf_id);
    for (size_t i = 0; i < prepared.docs.size(); ++i)
      ids.push_back(prepared.has_text[i] ? int64_t(db.add_document(prepared.docs[i])) : 0);
    if (commit) db.commit();
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "indexing paper " + pdf_id + " failed");
  }
  return ids;
}

Status EntryStore::remove_paper(const std::string& pdf_id) {
  if (!impl_->wdb) return internal_error("the search index is open read-only");
  try {
    impl_->wdb->delete_document("XP" + pdf_id);
    impl_->wdb->commit();
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "removing paper " + pdf_id + " from the search index failed");
  }
  return Status::ok();
}

std::set<int64_t> EntryStore::all_ids() const {
  std::set<int64_t> out;
  if (auto* db = impl_->db())
    for (auto it = db->postlist_begin(""); it != db->postlist_end(""); ++it) out.insert(*it);
  return out;
}

std::set<int64_t> EntryStore::ids_of_paper(const std::string& pdf_id) const {
  std::set<int64_t> out;
  if (auto* db = impl_->db())
    for (auto it = db->postlist_begin("XP" + pdf_id); it != db->postlist_end("XP" + pdf_id); ++it) out.insert(*it);
  return out;
}

std::set<std::string> EntryStore::papers() const {
  std::set<std::string> out;
  if (auto* db = impl_->db())
    for (auto it = db->allterms_begin("XP"); it != db->allterms_end("XP"); ++it) out.insert((*it).substr(2));
  return out;
}

size_t EntryStore::size() const { return impl_->db() ? impl_->db()->get_doccount() : 0; }

size_t EntryStore::term_frequency(const std::string& term) const {
  try {
    return impl_->db() && !term.empty() ? impl_->db()->get_termfreq(term) : 0;
  } catch (const Xapian::Error&) {
    return 0;  // a read racing a writer's commit: as if the word were absent
  }
}

Result<std::vector<SearchHit>> EntryStore::bm25(const std::string& query, const std::string& table,
                                                const std::string& column, const FilterExpr& filter,
                                                const std::set<std::string>& visible, size_t limit) const {
  std::vector<SearchHit> out;
  const Xapian::Database* db = impl_->db();
  if (!db) return out;
  try {
    std::vector<std::string> words;  // plain words: no query syntax to trip over
    Analyser& analyser = thread_analyser();
    analyser.terms(query, [&](const std::string& t) { words.push_back(t); });
    analyser.trim();  // the words are copies: the cache stays bounded in a query-only process
    Xapian::Query q(Xapian::Query::OP_OR, words.begin(), words.end());
    Xapian::Enquire enq(*db);
    enq.set_query(Xapian::Query(Xapian::Query::OP_FILTER, q, restriction(table, column, visible)));
    enq.set_weighting_scheme(bm25_weight());
    FilterDecider decider(filter);
    Xapian::MSet m =
        enq.get_mset(0, static_cast<Xapian::doccount>(limit), nullptr, filter.empty() ? nullptr : &decider);
    if (!decider.error.is_ok()) return decider.error;
    for (auto it = m.begin(); it != m.end(); ++it) out.push_back({it.get_weight(), entry_of(it.get_document())});
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "BM25 search failed");
  }
  return out;
}

Result<std::vector<int64_t>> EntryStore::allowed(const std::string& table, const std::string& column,
                                                 const FilterExpr& filter, const std::set<std::string>& visible) const {
  std::vector<int64_t> out;
  const Xapian::Database* db = impl_->db();
  if (!db) return out;
  try {
    Xapian::Enquire enq(*db);
    enq.set_query(restriction(table, column, visible));
    enq.set_weighting_scheme(Xapian::BoolWeight());
    enq.set_docid_order(Xapian::Enquire::ASCENDING);
    FilterDecider decider(filter);
    Xapian::MSet m = enq.get_mset(0, db->get_doccount(), nullptr, filter.empty() ? nullptr : &decider);
    if (!decider.error.is_ok()) return decider.error;
    for (auto it = m.begin(); it != m.end(); ++it) out.push_back(*it);
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "filtering the search index failed");
  }
  return out;
}

Result<IndexEntry> EntryStore::entry(int64_t id) const {
  const Xapian::Database* db = impl_->db();
  try {
    if (db && id > 0) return entry_of(db->get_document(static_cast<Xapian::docid>(id)));
  } catch (const Xapian::DocNotFoundError&) {
  } catch (const Xapian::Error& e) {
    return xapian_error(e, "reading index entry " + std::to_string(id));
  }
  return not_found("no index entry " + std::to_string(id));
}

std::vector<std::pair<std::string, size_t>> EntryStore::table_columns() const {
  std::vector<std::pair<std::string, size_t>> out;
  if (auto* db = impl_->db())
    for (auto it = db->allterms_begin("XK"); it != db->allterms_end("XK"); ++it)
      out.emplace_back((*it).substr(2), it.get_termfreq());
  return out;
}

}  // namespace bioagent
