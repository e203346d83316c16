// Search collections: BM25 (Xapian) and dense (FAISS) over synthetic entries,
// filters applied before ranking, visibility, persistence, bad input; and on
// the real PDFs, a killed ingestion that leaves no half paper.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bioagent/collections.h"
#include "bioagent/papers.h"
#include "index/dense_index.h"
#include "index/entry_store.h"
#include "replay_server.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<IndexEntry> paper(const std::string& id, const std::vector<std::string>& chunks) {
  std::vector<IndexEntry> out;
  for (size_t i = 0; i < chunks.size(); ++i)
    out.push_back({"chunks", "text_content", id + "-c" + std::to_string(i), id, int(i) + 1, chunks[i]});
  out.push_back({"metadata", "title", id, id, -1, "Title of " + id});
  return out;
}

std::unique_ptr<Collections> open_rw(const fs::path& dir) {
  auto c = Collections::open(dir.string(), true, {make_hash_embedder(256)});
  EXPECT_TRUE(c.is_ok()) << c.status().to_string();
  return std::move(c).value();
}

CollectionQuery chunks_query(const std::string& coll, const std::string& text, const std::string& filter = "",
                             int limit = 5) {
  return {text, coll, "chunks", "text_content", filter, limit};
}

const std::set<std::string> kBoth = {"A", "B"};

void fill(Collections& c) {
  ASSERT_TRUE(c.add_paper("A", paper("A", {"SPL transcription factors bind the GTAC core of SBP boxes",
                                           "MAFFT aligns protein sequences quickly",
                                           "phylogenetic trees were inferred with IQ-TREE"}))
                  .is_ok());
  ASSERT_TRUE(c.add_paper("B", paper("B", {"SBP box genes in rice and maize", "weather in the alps",
                                           "IQ-TREE model finder selected JTT"}))
                  .is_ok());
}

}  // namespace

TEST(HashEmbedder, UnitVectorsAndSimilarity) {
  auto e = make_hash_embedder(256);
  EXPECT_EQ(e->collection_name(), "text_hash_ngram_256");
  auto v = e->embed({"gene family expansion in plants", "gene family expansion in plant genomes", "stock prices"});
  ASSERT_TRUE(v.is_ok());
  auto dot = [&](size_t a, size_t b) {
    double s = 0;
    for (size_t i = 0; i < 256; ++i) s += (*v)[a][i] * (*v)[b][i];
    return s;
  };
  EXPECT_NEAR(dot(0, 0), 1.0, 1e-5);
  EXPECT_GT(dot(0, 1), dot(0, 2) + 0.3);
  auto again = e->embed({"gene family expansion in plants"});
  EXPECT_EQ((*again)[0], (*v)[0]) << "deterministic";
  auto empty = e->embed({""});
  ASSERT_TRUE(empty.is_ok());
  for (float x : (*empty)[0]) EXPECT_EQ(x, 0.0f);
}

TEST(Collections, Bm25FindsAndFiltersBeforeRanking) {
  TempDir dir;
  auto c = open_rw(dir.path());
  fill(*c);
  auto r = c->search(chunks_query("text_bm25_en", "SBP box transcription"), kBoth);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_GE(r->size(), 2u);
  EXPECT_EQ((*r)[0].entry.primary_key, "A-c0");
  EXPECT_EQ((*r)[0].entry.page_number, 1);
  EXPECT_EQ((*r)[0].entry.table_name, "chunks");
  // limit 1 with a filter that excludes the best hit still returns the best allowed one
  auto f = c->search(chunks_query("text_bm25_en", "SBP box transcription", "pdf_id == 'B'", 1), kBoth);
  ASSERT_TRUE(f.is_ok());
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ((*f)[0].entry.primary_key, "B-c0");
  auto pages =
      c->search(chunks_query("text_bm25_en", "IQ-TREE", "page_number in [3] and primary_key like 'B%'"), kBoth);
  ASSERT_TRUE(pages.is_ok());
  ASSERT_EQ(pages->size(), 1u);
  EXPECT_EQ((*pages)[0].entry.primary_key, "B-c2");
  // table/column restriction: the title is not a chunk
  auto titles = c->search({"Title", "text_bm25_en", "metadata", "title", "", 5}, kBoth);
  ASSERT_TRUE(titles.is_ok());
  EXPECT_EQ(titles->size(), 2u);
  for (auto& h : *titles) EXPECT_EQ(h.entry.column_name, "title");
}

