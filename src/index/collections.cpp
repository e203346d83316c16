// Collections: the BM25 collection and the dense ones over one entry store.
#include "bioagent/collections.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "index/dense_index.h"
#include "index/entry_store.h"

namespace bioagent {
namespace {

constexpr const char* kBm25 = "text_bm25_en";
constexpr int kMaxLimit = 100;

Json field_list(bool sparse, int dim) {
  Json vec = {{"name", "vector"}, {"dtype", sparse ? "SPARSE_FLOAT_VECTOR" : "FLOAT_VECTOR"}};
  if (!sparse) vec["dim"] = dim;
  return Json::array(
      {{{"name", "id"}, {"dtype", "INT64"}, {"is_primary", true}},
       vec,
       {{"name", "pdf_id"}, {"dtype", "VARCHAR"}, {"description", "The paper (metadata.paper_id)."}},
       {{"name", "page_number"}, {"dtype", "INT16"}, {"description", "Page of the text, from 1; -1 if not one page."}},
       {{"name", "table_name"}, {"dtype", "VARCHAR"}, {"description", "Table the text comes from."}},
       {{"name", "column_name"}, {"dtype", "VARCHAR"}, {"description", "Column the text comes from."}},
       {{"name", "primary_key"}, {"dtype", "VARCHAR"}, {"description", "Row (primary key value) of the text."}}});
}

}  // namespace

struct Collections::Impl {
  std::string dir;
  bool writable = false;
  std::unique_ptr<EntryStore> store;
  std::vector<std::shared_ptr<Embedder>> dense;
  std::set<std::pair<std::string, std::string>> searchable;  // empty: whatever the index holds

  std::set<std::pair<std::string, std::string>> searchable_pairs() const {
    if (!searchable.empty()) return searchable;
    std::set<std::pair<std::string, std::string>> out;
    for (auto& [tc, n] : store->table_columns()) {
      size_t slash = tc.find('/');
      if (slash != std::string::npos) out.emplace(tc.substr(0, slash), tc.substr(slash + 1));
    }
    return out;
  }

  std::string dense_path(const Embedder& e) const { return dir + "/" + e.collection_name() + ".dense"; }
  const Embedder* embedder(const std::string& name) const {
    for (auto& e : dense)
      if (e->collection_name() == name) return e.get();
    return nullptr;
  }

  std::map<std::string, std::unique_ptr<DenseIndex>> loaded;  // read once per Collections

  Result<DenseIndex*> dense_index(const Embedder& e) {
    auto& slot = loaded[e.collection_name()];
    if (!slot) {
      auto idx = DenseIndex::load(dense_path(e), e.dim());
      if (!idx) return idx.status();
      slot = std::move(*idx);
    }
    return slot.get();
  }

