// The paper library: a DuckDB file plus its search collections. The DuckDB
// commit is the point where a paper becomes visible (see collections.h).
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "bioagent/papers.h"
#include "papers/paper_extract.h"

namespace bioagent {

Json IngestReport::to_json() const {
  return Json{{"paper_id", paper_id},
              {"title", title},
              {"pdf_path", pdf_path},
              {"num_pages", num_pages},
              {"chunks", chunks},
              {"images", images},
              {"tables", tables},
              {"sections", sections},
              {"references", references},
              {"equations", equations},
              {"indexed_entries", indexed_entries},
              {"already_present", already_present},
              {"warnings", warnings}};
}

PaperLibrary::~PaperLibrary() = default;

Result<std::unique_ptr<PaperLibrary>> PaperLibrary::open(const std::string& db_path,
                                                         std::vector<std::shared_ptr<Embedder>> dense) {
  std::error_code ec;
  auto parent = std::filesystem::path(db_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (!std::filesystem::exists(db_path, ec)) {
    // A new library is created beside its final name and renamed into place, so
    // a process killed while creating it never leaves a file DuckDB cannot open.
    std::string tmp = db_path + ".creating-" + std::to_string(::getpid());
    std::filesystem::remove(tmp, ec);
    {
      auto fresh = DuckDb::open(tmp, false);
      if (!fresh) return fresh.status();
      BIOAGENT_RETURN_IF_ERROR((*fresh)->exec(paper_schema_ddl()));
      BIOAGENT_RETURN_IF_ERROR((*fresh)->exec("CHECKPOINT"));
    }
    std::filesystem::remove(tmp + ".wal", ec);
    std::filesystem::rename(tmp, db_path, ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot create the paper library " + db_path + ": " + ec.message());
  }
  auto lib = std::unique_ptr<PaperLibrary>(new PaperLibrary());
  auto db = DuckDb::open(db_path, false);
  if (!db) return db.status();
  lib->db_ = std::move(*db);
  BIOAGENT_RETURN_IF_ERROR(lib->db_->exec(paper_schema_ddl()));
  auto cols = Collections::open(collections_dir_for(db_path), true, std::move(dense));
  if (!cols) return cols.status();
  lib->collections_ = std::move(*cols);
  // Index entries of papers the database does not hold (a killed ingestion or
  // removal) are dropped now, so the indexes never drift from the database.
  auto visible = lib->visible_papers();
  if (!visible) return visible.status();
  for (auto& p : lib->collections_->indexed_papers())
    if (!visible->count(p)) BIOAGENT_RETURN_IF_ERROR(lib->collections_->remove_paper(p));
  BIOAGENT_RETURN_IF_ERROR(lib->collections_->repair());
  return lib;
}

Result<std::set<std::string>> PaperLibrary::visible_papers() {
  auto r = db_->query("SELECT paper_id::VARCHAR FROM metadata", {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
  if (!r) return r.status();
  std::set<std::string> out;
  for (auto& row : r->rows) out.insert(row[0].get<std::string>());
  return out;
}

Result<IngestReport> PaperLibrary::commit(PreparedPaper& p) {
  IngestReport& rep = p.report;
  auto present = db_->query("SELECT title FROM metadata WHERE paper_id = ?", {}, {rep.paper_id});
  if (!present) return present.status();
  if (!present->rows.empty()) {
    IngestReport had;
    had.paper_id = rep.paper_id;
    had.pdf_path = rep.pdf_path;
    had.num_pages = rep.num_pages;
    had.already_present = true;
    had.title = present->rows[0][0].is_string() ? present->rows[0][0].get<std::string>() : "";
    return had;
  }
  auto fail = [&](const Status& s) {
    (void)db_->exec("ROLLBACK");
    return Status(s.code(), "ingesting '" + rep.pdf_path + "' failed, nothing was written: " + s.message());
  };
  BIOAGENT_RETURN_IF_ERROR(db_->exec("BEGIN TRANSACTION"));
  std::map<std::string, std::vector<const std::vector<SqlParam>*>> by_statement;  // one multi-row insert each
  for (auto& r : p.rows) by_statement[r.sql].push_back(&r.params);
  for (auto& [sql, rows] : by_statement)
    if (Status s = db_->insert_batch(sql, rows); !s.is_ok()) return fail(s);
  if (Status s = collections_->add_papers({{rep.paper_id, &p.entries, p.prepared}}); !s.is_ok()) return fail(s);
  rep.indexed_entries = p.entries.size();
  BIOAGENT_RETURN_IF_ERROR(db_->exec("COMMIT"));
  return rep;
}

std::vector<Result<IngestReport>> PaperLibrary::commit_batch(const std::vector<PreparedPaper*>& papers) {
  std::vector<Result<IngestReport>> out(papers.size(), internal_error("not committed"));
  std::vector<size_t> todo;
  // Which are in the library already: one query for the batch (one per paper
  // was a tenth of the writer's time).
  std::string marks;
  std::vector<SqlParam> ids;
  for (size_t i = 0; i < papers.size(); ++i) {
    marks += i ? ", ?" : "?";
    ids.push_back(papers[i]->report.paper_id);
  }
  auto present = db_->query("SELECT paper_id::VARCHAR FROM metadata WHERE paper_id IN (" + marks + ")",
                            {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX}, ids);
  std::set<std::string> have;
  if (present)
    for (auto& row : present->rows) have.insert(row[0].get<std::string>());
  for (size_t i = 0; i < papers.size(); ++i) {
    if (present && !have.count(papers[i]->report.paper_id))
      todo.push_back(i);
    else
      out[i] = commit(*papers[i]);  // already present (or the check failed): the single path says which
  }
  if (todo.empty()) return out;
  auto one_by_one = [&] {
    (void)db_->exec("ROLLBACK");
    for (size_t i : todo) out[i] = commit(*papers[i]);
    return out;
  };
  if (!db_->exec("BEGIN TRANSACTION").is_ok()) return one_by_one();
  std::vector<PaperEntries> index;
  // One append per table for the whole batch: each flush runs a query of its own.
  std::map<std::string, std::vector<const std::vector<SqlParam>*>> by_statement;
  for (size_t i : todo) {
    for (auto& r : papers[i]->rows) by_statement[r.sql].push_back(&r.params);
    papers[i]->report.indexed_entries = papers[i]->entries.size();
    index.push_back({papers[i]->report.paper_id, &papers[i]->entries, papers[i]->prepared});
  }
  for (auto& [sql, rows] : by_statement)
    if (!db_->insert_batch(sql, rows).is_ok()) return one_by_one();
  if (!collections_->add_papers(index).is_ok() || !db_->exec("COMMIT").is_ok()) return one_by_one();
  for (size_t i : todo) out[i] = papers[i]->report;
  return out;
}

Result<IngestReport> PaperLibrary::add(const std::filesystem::path& pdf) {
  auto prepared = prepare_paper(pdf);
  if (!prepared) return prepared.status();
  return commit(*prepared);
}

size_t PaperLibrary::add_many(const std::vector<std::filesystem::path>& files, unsigned workers,
                              const std::function<void(size_t, const Result<IngestReport>&)>& done) {
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, static_cast<unsigned>(std::max<size_t>(1, files.size())));
  std::set<std::string> known;  // papers already in the library: skip their extraction
  if (auto v = visible_papers()) known = *v;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<size_t, Result<PreparedPaper>>> ready;
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < files.size();) {
        Result<PreparedPaper> r = internal_error("not prepared");
        auto file = load_pdf_file(files[i]);
        if (file && known.count(paper_id_for_sha256(file->sha256))) {
          PreparedPaper skip;
          skip.report.paper_id = paper_id_for_sha256(file->sha256);
          skip.report.pdf_path = std::filesystem::absolute(files[i]).string();
          r = std::move(skip);
        } else {
          r = file ? prepare_paper(*file) : Result<PreparedPaper>(file.status());
          if (r) r->prepared = collections_->prepare(r->entries);
        }
        std::lock_guard lock(mu);
        ready.emplace_back(i, std::move(r));
        cv.notify_one();
      }
    });
  size_t failed = 0;
  // One writer (this thread) commits what is ready as one batch. Group commit:
  // every commit pays fixed costs (fsyncs, index commit, ~8 ms here), so the
  // writer waits up to kGroupWindow after the first ready paper for a second
  // one (or the last). Larger minimums helped one core a little but cost the
  // overlap with extraction on two; a slow writer's batches grow by themselves.
  constexpr size_t kMaxBatch = 32;
  constexpr size_t kMinBatch = 2;
  constexpr auto kGroupWindow = std::chrono::milliseconds(300);
  for (size_t got = 0; got < files.size();) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return !ready.empty(); });
    cv.wait_for(lock, kGroupWindow, [&] { return ready.size() >= kMinBatch || got + ready.size() == files.size(); });
    std::vector<std::pair<size_t, Result<PreparedPaper>>> batch;
    while (!ready.empty() && batch.size() < kMaxBatch) {
      batch.push_back(std::move(ready.front()));
      ready.pop_front();
    }
    lock.unlock();
    std::vector<PreparedPaper*> ok;
    std::vector<size_t> ok_index;
    for (auto& [i, prepared] : batch)
      if (prepared) {
        ok.push_back(&*prepared);
        ok_index.push_back(i);
      } else {
        ++failed;
        done(i, Result<IngestReport>(prepared.status()));
      }
    auto results = commit_batch(ok);
    for (size_t k = 0; k < results.size(); ++k) {
      if (!results[k]) ++failed;
      done(ok_index[k], results[k]);
    }
    got += batch.size();
  }
  for (auto& t : pool) t.join();
  return failed;
}