TEST(Collections, Bm25ReturnsOnlyVisiblePapersWithAndWithoutAFilter) {
  TempDir dir;
  auto c = open_rw(dir.path());
  fill(*c);
  // "SBP box" ranks A-c0 first when both are visible; with only B visible, A never shows.
  auto only_b = c->search(chunks_query("text_bm25_en", "SBP box transcription"), {"B"});
  ASSERT_TRUE(only_b.is_ok()) << only_b.status().to_string();
  ASSERT_FALSE(only_b->empty());
  for (auto& h : *only_b) EXPECT_EQ(h.entry.pdf_id, "B");
  auto filtered = c->search(chunks_query("text_bm25_en", "IQ-TREE SBP", "page_number in [1, 3]"), {"A"});
  ASSERT_TRUE(filtered.is_ok());
  ASSERT_EQ(filtered->size(), 2u);
  for (auto& h : *filtered) EXPECT_EQ(h.entry.pdf_id, "A");
  auto none = c->search(chunks_query("text_bm25_en", "SBP box transcription"), {});
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->empty()) << "no visible paper: nothing matches";
  auto unknown = c->search(chunks_query("text_bm25_en", "SBP box transcription"), {"not-indexed"});
  ASSERT_TRUE(unknown.is_ok());
  EXPECT_TRUE(unknown->empty());
}

TEST(EntryStore, WriterSetsXapianFlushThresholdUnlessTheUserDid) {
  TempDir dir;
  const char* before = std::getenv("XAPIAN_FLUSH_THRESHOLD");
  std::string saved = before ? before : "";
  unsetenv("XAPIAN_FLUSH_THRESHOLD");
  ASSERT_TRUE(EntryStore::open((dir.path() / "a").string(), true).is_ok());
  ASSERT_NE(std::getenv("XAPIAN_FLUSH_THRESHOLD"), nullptr);
  EXPECT_STREQ(std::getenv("XAPIAN_FLUSH_THRESHOLD"), EntryStore::kDefaultFlushThreshold);
  setenv("XAPIAN_FLUSH_THRESHOLD", "123", 1);
  ASSERT_TRUE(EntryStore::open((dir.path() / "b").string(), true).is_ok());
  EXPECT_STREQ(std::getenv("XAPIAN_FLUSH_THRESHOLD"), "123") << "the user's setting wins";
  if (before)
    setenv("XAPIAN_FLUSH_THRESHOLD", saved.c_str(), 1);
  else
    unsetenv("XAPIAN_FLUSH_THRESHOLD");
}

TEST(EntryStore, LargeBatchesAreAnalysedOnTwoThreadsIntoTheirOwnDocuments) {
  std::vector<IndexEntry> entries;
  for (int i = 0; i < 9000; ++i)  // above the two-thread threshold
    entries.push_back({"chunks", "text_content", "k" + std::to_string(i), "P", i, "shared word" + std::to_string(i)});
  entries[4500].text = "  ";  // no text: no document, in either half
  PreparedEntries out;
  EntryStore::make_documents(entries, out);
  ASSERT_EQ(out.docs.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 4500) {
      EXPECT_FALSE(out.has_text[i]);
      continue;
    }
    ASSERT_TRUE(out.has_text[i]) << i;
    std::set<std::string> terms(out.docs[i].termlist_begin(), out.docs[i].termlist_end());
    std::set<std::string> want = {"XKchunks/text_content", "XPP", "share", "word" + std::to_string(i)};
    ASSERT_EQ(terms, want) << "entry " << i;
  }
  TempDir dir;
  auto store = EntryStore::open((dir.path() / "e").string(), true);
  ASSERT_TRUE(store.is_ok());
  auto ids = (*store)->replace_paper("P", out);
  ASSERT_TRUE(ids.is_ok()) << ids.status().to_string();
  for (size_t i : {size_t(0), size_t(4499), size_t(4501), size_t(8999)}) {
    auto e = (*store)->entry((*ids)[i]);
    ASSERT_TRUE(e.is_ok());
    EXPECT_EQ(e->primary_key, "k" + std::to_string(i));
    EXPECT_EQ(e->page_number, int(i));
  }
}

