// Seed 001's retrieval actions over the search collections: RetrieveFromVectorstore,
// ClassicRetrieve (BM25 + dense, reciprocal-rank fusion), GenerateAnswer, and
// list_vector_collections. The literature evidence store is a collection too
// ("literature_evidence"): what search_literature collected, searched offline.
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "bioagent/collections.h"
#include "bioagent/papers.h"
#include "bioagent/search.h"
#include "papers/duckdb_conn.h"
#include "tools/builtin_tools.h"

namespace bioagent::tools {
namespace {

constexpr const char* kEvidence = "literature_evidence";

struct Library {
  std::unique_ptr<Collections> collections;
  std::set<std::string> visible;
  std::unique_ptr<DuckDb> db;  // null: no library file yet (and so no hits)

  Result<std::vector<SearchHit>> search(const CollectionQuery& q) const {
    auto hits = collections->search(q, visible);
    if (hits && db) BIOAGENT_RETURN_IF_ERROR(fill_entry_texts(*db, *hits));
    return hits;
  }
};

Result<Library> open_library(ToolContext& ctx) {
  std::string db_path = ctx.option("papers_db");
  if (db_path.empty()) return unsupported("no paper library is configured (BIOAGENT_PAPERS_DB or --papers-db)");
  Library lib;
  std::error_code ec;
  if (std::filesystem::exists(db_path, ec)) {
    auto db = DuckDb::open(db_path, /*read_only=*/true);
    if (!db) return db.status();
    auto r = (*db)->query("SELECT paper_id::VARCHAR FROM metadata", {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
    if (!r) return r.status();
    for (auto& row : r->rows) lib.visible.insert(row[0].get<std::string>());
    lib.db = std::move(*db);
  }
  std::map<std::string, std::string> options;
  for (const char* k : {"embed_url", "embed_model", "embed_key_env"}) options[k] = ctx.option(k);
  auto dense = embedders_from_options(options);
  if (!dense) return dense.status();
  auto c = Collections::open(collections_dir_for(db_path), false, std::move(*dense));
  if (!c) return c.status();
  lib.collections = std::move(*c);
  return lib;
}

Json hit_json(const SearchHit& h, size_t max_chars) {
  const IndexEntry& e = h.entry;
  std::string text = e.text.size() > max_chars ? e.text.substr(0, max_chars) + " …[truncated]" : e.text;
  return Json{{"score", h.score},
              {"text", text},
              {"table_name", e.table_name},
              {"column_name", e.column_name},
              {"primary_key", e.primary_key},
              {"pdf_id", e.pdf_id},
              {"page_number", e.page_number}};
}

std::string empty_reason(const Library& lib, const CollectionQuery& q) {
  if (lib.visible.empty()) return "the paper library is empty; add PDFs with `bioagent papers add FILE`";
  if (!q.filter.empty()) return "no entry of " + q.table_name + "." + q.column_name + " passes the filter";
  return "no entry of " + q.table_name + "." + q.column_name + " matches the query in " + q.collection_name;
}

Result<Json> evidence_collection(const Json& args, ToolContext& ctx, int limit) {
  std::string dir = ctx.option("cache_dir");
  if (dir.empty()) return unsupported("no cache folder is configured, so there is no evidence store");
  if (!args.value("filter", std::string()).empty())
    return invalid_argument("the literature_evidence collection takes no filter (it has no pdf_id/page fields)");
  auto store = EvidenceStore::open(dir + "/evidence.sqlite");
  if (!store) return store.status();
  auto r = (*store)->search(args.at("query").get<std::string>(), static_cast<size_t>(limit),
                            std::chrono::steady_clock::now());
  if (!r) return r.status();
  Json results = Json::array();
  for (auto& e : *r) results.push_back(e.to_json());
  Json out = {{"collection_name", kEvidence}, {"query", args["query"]}, {"results", results}};
  if (r->empty())
    out["message"] =
        "the evidence store holds nothing matching; search_literature with "
        "auto_ingest_to_rag collects evidence";
  return out;
}

}  // namespace

Result<Json> vectorstore_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  int limit = args.value("limit", 5);
  if (args.at("collection_name") == kEvidence) return evidence_collection(args, ctx, limit);
  auto lib = open_library(ctx);
  if (!lib) return lib.status();
  CollectionQuery q{args.at("query"),       args.at("collection_name"),          args.at("table_name"),
                    args.at("column_name"), args.value("filter", std::string()), limit};
  auto hits = lib->search(q);
  if (!hits) return hits.status();
  Json results = Json::array();
  for (auto& h : *hits) results.push_back(hit_json(h, spec.settings.value("max_text_chars", size_t(2000))));
  std::string applied = "table_name == '" + q.table_name + "' and column_name == '" + q.column_name + "'";
  if (!q.filter.empty()) applied += " and (" + q.filter + ")";
  Json out = {{"collection_name", q.collection_name}, {"query", q.query}, {"filter", applied}, {"results", results}};
  if (q.limit > 100) out["note"] = "limit was capped at 100";
  if (hits->empty()) out["message"] = empty_reason(*lib, q);
  return out;
}

// Hybrid retrieval over chunks.text_content: BM25 and the best configured dense
// collection, fused by reciprocal rank (score = Σ 1/(60 + rank)).
Result<Json> classic_retrieve_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  auto lib = open_library(ctx);
  if (!lib) return lib.status();
  int limit = std::min(args.value("limit", 5), 100);
  auto names = lib->collections->names();  // BM25 first, then hash, then a configured model
  std::vector<std::string> used = {names.front(), names.back()};
  const double k = spec.settings.value("rrf_k", 60.0);
  std::map<std::string, std::pair<double, SearchHit>> fused;  // by primary key
  std::map<std::string, Json> ranks;
  for (auto& coll : used) {
    CollectionQuery q{args.at("query"), coll, "chunks", "text_content", "", std::max(limit * 4, 20)};
    auto hits = lib->search(q);
    if (!hits) return hits.status();
    for (size_t r = 0; r < hits->size(); ++r) {
      const SearchHit& h = (*hits)[r];
      auto& slot = fused.try_emplace(h.entry.primary_key, 0.0, h).first->second;
      slot.first += 1.0 / (k + double(r + 1));
      ranks[h.entry.primary_key][coll] = r + 1;
    }
  }
  std::vector<std::pair<double, SearchHit>> all;
  for (auto& [pk, v] : fused) all.push_back(v);
  std::stable_sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.first > b.first; });
  Json results = Json::array();
  for (size_t i = 0; i < all.size() && i < size_t(limit); ++i) {
    SearchHit h = all[i].second;
    h.score = all[i].first;
    Json j = hit_json(h, spec.settings.value("max_text_chars", size_t(2000)));
    j["ranks"] = ranks[h.entry.primary_key];
    results.push_back(j);
  }
  Json out = {
      {"query", args["query"]}, {"collections", used}, {"fusion", "reciprocal rank, k = 60"}, {"results", results}};
  if (results.empty())
    out["message"] = lib->visible.empty() ? "the paper library is empty; add PDFs with `bioagent papers add FILE`"
                                          : "no chunk matches the query";
  return out;
}

Result<Json> generate_answer_tool(const ToolSpec&, const Json& args, ToolContext&) {
  return Json{{"answer", args.at("answer")}, {"final", true}};
}

Result<Json> list_collections_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto lib = open_library(ctx);
  if (!lib) return lib.status();
  Json d = lib->collections->describe();
  d["collections"].push_back({{"collection_name", kEvidence},
                              {"modality", "text"},
                              {"embed_type", "fts5"},
                              {"engine", "SQLite FTS5 over the literature evidence store (search_literature results)"},
                              {"table_name", "evidence"},
                              {"column_name", "content"}});
  d["papers"] = lib->visible.size();
  return d;
}

}  // namespace bioagent::tools