Result<Json> PaperLibrary::list() {
  auto r =
      db_->query("SELECT paper_id, title, num_pages, pub_year, doi, pdf_path FROM metadata ORDER BY added_at, title",
                 {.max_rows = 100000, .max_chars = 100000000});
  if (!r) return r.status();
  Json out = Json::array();
  for (auto& row : r->rows)
    out.push_back({{"paper_id", row[0]},
                   {"title", row[1]},
                   {"num_pages", row[2]},
                   {"pub_year", row[3]},
                   {"doi", row[4]},
                   {"pdf_path", row[5]}});
  return out;
}

Result<Json> PaperLibrary::info(const std::string& paper_id) {
  auto r = db_->query(
      "SELECT paper_id, title, abstract, num_pages, pub_year, authors::VARCHAR, doi, pdf_path,"
      " (SELECT count(*) FROM chunks WHERE ref_paper_id = paper_id), (SELECT count(*) FROM images WHERE ref_paper_id = "
      "paper_id),"
      " (SELECT count(*) FROM tables WHERE ref_paper_id = paper_id), (SELECT count(*) FROM sections WHERE ref_paper_id "
      "= paper_id),"
      " (SELECT count(*) FROM reference WHERE ref_paper_id = paper_id) FROM metadata WHERE paper_id::VARCHAR = ?",
      {}, {paper_id});
  if (!r) return r.status();
  if (r->rows.empty()) return not_found("no paper with id '" + paper_id + "' in the library");
  const Json& row = r->rows[0];
  return Json{{"paper_id", row[0]},   {"title", row[1]},   {"abstract", row[2]}, {"num_pages", row[3]},
              {"pub_year", row[4]},   {"authors", row[5]}, {"doi", row[6]},      {"pdf_path", row[7]},
              {"chunks", row[8]},     {"images", row[9]},  {"tables", row[10]},  {"sections", row[11]},
              {"references", row[12]}};
}