TEST(EntryStore, ReadsAndFiltersDocumentsWrittenWithOneValueSlotPerField) {
  TempDir dir;
  const std::string path = (dir.path() / "e").string();
  {  // the layout of stores written before the fields were packed into one value
    Xapian::WritableDatabase db(path, Xapian::DB_CREATE_OR_OPEN);
    Xapian::Document d;
    d.add_value(0, "OLD");
    d.add_value(1, "-1");
    d.add_value(2, "chunks");
    d.add_value(3, "text_content");
    d.add_value(4, "OLD-c0");
    d.add_boolean_term("XPOLD");
    d.add_boolean_term("XKchunks/text_content");
    d.add_term("legaci");
    db.add_document(d);
    db.commit();
  }
  auto store = EntryStore::open(path, true);
  ASSERT_TRUE(store.is_ok());
  PreparedEntries fresh;
  EntryStore::make_documents({{"chunks", "text_content", "NEW-c0", "NEW", 7, "legacy text"}}, fresh);
  ASSERT_TRUE((*store)->replace_paper("NEW", fresh).is_ok());
  auto all = FilterExpr::parse("", Collections::filter_fields());
  auto hits = (*store)->bm25("legacy", "chunks", "text_content", *all, {"OLD", "NEW"}, 5);
  ASSERT_TRUE(hits.is_ok()) << hits.status().to_string();
  ASSERT_EQ(hits->size(), 2u);
  std::map<std::string, int> pages;
  for (auto& h : *hits) pages[h.entry.primary_key] = h.entry.page_number;
  EXPECT_EQ(pages, (std::map<std::string, int>{{"OLD-c0", -1}, {"NEW-c0", 7}}));
  for (const char* f : {"page_number == -1", "primary_key like 'OLD%'", "pdf_id == 'OLD'"}) {
    auto only_old = FilterExpr::parse(f, Collections::filter_fields());
    ASSERT_TRUE(only_old.is_ok()) << f;
    auto h = (*store)->bm25("legacy", "chunks", "text_content", *only_old, {"OLD", "NEW"}, 5);
    ASSERT_TRUE(h.is_ok());
    ASSERT_EQ(h->size(), 1u) << f;
    EXPECT_EQ((*h)[0].entry.table_name, "chunks");
    EXPECT_EQ((*h)[0].entry.primary_key, "OLD-c0") << f;
  }
  auto new_only = FilterExpr::parse("page_number == 7 and column_name == 'text_content'", Collections::filter_fields());
  ASSERT_TRUE(new_only.is_ok());
  auto h = (*store)->bm25("legacy", "chunks", "text_content", *new_only, {"OLD", "NEW"}, 5);
  ASSERT_TRUE(h.is_ok());
  ASSERT_EQ(h->size(), 1u);
  EXPECT_EQ((*h)[0].entry.primary_key, "NEW-c0");
}

TEST(Collections, DenseSearchRespectsFilterAndVisibility) {
  TempDir dir;
  auto c = open_rw(dir.path());
  fill(*c);
  auto r = c->search(chunks_query("text_hash_ngram_256", "MAFFT aligns protein sequences quickly"), kBoth);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_FALSE(r->empty());
  EXPECT_EQ((*r)[0].entry.primary_key, "A-c1");
  EXPECT_NEAR((*r)[0].score, 1.0, 1e-4);
  auto only_b = c->search(chunks_query("text_hash_ngram_256", "MAFFT aligns protein sequences quickly"), {"B"});
  ASSERT_TRUE(only_b.is_ok());
  for (auto& h : *only_b) EXPECT_EQ(h.entry.pdf_id, "B") << "invisible papers never show";
  auto filtered = c->search(
      chunks_query("text_hash_ngram_256", "MAFFT aligns protein sequences quickly", "not (pdf_id == 'A')", 2), kBoth);
  ASSERT_TRUE(filtered.is_ok());
  EXPECT_EQ(filtered->size(), 2u);
  for (auto& h : *filtered) EXPECT_EQ(h.entry.pdf_id, "B");
}

