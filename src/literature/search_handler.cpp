#include <nlohmann/json.hpp>
#include <thread>

#include "bioagent/search.h"

namespace bioagent {

Json SearchResultSet::to_json() const {
  Json ev = Json::array();
  for (auto& e : evidence) ev.push_back(e.to_json());
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(6);
  out["query"] = query;
  out["evidence"] = std::move(ev);
  out["sources_searched"] = sources_searched;
  out["total_found"] = total_found;
  out["errors"] = errors;
  if (ingested) out["ingested_to_rag"] = ingested;
  return out;
}

SearchHandler::SearchHandler(std::vector<SearchSource*> sources, std::chrono::milliseconds timeout,
                             EvidenceStore* store)
    : sources_(std::move(sources)), timeout_(timeout), store_(store) {}

SearchResultSet SearchHandler::execute(const std::string& query, int max_results, bool include_rag, bool auto_ingest) {
  std::vector<SearchSource*> all = sources_;
  if (include_rag && store_) all.push_back(store_);
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::vector<Result<std::vector<Evidence>>> results(all.size(),
                                                     Result<std::vector<Evidence>>(internal_error("not run")));
  // One thread per source; each request is bounded by the deadline, so every
  // thread ends by then and the joins below never wait longer.
  std::vector<std::thread> threads;
  for (size_t i = 0; i < all.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        results[i] = all[i]->search(query, max_results, deadline);
      } catch (const std::exception& e) {
        results[i] = internal_error(all[i]->name() + ": " + e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  SearchResultSet out;
  out.query = query;
  std::vector<Evidence> from_sources;
  for (size_t i = 0; i < all.size(); ++i) {
    out.sources_searched.push_back(all[i]->name());
    if (!results[i]) {
      const Status& s = results[i].status();
      std::string msg = s.message();
      if (msg.rfind(all[i]->name() + ":", 0) != 0) msg = all[i]->name() + ": " + msg;
      out.errors.push_back(msg);
      continue;
    }
    for (auto& e : *results[i]) {
      if (all[i] != store_) from_sources.push_back(e);
      out.evidence.push_back(std::move(e));
    }
  }
  out.total_found = out.evidence.size();
  if (auto_ingest && store_ && !from_sources.empty()) {
    auto added = store_->add(from_sources, query);  // items that came from the store are not re-ingested
    if (added)
      out.ingested = *added;
    else
      out.errors.push_back("rag: " + added.status().message());
  }
  return out;
}

}  // namespace bioagent
