// add_papers_to_library: PDFs of the workspace into the paper library (the
// "papers_db" option), the tool behind `papers add` for clients. One writer per
// process (the library's rule): a second call waits for the first. Papers are
// written in small batches, each reported as progress, and a cancelled call
// stops between batches; the papers written so far stay (re-adding skips them).
#include <algorithm>
#include <mutex>
#include <thread>

#include "bioagent/papers.h"
#include "bioagent/workspace.h"
#include "papers/paper_tool_types.h"

namespace bioagent::tools {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxFiles = 1000;
constexpr size_t kBatch = 4;

bool is_pdf(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".pdf";
}

// The PDFs the paths name (a folder: every PDF in it, in name order), each inside the workspace.
Result<std::vector<fs::path>> pdfs_named(const Json& paths, const Workspace& ws) {
  std::vector<fs::path> out;
  for (const Json& p : paths) {
    auto resolved = ws.resolve_existing(p.get<std::string>());
    if (!resolved) return ws.scrub(resolved.status());
    if (!fs::is_directory(*resolved)) {
      out.push_back(*resolved);
      continue;
    }
    std::vector<fs::path> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(*resolved, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (!it->is_regular_file(ec) || !is_pdf(it->path())) continue;
      auto inside = ws.resolve_existing(it->path().string());  // a link out of the workspace is not followed
      if (inside) found.push_back(*inside);
      if (found.size() > kMaxFiles) break;
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > kMaxFiles)
    return invalid_argument("more than " + std::to_string(kMaxFiles) + " PDFs: add them in parts");
  return out;
}

std::mutex& writer_mutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

Result<Json> paper_ingest_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  const std::string db = ctx.option("papers_db");
  if (db.empty()) return unsupported("no paper library is configured (BIOAGENT_PAPERS_DB or --papers-db)");
  const Workspace& ws = ctx.workspace();
  auto files = pdfs_named(args.at("paths"), ws);
  if (!files) return files.status();
  std::unique_lock writer(writer_mutex(), std::defer_lock);
  while (!writer.try_lock()) {  // another call is writing the library
    BIOAGENT_RETURN_IF_ERROR(ctx.check());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  auto lib = PaperLibrary::open(db);
  if (!lib) return ws.scrub(lib.status());
  Json added = Json::array(), failed = Json::array();
  size_t done = 0, present = 0;
  for (size_t at = 0; at < files->size(); at += kBatch) {
    BIOAGENT_RETURN_IF_ERROR(ctx.check());  // between batches: what is written stays
    std::vector<fs::path> batch(files->begin() + at, files->begin() + std::min(files->size(), at + kBatch));
    (*lib)->add_many(batch, 0, [&](size_t i, const Result<IngestReport>& r) {
      const std::string shown = ws.display(batch[i]);
      ++done;
      ctx.progress(double(done), double(files->size()), shown);
      if (!r) {
        failed.push_back({{"file", shown}, {"error", ws.scrub(r.status()).message()}});
        return;
      }
      present += r->already_present ? 1 : 0;
      added.push_back({{"file", shown},
                       {"paper_id", r->paper_id},
                       {"title", r->title},
                       {"pages", r->num_pages},
                       {"already_present", r->already_present},
                       {"warnings", r->warnings}});
    });
  }
  auto listed = (*lib)->list();
  return Json{{"added", added},
              {"already_present", present},
              {"failed", failed},
              {"library_papers", listed && listed->is_array() ? Json(listed->size()) : Json(nullptr)}};
}

}  // namespace bioagent::tools