TEST(Collections, PersistReplaceAndRemove) {
  TempDir dir;
  {
    auto c = open_rw(dir.path());
    fill(*c);
    // re-adding replaces: the old chunk is gone, the new one found
    ASSERT_TRUE(c->add_paper("A", paper("A", {"completely new text about auxin response factors"})).is_ok());
  }
  auto c = Collections::open(dir.path().string(), false, {make_hash_embedder(256)});
  ASSERT_TRUE(c.is_ok());
  auto old = (*c)->search(chunks_query("text_bm25_en", "MAFFT"), kBoth);
  ASSERT_TRUE(old.is_ok());
  EXPECT_TRUE(old->empty());
  auto fresh = (*c)->search(chunks_query("text_hash_ngram_256", "auxin response factors"), kBoth);
  ASSERT_TRUE(fresh.is_ok());
  ASSERT_FALSE(fresh->empty());
  EXPECT_EQ((*fresh)[0].entry.primary_key, "A-c0");
  Json d = (*c)->describe();
  EXPECT_EQ(d["collections"][0]["entries"], 6);  // A: 1 chunk + title; B: 3 chunks + title
  EXPECT_EQ(d["collections"][1]["entries"], 6);
  c->reset();
  auto w = open_rw(dir.path());
  ASSERT_TRUE(w->remove_paper("A").is_ok());
  EXPECT_EQ(w->indexed_papers(), std::set<std::string>{"B"});
  EXPECT_EQ(w->describe()["collections"][1]["entries"], 4);
}

TEST(Collections, BadInputIsAClearError) {
  TempDir dir;
  auto c = open_rw(dir.path());
  fill(*c);
  auto code = [&](const CollectionQuery& q) { return c->search(q, kBoth).status(); };
  Status s = code(chunks_query("no_such_collection", "x"));
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_NE(s.message().find("text_bm25_en"), std::string::npos) << "lists the real ones";
  EXPECT_EQ(code({"x", "text_bm25_en", "chunks", "chunk_id", "", 5}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code({"x", "text_bm25_en", "users", "password", "", 5}).code(), ErrorCode::kInvalidArgument);
  s = code(chunks_query("text_bm25_en", "x", "pdf_id == 'A' and"));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  s = code(chunks_query("text_bm25_en", "x", "secret_field == 1"));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("secret_field"), std::string::npos);
  // SQL injection in a filter is just a syntax error: nothing is executed
  s = code(chunks_query("text_bm25_en", "x", "pdf_id == 'A'; DROP TABLE chunks; --"));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(chunks_query("text_bm25_en", "   ")).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(chunks_query("text_bm25_en", "x", "", 0)).code(), ErrorCode::kInvalidArgument);
  // Xapian query syntax in the text is taken as words
  auto odd = c->search(chunks_query("text_bm25_en", "AND OR NOT \"( SBP* -box +rice"), kBoth);
  EXPECT_TRUE(odd.is_ok()) << odd.status().to_string();
  // a huge query is fine
  auto huge = c->search(chunks_query("text_hash_ngram_256", std::string(200000, 'a') + " SBP"), kBoth);
  EXPECT_TRUE(huge.is_ok());
}

TEST(Collections, DamagedDenseFileIsReported) {
  TempDir dir;
  {
    auto c = open_rw(dir.path());
    fill(*c);
  }
  {  // the header overwritten (a junk tail alone would read as a torn append)
    std::fstream f(dir.path() / "text_hash_ngram_256.dense", std::ios::binary | std::ios::in | std::ios::out);
    f << "junkjunk";
  }
  auto c = Collections::open(dir.path().string(), false, {make_hash_embedder(256)});
  ASSERT_TRUE(c.is_ok());
  auto r = (*c)->search(chunks_query("text_hash_ngram_256", "SBP"), kBoth);
  EXPECT_EQ(r.status().code(), ErrorCode::kParseError);
  EXPECT_NE(r.status().message().find("damaged"), std::string::npos);
}