  // Every dense collection: drop `old` ids, add one vector per id in `ids`:
  // the prepared ones of a local embedder, else embedded now from `texts`.
  Status update_dense(const std::set<int64_t>& old, const std::vector<int64_t>& ids,
                      const std::vector<const std::string*>& texts,
                      const std::vector<const PreparedEntries*>& prepared) {
    for (auto& e : dense) {
      auto idx = dense_index(*e);
      if (!idx) return idx.status();
      (*idx)->drop(old);
      if (!ids.empty()) {
        std::vector<std::vector<float>> vecs;
        bool ready = !prepared.empty();
        for (auto* p : prepared) ready = ready && p && p->vectors.count(e->collection_name());
        if (ready) {
          for (auto* p : prepared) {
            auto& v = p->vectors.at(e->collection_name());
            vecs.insert(vecs.end(), v.begin(), v.end());
          }
        } else {
          std::vector<std::string> batch;
          for (auto* t : texts) batch.push_back(*t);
          auto made = e->embed(batch);
          if (!made) return made.status();
          vecs = std::move(*made);
        }
        if (vecs.size() != ids.size()) return internal_error("dense vectors and index entries differ in number");
        (*idx)->add(ids, vecs);
      }
      BIOAGENT_RETURN_IF_ERROR((*idx)->save());
    }
    return Status::ok();
  }
};

Collections::Collections() : impl_(std::make_unique<Impl>()) {}
Collections::~Collections() = default;

std::string collections_dir_for(const std::string& papers_db) { return papers_db + ".indexes"; }

const std::set<std::string>& Collections::filter_fields() {
  static const std::set<std::string> kFields = {"id",         "pdf_id",      "page_number",
                                                "table_name", "column_name", "primary_key"};
  return kFields;
}

Result<std::unique_ptr<Collections>> Collections::open(const std::string& dir, bool writable,
                                                       std::vector<std::shared_ptr<Embedder>> dense,
                                                       std::set<std::pair<std::string, std::string>> searchable) {
  auto c = std::unique_ptr<Collections>(new Collections());
  c->impl_->searchable = std::move(searchable);
  c->impl_->dir = dir;
  c->impl_->writable = writable;
  c->impl_->dense = std::move(dense);
  auto store = EntryStore::open(dir + "/entries", writable);
  if (!store) return store.status();
  c->impl_->store = std::move(*store);
  return c;
}

std::shared_ptr<const PreparedEntries> Collections::prepare(const std::vector<IndexEntry>& entries) const {
  auto out = std::make_shared<PreparedEntries>();
  EntryStore::make_documents(entries, *out);
  std::vector<std::string> texts;
  for (size_t i = 0; i < entries.size(); ++i)
    if (out->has_text[i]) texts.push_back(entries[i].text);
  for (auto& e : impl_->dense)
    if (e->local())
      if (auto v = e->embed(texts)) out->vectors[e->collection_name()] = std::move(*v);
  return out;
}

Status Collections::add_paper(const std::string& pdf_id, const std::vector<IndexEntry>& entries) {
  return add_papers({{pdf_id, &entries, nullptr}});
}

Status Collections::add_papers(const std::vector<PaperEntries>& papers) {
  std::set<int64_t> old;
  std::vector<int64_t> ids;
  std::vector<const std::string*> texts;
  std::vector<std::shared_ptr<const PreparedEntries>> made;  // keeps what is prepared here alive
  std::vector<const PreparedEntries*> prepared;
  for (auto& paper : papers) {
    auto before = impl_->store->ids_of_paper(paper.pdf_id);
    old.insert(before.begin(), before.end());
    auto p = paper.prepared ? paper.prepared : made.emplace_back(prepare(*paper.entries));
    auto added = impl_->store->replace_paper(paper.pdf_id, *p, /*commit=*/false);
    if (!added) return added.status();
    for (size_t i = 0; i < added->size(); ++i)
      if ((*added)[i] > 0) {
        ids.push_back((*added)[i]);
        texts.push_back(&(*paper.entries)[i].text);
      }
    prepared.push_back(p.get());
  }
  BIOAGENT_RETURN_IF_ERROR(impl_->store->commit());
  return impl_->update_dense(old, ids, texts, prepared);
}

Status Collections::remove_paper(const std::string& pdf_id) {
  std::set<int64_t> old = impl_->store->ids_of_paper(pdf_id);
  BIOAGENT_RETURN_IF_ERROR(impl_->store->remove_paper(pdf_id));
  return impl_->update_dense(old, {}, {}, {});
}

Status Collections::repair() {
  // A run killed between the entry store's commit and a dense file's save
  // leaves ids there that the store no longer has: drop them.
  std::set<int64_t> live;
  for (auto& e : impl_->dense) {
    auto idx = impl_->dense_index(*e);
    if (!idx) return idx.status();
    if ((*idx)->size() == impl_->store->size()) continue;
    if (live.empty()) live = impl_->store->all_ids();
    (*idx)->retain(live);
    BIOAGENT_RETURN_IF_ERROR((*idx)->save());
  }
  return Status::ok();
}

std::set<std::string> Collections::indexed_papers() const { return impl_->store->papers(); }

bool Collections::holds_words(const std::string& text) const {
  const std::vector<std::string> words = index_terms(text);
  return !words.empty() && std::all_of(words.begin(), words.end(),
                                       [&](const std::string& w) { return impl_->store->term_frequency(w) > 0; });
}

std::vector<std::string> Collections::names() const {
  std::vector<std::string> out{kBm25};
  for (auto& e : impl_->dense) out.push_back(e->collection_name());
  return out;
}

std::string Collections::embed_type(const std::string& collection_name) const {
  if (collection_name == kBm25) return "bm25";
  const Embedder* e = impl_->embedder(collection_name);
  return e ? e->embed_type() : std::string();
}

Result<std::vector<SearchHit>> Collections::search(const CollectionQuery& q,
                                                   const std::set<std::string>& visible) const {
  auto known = names();
  if (std::find(known.begin(), known.end(), q.collection_name) == known.end()) {
    std::string list;
    for (auto& n : known) list += (list.empty() ? "" : ", ") + n;
    return Status(ErrorCode::kNotFound, "unknown collection '" + q.collection_name + "'; the collections are: " + list)
        .with("collections", known);
  }
  const auto searchable = impl_->searchable_pairs();
  if (!searchable.count({q.table_name, q.column_name})) {
    Json pairs = Json::array();
    for (auto& [t, c] : searchable) pairs.push_back(t + "." + c);
    return Status(ErrorCode::kInvalidArgument,
                  "'" + q.table_name + "." + q.column_name + "' is not an encodable column; use one of the listed ones")
        .with("encodable_columns", pairs);
  }
  if (q.limit < 1) return invalid_argument("limit must be a positive integer");
  size_t limit = static_cast<size_t>(std::min(q.limit, kMaxLimit));
  auto filter = FilterExpr::parse(q.filter, filter_fields());
  if (!filter) return filter.status();
  if (q.query.find_first_not_of(" \t\r\n") == std::string::npos) return invalid_argument("the query text is empty");

  if (q.collection_name == kBm25)
    return impl_->store->bm25(q.query, q.table_name, q.column_name, *filter, visible, limit);

  const Embedder* e = impl_->embedder(q.collection_name);
  auto allowed = impl_->store->allowed(q.table_name, q.column_name, *filter, visible);
  if (!allowed) return allowed.status();
  auto idx = impl_->dense_index(*e);
  if (!idx) return idx.status();
  auto qv = const_cast<Embedder*>(e)->embed({q.query});
  if (!qv) return qv.status();
  std::vector<SearchHit> out;
  for (auto& [id, score] : (*idx)->search((*qv)[0], *allowed, limit)) {
    auto entry = impl_->store->entry(id);
    if (entry) out.push_back({score, std::move(*entry)});
  }
  return out;
}

Json Collections::describe() const {
  Json cols = Json::array();
  Json indexed = Json::array();
  for (auto& [tc, n] : impl_->store->table_columns()) indexed.push_back({{"column", tc}, {"entries", n}});
  cols.push_back({{"collection_name", kBm25},
                  {"modality", "text"},
                  {"embed_type", "bm25"},
                  {"embed_model", "en"},
                  {"engine", "Xapian BM25 (k1 1.2, b 0.75), English stemming"},
                  {"metric", "IP"},
                  {"entries", impl_->store->size()},
                  {"fields", field_list(true, 0)}});
  for (auto& e : impl_->dense) {
    auto idx = impl_->dense_index(*e);
    cols.push_back({{"collection_name", e->collection_name()},
                    {"modality", "text"},
                    {"embed_type", e->embed_type()},
                    {"embed_model", e->embed_model()},
                    {"engine", "FAISS exact inner product over unit vectors (cosine)"},
                    {"metric", "COSINE"},
                    {"entries", idx ? (*idx)->size() : 0},
                    {"fields", field_list(false, e->dim())}});
  }
  return Json{{"collections", cols},
              {"indexed_columns", indexed},
              {"filter_fields", filter_fields()},
              {"note",
               "RetrieveFromVectorstore searches one collection restricted to table_name and column_name; "
               "filter may further restrict id, pdf_id, page_number and primary_key."}};
}

}  // namespace bioagent