Status PaperLibrary::set_download_url(const std::string& paper_id, const std::string& url) {
  return db_->run("UPDATE metadata SET download_url = ? WHERE paper_id::VARCHAR = ?", {url, paper_id});
}

Status PaperLibrary::remove(const std::string& paper_id) {
  auto r = db_->query("SELECT count(*) FROM metadata WHERE paper_id::VARCHAR = ?", {}, {paper_id});
  if (!r) return r.status();
  if (r->rows.empty() || r->rows[0][0] == 0) return not_found("no paper with id '" + paper_id + "' in the library");
  BIOAGENT_RETURN_IF_ERROR(db_->exec("BEGIN TRANSACTION"));
  for (const char* t : {"metadata", "pages", "images", "chunks", "tables", "sections", "equations", "reference"}) {
    std::string col = std::string(t) == "metadata" ? "paper_id" : "ref_paper_id";
    Status s = db_->run("DELETE FROM " + std::string(t) + " WHERE " + col + "::VARCHAR = ?", {paper_id});
    if (!s.is_ok()) {
      (void)db_->exec("ROLLBACK");
      return s;
    }
  }
  BIOAGENT_RETURN_IF_ERROR(db_->exec("COMMIT"));
  return collections_->remove_paper(paper_id);  // if this fails, the next open drops the leftovers
}

}  // namespace bioagent