// Kill `papers add` at several moments; after each kill, the library holds
// only whole papers (database and every index agree), and adding again
// completes it.
TEST(Collections, KilledIngestionLeavesNoHalfPaper) {
  fs::path pdfs = bioagent::testing::fixtures_dir() / "pdfs";
  if (!fs::is_directory(pdfs)) GTEST_SKIP() << "fixtures absent: " << pdfs;
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(pdfs))
    if (e.path().extension() == ".pdf") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  TempDir dir;
  const std::string db = (dir.path() / "papers.duckdb").string();
  auto check_consistent = [&]() -> size_t {
    auto lib = PaperLibrary::open(db);  // drops index leftovers of papers not committed
    EXPECT_TRUE(lib.is_ok()) << lib.status().to_string();
    auto visible = (*lib)->visible_papers();
    EXPECT_TRUE(visible.is_ok());
    EXPECT_EQ((*lib)->collections().indexed_papers(), *visible);
    for (auto& id : *visible) {
      auto info = (*lib)->info(id);
      EXPECT_TRUE(info.is_ok());
      EXPECT_GT((*info)["chunks"].get<int64_t>(), 0) << "a visible paper is whole";
    }
    Json d = (*lib)->collections().describe();
    EXPECT_EQ(d["collections"][0]["entries"], d["collections"][1]["entries"]) << "BM25 and dense agree";
    return visible->size();
  };
  for (int delay_ms : {5, 30, 120, 300, 600}) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto lib = PaperLibrary::open(db);
      if (lib) (*lib)->add_many(files, 2, [](size_t, const Result<IngestReport>&) {});
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    std::cerr << "killed after " << delay_ms << " ms: " << check_consistent() << " of " << files.size()
              << " papers visible\n";
  }
  auto lib = PaperLibrary::open(db);
  ASSERT_TRUE(lib.is_ok());
  size_t failed = (*lib)->add_many(files, 2, [](size_t, const Result<IngestReport>&) {});
  EXPECT_EQ(failed, 0u);
  lib->reset();
  EXPECT_EQ(check_consistent(), files.size());
}

TEST(Collections, OpenAiCompatibleEmbedderGivesANamedCollection) {
  bioagent::testing::ReplayServer s(R"({"script": []})", "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto e = make_openai_embedder({s.url(""), "sentence-transformers/all-MiniLM-L6-v2", "", true, 2});
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ((*e)->collection_name(), "text_sentence_transformers_all_minilm_l6_v2");
  EXPECT_EQ((*e)->dim(), 8);
  TempDir dir;
  auto c = Collections::open(dir.path().string(), true, {make_hash_embedder(256), *e});
  ASSERT_TRUE(c.is_ok());
  fill(**c);
  auto r = (*c)->search(chunks_query("text_sentence_transformers_all_minilm_l6_v2", "weather in the alps"), kBoth);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_FALSE(r->empty());
  EXPECT_EQ((*r)[0].entry.primary_key, "B-c1") << "the same text gives the same vector";
  EXPECT_NEAR((*r)[0].score, 1.0, 1e-4);
  auto down = make_openai_embedder({"http://127.0.0.1:9", "m", "", true, 2});
  EXPECT_FALSE(down.is_ok()) << "an unreachable server fails early";
}

// The dense file grows by appending records; only a removal rewrites it. A torn
// append (a killed run) is ignored on load and cut off by the next save; the
// old one-block layout still loads.
TEST(Collections, DenseFileAppendsAndSurvivesATornTail) {
  bioagent::testing::TempDir dir;
  const std::string path = (dir.path() / "c.dense").string();
  const int dim = 4;
  auto vec = [&](int k) {  // one-hot: each id its own direction
    std::vector<float> v(dim, 0.0f);
    v[size_t(k - 1) % dim] = 1.0f;
    return v;
  };
  const auto record = uintmax_t(8 + 4 * dim);
  {
    auto d = DenseIndex::load(path, dim);
    ASSERT_TRUE(d.is_ok());
    (*d)->add({1, 2}, {vec(1), vec(2)});
    ASSERT_TRUE((*d)->save().is_ok());
  }
  ASSERT_EQ(fs::file_size(path), 16 + 2 * record);
  std::string before;
  {
    std::ifstream in(path, std::ios::binary);
    before.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    auto d = DenseIndex::load(path, dim);
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ((*d)->size(), 2u);
    (*d)->add({3}, {vec(3)});
    ASSERT_TRUE((*d)->save().is_ok());
  }
  ASSERT_EQ(fs::file_size(path), 16 + 3 * record);
  {
    std::ifstream in(path, std::ios::binary);
    std::string after(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(after.substr(0, before.size()), before) << "the first records were not rewritten";
  }
  // A torn append: half a record at the end.
  { std::ofstream(path, std::ios::binary | std::ios::app) << std::string(record / 2, '\x7f'); }
  {
    auto d = DenseIndex::load(path, dim);
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ((*d)->size(), 3u);
    (*d)->add({4}, {vec(4)});
    ASSERT_TRUE((*d)->save().is_ok());
    EXPECT_EQ(fs::file_size(path), 16 + 4 * record) << "the torn tail was cut before appending";
    auto hits = (*d)->search(vec(4), {1, 2, 3, 4}, 1);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].first, 4);
    (*d)->drop({2});
    ASSERT_TRUE((*d)->save().is_ok());
  }
  EXPECT_EQ(fs::file_size(path), 16 + 3 * record) << "a removal rewrites the file";
  // The old layout: "BADENSE1", dim, n, ids, vectors.
  const std::string old_path = (dir.path() / "old.dense").string();
  {
    std::ofstream out(old_path, std::ios::binary);
    int32_t d32 = dim;
    int64_t n = 1, id = 7;
    auto v = vec(3);
    out.write("BADENSE1", 8);
    out.write(reinterpret_cast<const char*>(&d32), 4);
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(reinterpret_cast<const char*>(&id), 8);
    out.write(reinterpret_cast<const char*>(v.data()), 4 * dim);
  }
  auto old = DenseIndex::load(old_path, dim);
  ASSERT_TRUE(old.is_ok()) << old.status().to_string();
  EXPECT_EQ((*old)->size(), 1u);
  ASSERT_TRUE((*old)->save().is_ok());
  EXPECT_EQ(fs::file_size(old_path), 16 + record) << "rewritten in the record layout";
  std::ofstream(dir.path() / "short.dense", std::ios::binary) << "BADENSE2";
  EXPECT_FALSE(DenseIndex::load((dir.path() / "short.dense").string(), dim).is_ok());
}

