// Seed 001's retrieval actions over the search collections: RetrieveFromVectorstore,
// ClassicRetrieve (BM25 with fields and dictionary expansion, and a dense vote, by page), GenerateAnswer, and
// list_vector_collections. The literature evidence store is a collection too
// ("literature_evidence"): what search_literature collected, searched offline.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/collections.h"
#include "bioagent/papers.h"
#include "bioagent/search.h"
#include "papers/duckdb_conn.h"
#include "papers/identifier_votes.h"
#include "papers/page_cues.h"
#include "papers/paper_tool_types.h"
#include "papers/proximity.h"
#include "papers/question_cues.h"

namespace bioagent::tools {
namespace {

constexpr const char* kEvidence = "literature_evidence";

// The encodable (table, column) pairs of the paper schema: what a search may name.
const std::set<std::pair<std::string, std::string>>& encodable_pairs() {
  static const auto kPairs = [] {
    std::set<std::pair<std::string, std::string>> out;
    const Json schema = paper_database_schema();
    for (auto& t : schema["tables"])
      for (auto& c : t["columns"])
        if (c.contains("encodable"))
          out.emplace(t["table_name"].get<std::string>(), c["column_name"].get<std::string>());
    return out;
  }();
  return kPairs;
}

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
  auto c = Collections::open(collections_dir_for(db_path), false, std::move(*dense), encodable_pairs());
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

constexpr int kMaxResults = 100;  // what one collection search returns at most

// One page of one paper, with the votes of each collection for it.
struct PageVotes {
  double lexical = 0;       // BM25: best chunk + a share of the second + matched fields
  double dense = 0;         // best dense similarity on the page, relative to the query's best
  double dense_weight = 0;  // what the dense vote counts for (0 for a collection that is not semantic)
  double best_chunk = -1, second_chunk = 0;
  int chunks = 0;
  SearchHit shown;  // the best chunk (or field) of the page: the text returned
  Json ranks = Json::object();
  Json fields = Json::array();
};

// What a model's dense vote counts for, and where that number comes from:
// the embed_weight option (BIOAGENT_EMBED_WEIGHT) when set, else the weight
// `bench/retrieval_eval.sh --tune` measured for this model on the labelled dev
// set (the fusion_weights file), else the tool's setting, which nobody measured.
struct DenseWeight {
  double value = 0.5;
  std::string source;
};

DenseWeight neural_weight_for(const ToolSpec& spec, const ToolContext& ctx) {
  const std::string model = ctx.option("embed_model");
  std::string refused;  // a malformed given weight, said before the weight used instead
  if (const std::string given = ctx.option("embed_weight"); !given.empty()) {
    char* end = nullptr;
    double v = std::strtod(given.c_str(), &end);
    if (end && *end == '\0' && v >= 0 && v <= 10) return {v, "given by BIOAGENT_EMBED_WEIGHT"};
    refused = "BIOAGENT_EMBED_WEIGHT '" + given + "' is not a number in [0, 10], ignored; ";
  }
  if (const std::string file = ctx.option("fusion_weights"); !file.empty() && !model.empty()) {
    std::ifstream in(file);
    Json j = in ? Json::parse(in, nullptr, false) : Json();
    const Json* m =
        j.is_object() && j.contains("models") && j["models"].contains(model) ? &j["models"][model] : nullptr;
    if (m && m->is_object() && m->contains("weight") && (*m)["weight"].is_number()) {
      const int n = m->value("questions", 0);
      return {(*m)["weight"].get<double>(), refused + "measured for " + model + " on " + std::to_string(n) +
                                                " labelled questions (MRR " +
                                                std::to_string(m->value("mrr", 0.0)).substr(0, 5) + ")"};
    }
  }
  return {spec.settings.value("neural_dense_weight", 0.5), refused + "not measured for " +
                                                               (model.empty() ? std::string("this model") : model) +
                                                               " (bench/retrieval_eval.sh --tune measures it)"};
}

struct FusionSettings {
  double caption_weight = 0.15;            // a matching caption, heading or table counts this much of a top chunk
  double second_chunk_weight = 0.1;        // a page's second matching chunk adds this share of its score
  double proximity_weight = 0;             // the question's words close together in the best chunk add this much
  double phrase_weight = 1.0;              // a best chunk holding every phrase the question quotes adds this much
  DenseWeight neural;                      // a model's dense vote
  double reference_density = 1.0;          // chunks this dense in citation marks are reference lists…
  double reference_factor = 0.5;           // …and count this much, unless the question asks for references
  double front_matter_factor = 1.5;        // questions about authors and affiliations favour first pages
  double first_page_factor = 1.0;          // …and other questions weigh a first page (the abstract) this much
  double front_matter_chunk_factor = 1.0;  // …and its front matter's chunks (title, authors, abstract) this much
  double caption_question_factor = 3;      // a question naming a figure or table weighs captions this much more
  double caption_label_weight = 0;         // a page whose caption carries the label asked ("Figure 1") gains this
  double other_paper_factor = 1.0;         // a question naming a paper ("the RAG paper") weighs other papers this much
  double named_paper_margin = 2.0;         // …when the words name one paper this many times more than the next
  double definition_weight = 0;            // a page defining the term a "what is X" question asks about gains this
  double acronym_weight = 0;               // a page spelling out the acronym asked about ("long form (DDT)") gains this
  double number_weight = 0;  // for a question asking a quantity, a best chunk with a number by its words gains this
  double page_weight = 0;    // BM25 over the page's whole text (words spread over its chunks) adds this much
  double unit_factor = 0;    // a table's text or a caption competes with the chunks as the page's best, at this much
  double identifier_weight = 0;    // a page printing the identifiers the question names (LGALS1, GO:0035370) gains this
  double within_paper_weight = 0;  // a leading paper's pages ranked by BM25 among its own pages add this much
};

struct Fused {
  std::vector<PageVotes> pages;  // best first
  std::vector<std::string> used, expansions;
  std::string how;
};

// BM25 over captions, headings, table text and the title (a field of the
// paper's first page): each match adds to its page's lexical vote, relative to
// the field's best match and scaled to the chunks' best.
void add_field_votes(const Library& lib, const std::string& query, const std::string& lexical_query, double top,
                     const FusionSettings& fs, std::map<PageKey, PageVotes>& pages) {
  const std::string bm25 = lib.collections->names().front();
  static const std::pair<const char*, const char*> kFields[] = {{"images", "image_caption"},
                                                                {"tables", "table_caption"},
                                                                {"tables", "table_content"},
                                                                {"sections", "section_title"},
                                                                {"metadata", "title"}};
  const bool caption_wanted = asks_for_caption(query);
  const bool front_matter_wanted = asks_for_front_matter(query);
  for (auto& [table, column] : kFields) {
    if (std::string_view(table) == "metadata" && !front_matter_wanted)
      continue;  // the title speaks for page 1 only then
    const bool caption = std::string_view(column).find("caption") != std::string_view::npos;
    const double weight = fs.caption_weight * (caption && caption_wanted ? fs.caption_question_factor : 1.0);
    auto hits = lib.search({lexical_query, bm25, table, column, "", 20});
    if (!hits) continue;  // a library without that field
    if (hits->empty()) continue;
    const double field_top = std::max(1e-9, hits->front().score);
    for (auto h : *hits) {
      if (std::string_view(table) == "metadata") h.entry.page_number = 1;
      if (h.entry.page_number < 1) continue;
      PageVotes& p = pages[{h.entry.pdf_id, h.entry.page_number}];
      std::string field = std::string(table) + "." + column;
      if (p.best_chunk < 0 && p.fields.empty()) p.shown = h;  // nothing else to show for the page
      p.lexical += weight * (h.score / field_top) * std::min(1.0, field_top / top);
      p.fields.push_back(field);
    }
  }
}

// The paper a question names ("the RAG paper"): the one whose chunks and title
// match the naming words best, by `margin` times the next; empty when none does.
std::string named_paper_id(const Library& lib, const std::string& query, double margin) {
  const std::string words = named_paper(query);
  if (words.empty()) return "";
  const std::string bm25 = lib.collections->names().front();
  std::map<std::string, double> by_paper;
  for (auto [table, column] : {std::pair{"chunks", "text_content"}, std::pair{"metadata", "title"}}) {
    auto hits = lib.search({words, bm25, table, column, "", kMaxResults});
    if (!hits || hits->empty()) continue;
    const double top = std::max(1e-9, hits->front().score);
    for (auto& h : *hits) by_paper[h.entry.pdf_id] += h.score / top;
  }
  std::string best;
  double first = 0, second = 0;
  for (auto& [id, s] : by_paper) {
    if (s > first)
      second = first, first = s, best = id;
    else
      second = std::max(second, s);
  }
  return first > 0 && first >= margin * second ? best : "";
}

// Pages whose figure or table caption carries the label the question names
// ("Figure 1", "表2"), with the caption as the text to show.
std::vector<std::pair<PageKey, SearchHit>> labelled_caption_pages(const Library& lib, const std::string& query) {
  std::vector<std::pair<PageKey, SearchHit>> out;
  const auto label = asked_caption_label(query);
  if (!label || !lib.db) return out;
  const char* table = label->table ? "tables" : "images";
  const char* column = label->table ? "table_caption" : "image_caption";
  const std::string id = label->table ? "table_id" : "image_id";
  auto r =
      lib.db->query(std::string("SELECT c.") + id + "::VARCHAR, c.ref_paper_id::VARCHAR, p.page_number, c." + column +
                        " FROM " + table + " c JOIN pages p ON p.page_id = c.ref_page_id WHERE c." + column + " <> ''",
                    {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
  if (!r) return out;  // a library without captions
  for (auto& row : r->rows) {
    const std::string caption = row[3].get<std::string>();
    const std::string paper = row[1].get<std::string>();
    if (!lib.visible.contains(paper) || !caption_has_label(caption, *label)) continue;
    SearchHit h;
    h.entry.text = caption;
    h.entry.table_name = table;
    h.entry.column_name = column;
    h.entry.primary_key = row[0].get<std::string>();
    h.entry.pdf_id = paper;
    h.entry.page_number = int(row[2].get<int64_t>());
    out.push_back({{paper, h.entry.page_number}, h});
  }
  return out;
}

// Tables and captions as retrievable units of their own: a table's text or a figure or table
// caption matching the question better than any chunk of its page is the page's best unit
// (scores relative to the chunks' best, times unit_factor), and the text shown for it.
void add_unit_candidates(const Library& lib, const std::string& lexical_query, double top, const FusionSettings& fs,
                         std::map<PageKey, PageVotes>& pages) {
  if (fs.unit_factor <= 0) return;
  const std::string bm25 = lib.collections->names().front();
  static const std::pair<const char*, const char*> kUnits[] = {
      {"tables", "table_content"}, {"tables", "table_caption"}, {"images", "image_caption"}};
  for (auto& [table, column] : kUnits) {
    auto hits = lib.search({lexical_query, bm25, table, column, "", 20});
    if (!hits) continue;  // a library without that field
    for (auto& h : *hits) {
      if (h.entry.page_number < 1) continue;
      PageVotes& p = pages[{h.entry.pdf_id, h.entry.page_number}];
      const double s = fs.unit_factor * h.score / top;
      if (s <= p.best_chunk) {
        p.second_chunk = std::max(p.second_chunk, s);
        continue;
      }
      p.second_chunk = std::max(0.0, p.best_chunk);
      p.best_chunk = s;
      p.shown = h;
    }
  }
}

// Page-level evidence: BM25 over each page's whole text, relative to the best page, so a
// page holding the question's words across several chunks (a table and the sentence
// that reads it) gains over a page where one chunk happens to match.
void add_page_votes(const Library& lib, const std::string& lexical_query, const FusionSettings& fs,
                    std::map<PageKey, PageVotes>& pages) {
  if (fs.page_weight <= 0) return;
  const std::string bm25 = lib.collections->names().front();
  auto hits = lib.search({lexical_query, bm25, "pages", "page_content", "", kMaxResults});
  if (!hits || hits->empty()) return;
  const double page_top = std::max(1e-9, hits->front().score);
  for (auto& h : *hits) {
    if (h.entry.page_number < 1) continue;
    auto it = pages.find({h.entry.pdf_id, h.entry.page_number});
    if (it == pages.end()) continue;  // a page no chunk or unit matched: nothing to show for it
    it->second.lexical += fs.page_weight * h.score / page_top;
    it->second.fields.push_back("pages.page_content");
  }
}

// Each page's lexical vote from its chunks: the best, a share of the second, and
// what the best chunk holds (the question's words close together, the phrases it
// quotes, a measured number by its words when it asks a quantity).
void score_best_chunks(const std::string& query, const std::string& lexical_query, const FusionSettings& fs,
                       std::map<PageKey, PageVotes>& pages) {
  const std::vector<std::string> phrases = quoted_phrases(query);
  const bool quantity_wanted = fs.number_weight > 0 && asks_for_quantity(query);
  for (auto& [k, p] : pages) {
    p.lexical = p.best_chunk + fs.second_chunk_weight * p.second_chunk;
    if (p.best_chunk <= 0) continue;
    if (fs.proximity_weight > 0) p.lexical += fs.proximity_weight * proximity(lexical_query, p.shown.entry.text);
    size_t held = 0;
    for (auto& phrase : phrases) held += holds_phrase(p.shown.entry.text, phrase);
    if (!phrases.empty()) p.lexical += fs.phrase_weight * double(held) / double(phrases.size());
    const bool reference_list = reference_density(p.shown.entry.text) >= fs.reference_density;
    if (quantity_wanted && !reference_list && number_near_question_words(lexical_query, p.shown.entry.text))
      p.lexical += fs.number_weight;
  }
}

// The votes of what the question says about where its answer is: a caption
// carrying the figure or table label it names, a page defining the term it asks about.
void add_cue_votes(const Library& lib, const std::string& query, const FusionSettings& fs,
                   std::map<PageKey, PageVotes>& pages) {
  if (fs.caption_label_weight > 0)
    for (auto& [key, caption] : labelled_caption_pages(lib, query)) {
      PageVotes& p = pages[key];
      if (p.best_chunk < 0 && p.fields.empty()) p.shown = caption;
      p.lexical += fs.caption_label_weight;
      p.fields.push_back(caption.entry.table_name + "." + caption.entry.column_name + " (label)");
    }
  if (fs.identifier_weight > 0 && lib.db)
    for (auto& [key, share] : identifier_pages(*lib.db, lib.visible, question_identifiers(query)))
      if (auto it = pages.find(key); it != pages.end()) {
        it->second.lexical += fs.identifier_weight * share;
        it->second.fields.push_back("identifier");
      }
  if (!lib.db) return;
  for (auto& [key, weight] : defining_pages(*lib.db, query, fs.definition_weight, fs.acronym_weight))
    if (auto it = pages.find(key); it != pages.end() && it->second.best_chunk > 0 && weight > 0) {
      it->second.lexical += weight;
      it->second.fields.push_back("definition");
    }
}

// Within-paper evidence: the leading papers (at most three, each with a best page at least half the
// best page's) have their pages ranked among their own (pages_ranked_within), scaled by the paper's
// share of the best page's vote.
void add_within_paper_votes(const Library& lib, const std::string& lexical_query, const FusionSettings& fs,
                            std::map<PageKey, PageVotes>& pages) {
  if (fs.within_paper_weight <= 0 || !lib.db) return;
  std::map<std::string, double> paper_best;
  for (auto& [k, p] : pages) paper_best[k.first] = std::max(paper_best[k.first], p.lexical);
  std::vector<std::pair<double, std::string>> ranked;
  for (auto& [id, s] : paper_best) ranked.push_back({s, id});
  std::sort(ranked.rbegin(), ranked.rend());
  if (ranked.empty() || ranked.front().first <= 0) return;
  const double top = ranked.front().first;
  for (size_t i = 0; i < ranked.size() && i < 3 && ranked[i].first >= 0.5 * top; ++i)
    for (auto& [page, share] : pages_ranked_within(*lib.db, ranked[i].second, lexical_query))
      if (auto it = pages.find({ranked[i].second, page}); it != pages.end()) {  // else nothing to show for it
        it->second.lexical += fs.within_paper_weight * (ranked[i].first / top) * share;
        it->second.fields.push_back("within paper");
      }
}

// How the pages were ranked, as a result's "fusion" says it.
std::string fusion_description(const FusionSettings& fs, const std::string& dense_kind, const std::string& dense) {
  return dense_kind == "hash"
             ? "per page: BM25 (best chunk + " + std::to_string(fs.second_chunk_weight).substr(0, 4) +
                   " x second, captions/headings/tables as fields); the hash n-gram collection is not semantic, "
                   "so it only orders pages BM25 ties on or did not find"
             : "per page: BM25 (best chunk, second chunk, fields) + " + std::to_string(fs.neural.value).substr(0, 4) +
                   " x " + dense + " similarity (weight " + fs.neural.source + ")";
}

// The query as the lexical searches read it: with its dictionary expansions (a Chinese word's English
// senses the library writes are the ones searched by); and within a paper without the words that name
// the study, which are on every one of its pages.
struct PageQueries {
  std::vector<std::string> expansions;
  std::string lexical, within_paper;
};
PageQueries page_queries(const Library& lib, const std::string& query) {
  const auto known = [&](const std::string& gloss) { return lib.collections->holds_words(gloss); };
  PageQueries q{query_expansions(query, known), query, ""};
  for (auto& e : q.expansions) q.lexical += " " + e;
  const std::string asking = without_study_naming(query);
  q.within_paper = asking == query ? q.lexical : asking;
  if (asking != query)
    for (auto& e : query_expansions(asking, known)) q.within_paper += " " + e;
  return q;
}

// BM25 over the chunks (with the query's dictionary expansions), BM25 over
// captions, headings and table text as fields of their page, and one dense
// collection, aggregated by page. Scores are relative to each search's best,
// so votes are comparable. A dense collection that is not semantic (the hash
// n-gram one) never outvotes BM25: it orders only the pages BM25 ties on or
// did not find. A model's collection adds its weighted vote.
Result<Fused> fuse_pages(const Library& lib, const std::string& query, const FusionSettings& fs) {
  Fused out;
  const PageQueries queries = page_queries(lib, query);
  out.expansions = queries.expansions;
  const std::string& lexical_query = queries.lexical;
  auto names = lib.collections->names();  // BM25 first, then hash, then a configured model
  const std::string bm25 = names.front(), dense = names.back();
  const std::string dense_kind = lib.collections->embed_type(dense);
  const double dense_weight = dense_kind == "hash" ? 0.0 : fs.neural.value;
  std::map<PageKey, PageVotes> pages;
  auto page_of = [&](const SearchHit& h) -> PageVotes& { return pages[{h.entry.pdf_id, h.entry.page_number}]; };

  auto chunks = lib.search({lexical_query, bm25, "chunks", "text_content", "", kMaxResults});
  if (!chunks) return chunks.status();
  const double top = chunks->empty() ? 1.0 : std::max(1e-9, chunks->front().score);
  const bool references_wanted = asks_for_references(query);
  const bool front_matter = asks_for_front_matter(query);
  // The front matter is a field of its own: a question about something else weighs its chunks less.
  const std::set<std::string> front_chunks = !front_matter && fs.front_matter_chunk_factor != 1.0 && lib.db
                                                 ? front_matter_chunk_ids(*lib.db)
                                                 : std::set<std::string>();
  for (size_t r = 0; r < chunks->size(); ++r) {
    const SearchHit& h = (*chunks)[r];
    PageVotes& p = page_of(h);
    double s = h.score / top;
    if (!references_wanted && reference_density(h.entry.text) >= fs.reference_density) s *= fs.reference_factor;
    if (front_chunks.contains(h.entry.primary_key)) s *= fs.front_matter_chunk_factor;
    ++p.chunks;
    if (s > p.best_chunk) {
      p.second_chunk = std::max(0.0, p.best_chunk);
      p.best_chunk = s;
      p.shown = h;
      p.ranks[bm25] = r + 1;
    } else {
      p.second_chunk = std::max(p.second_chunk, s);
    }
  }
  add_unit_candidates(lib, lexical_query, top, fs, pages);
  score_best_chunks(query, lexical_query, fs, pages);

  add_field_votes(lib, query, lexical_query, top, fs, pages);
  add_page_votes(lib, lexical_query, fs, pages);
  add_cue_votes(lib, query, fs, pages);
  add_within_paper_votes(lib, queries.within_paper, fs, pages);

  out.used = {bm25};
  if (dense != bm25) {
    out.used.push_back(dense);
    auto hits = lib.search({query, dense, "chunks", "text_content", "", kMaxResults});
    if (!hits) return hits.status();
    const double dtop = hits->empty() ? 1.0 : std::max(1e-9, hits->front().score);
    for (size_t r = 0; r < hits->size(); ++r) {
      const SearchHit& h = (*hits)[r];
      PageVotes& p = page_of(h);
      double s = h.score / dtop;
      if (s > p.dense) p.dense = s;
      if (!p.ranks.contains(dense)) p.ranks[dense] = r + 1;
      if (p.best_chunk < 0 && p.fields.empty() && p.shown.entry.primary_key.empty()) p.shown = h;
    }
  }
  const std::string named = fs.other_paper_factor < 1 ? named_paper_id(lib, query, fs.named_paper_margin) : "";
  for (auto& [k, p] : pages) {
    if (k.second == 1) p.lexical *= front_matter ? fs.front_matter_factor : fs.first_page_factor;
    if (!named.empty() && k.first != named) p.lexical *= fs.other_paper_factor, p.dense *= fs.other_paper_factor;
    p.dense_weight = dense_weight;
    if (p.best_chunk < 0) p.best_chunk = 0;
    out.pages.push_back(std::move(p));
  }
  std::stable_sort(out.pages.begin(), out.pages.end(), [](const PageVotes& a, const PageVotes& b) {
    double sa = a.lexical + a.dense_weight * a.dense, sb = b.lexical + b.dense_weight * b.dense;
    if (sa != sb) return sa > sb;
    return a.dense > b.dense;
  });
  out.how = fusion_description(fs, dense_kind, dense);
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

// Hybrid retrieval, one result per page (see fuse_pages).
Result<Json> classic_retrieve_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  auto lib = open_library(ctx);
  if (!lib) return lib.status();
  const int asked = args.value("limit", 5);
  const size_t limit = static_cast<size_t>(std::min(asked, kMaxResults));
  const std::string query = args.at("query");
  FusionSettings fs;
  fs.caption_weight = spec.settings.value("field_weight", fs.caption_weight);
  fs.second_chunk_weight = spec.settings.value("second_chunk_weight", fs.second_chunk_weight);
  fs.proximity_weight = spec.settings.value("proximity_weight", fs.proximity_weight);
  fs.phrase_weight = spec.settings.value("phrase_weight", fs.phrase_weight);
  fs.neural = neural_weight_for(spec, ctx);
  fs.reference_density = spec.settings.value("reference_list_density", fs.reference_density);
  fs.reference_factor = spec.settings.value("reference_list_factor", fs.reference_factor);
  fs.first_page_factor = spec.settings.value("first_page_factor", fs.first_page_factor);
  fs.front_matter_factor = spec.settings.value("front_matter_factor", fs.front_matter_factor);
  fs.front_matter_chunk_factor = spec.settings.value("front_matter_chunk_factor", fs.front_matter_chunk_factor);
  fs.caption_question_factor = spec.settings.value("caption_question_factor", fs.caption_question_factor);
  fs.caption_label_weight = spec.settings.value("caption_label_weight", fs.caption_label_weight);
  fs.other_paper_factor = spec.settings.value("other_paper_factor", fs.other_paper_factor);
  fs.named_paper_margin = spec.settings.value("named_paper_margin", fs.named_paper_margin);
  fs.definition_weight = spec.settings.value("definition_weight", fs.definition_weight);
  fs.acronym_weight = spec.settings.value("acronym_weight", fs.acronym_weight);
  fs.number_weight = spec.settings.value("number_weight", fs.number_weight);
  fs.page_weight = spec.settings.value("page_weight", fs.page_weight);
  fs.unit_factor = spec.settings.value("unit_factor", fs.unit_factor);
  fs.identifier_weight = spec.settings.value("identifier_weight", fs.identifier_weight);
  fs.within_paper_weight = spec.settings.value("within_paper_weight", fs.within_paper_weight);
  auto fused = fuse_pages(*lib, query, fs);
  if (!fused) return fused.status();
  const size_t max_chars = spec.settings.value("max_text_chars", size_t(2000));
  Json results = Json::array();
  for (size_t i = 0; i < fused->pages.size() && i < limit; ++i) {
    const PageVotes& p = fused->pages[i];
    SearchHit h = p.shown;
    h.score = p.lexical + p.dense_weight * p.dense;
    Json j = hit_json(h, max_chars);
    j["ranks"] = p.ranks;
    j["page_chunks"] = p.chunks;
    if (!p.fields.empty()) j["fields"] = p.fields;
    results.push_back(std::move(j));
  }
  Json out = {{"query", query}, {"collections", fused->used}, {"fusion", fused->how}, {"results", results}};
  if (!fused->expansions.empty()) out["query_expansions"] = fused->expansions;
  if (asked > kMaxResults)
    out["note"] = "limit was capped at " + std::to_string(kMaxResults) + " (asked for " + std::to_string(asked) + ")";
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