// BM25 among a few documents counts a word by its rarity among them: a word on every page of a
// paper (the words naming it) counts next to nothing, the word on one page decides. Generated over
// paper sizes and the page holding the rare word.
TEST(Bm25Among, TheWordsOnEveryPageCountLeastAndRareOnesDecide) {
  for (size_t pages = 3; pages <= 12; ++pages)
    for (size_t rare = 0; rare < pages; ++rare) {
      std::vector<std::string> docs;
      for (size_t p = 0; p < pages; ++p) {
        std::string d = "Ciona heart enhancers with affinity-optimizing SNVs, page " + std::to_string(p) + ".";
        // The other pages say the paper's words more often: a global ranking would favour them.
        if (p != rare)
          d += " Ciona heart enhancers again and again, Ciona heart enhancers.";
        else
          d += " Sequencing data were deposited under SRA accession PRJNA999706.";
        docs.push_back(d);
      }
      const auto scores =
          bm25_among("In the Ciona heart enhancers study, which SRA accession holds the sequencing data?", docs);
      ASSERT_EQ(scores.size(), pages);
      for (size_t p = 0; p < pages; ++p)
        if (p != rare) EXPECT_GT(scores[rare], scores[p]) << pages << " pages, rare word on " << rare;
    }
  EXPECT_TRUE(bm25_among("anything", {}).empty());
  EXPECT_EQ(bm25_among("absent words", {"nothing here", ""}), (std::vector<double>{0, 0}));
  EXPECT_EQ(bm25_among("", {"a page"}), (std::vector<double>{0}));
}

// The words a search index reads: stems, hyphenated words in parts, CJK characters one by one.
TEST(IndexTerms, StemsPartsAndCharacters) {
  EXPECT_EQ(index_terms("Worms were sputter-coated"), (std::vector<std::string>{"worm", "were", "sputter", "coat"}));
  EXPECT_EQ(index_terms("SMN数据"), (std::vector<std::string>{"smn", "数", "据"}));
  EXPECT_TRUE(index_terms("").empty());
}
