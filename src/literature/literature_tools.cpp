// Literature tools: one per source, the parallel SearchHandler, seed 000's
// multi_source_literature_search and the evidence-store search. The HTTP
// client, cache and offline mode come from the ToolContext's options:
//   cache_dir, offline, allow_private_urls, contact_email, ncbi_api_key,
//   semantic_scholar_api_key, base_url.<source>
#include <nlohmann/json.hpp>
#include <set>

#include "bioagent/registry.h"
#include "bioagent/search.h"
#include "literature/literature_tool_types.h"

namespace bioagent::tools {

Result<std::unique_ptr<HttpClient>> http_client_for(const ToolContext& ctx) {
  return HttpClient::create(http_options([&](const std::string& k) { return ctx.option(k); }));
}

namespace {

LiteratureConfig config_for(const ToolContext& ctx) {
  LiteratureConfig c;
  c.ncbi_api_key = ctx.option("ncbi_api_key");
  c.semantic_scholar_api_key = ctx.option("semantic_scholar_api_key");
  for (auto& name : source_names()) c.base_urls[name] = ctx.option("base_url." + name);
  return c;
}

Result<std::unique_ptr<EvidenceStore>> store_for(const ToolContext& ctx) {
  std::string dir = ctx.option("cache_dir");
  if (dir.empty()) return unsupported("no cache folder is configured, so there is no evidence store");
  return EvidenceStore::open(dir + "/evidence.sqlite");
}

std::chrono::milliseconds timeout_of(const Json& args) {
  return std::chrono::milliseconds(static_cast<int64_t>(args.value("timeout_seconds", 30.0) * 1000));
}

Json evidence_list(const std::vector<Evidence>& v) {
  Json out = Json::array();
  for (auto& e : v) out.push_back(e.to_json());
  return out;
}

}  // namespace

// pubmed_search, europepmc_search, ... : settings.source names the source.
Result<Json> literature_source_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  auto http = http_client_for(ctx);
  if (!http) return http.status();
  std::string name = spec.settings.value("source", "");
  auto source = make_source(name, **http, config_for(ctx));
  if (!source) return internal_error("tool '" + spec.name + "' names an unknown source '" + name + "'");
  auto r = source->search(args.at("query").get<std::string>(), args.value("max_results", 10),
                          std::chrono::steady_clock::now() + timeout_of(args));
  if (!r) return r.status();
  Json out = {{"query", args["query"]}, {"source", name}, {"n_results", r->size()}, {"evidence", evidence_list(*r)}};
  if (r->empty()) out["message"] = name + " found nothing for this query";
  return out;
}

// search_literature: SearchHandler over the chosen sources.
Result<Json> search_handler_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto http = http_client_for(ctx);
  if (!http) return http.status();
  LiteratureConfig cfg = config_for(ctx);
  std::vector<std::unique_ptr<SearchSource>> owned;
  std::vector<SearchSource*> chosen;
  Json names = args.value("sources", Json(source_names()));
  for (auto& n : names) {
    owned.push_back(make_source(n.get<std::string>(), **http, cfg));
    chosen.push_back(owned.back().get());
  }
  // auto_ingest_to_rag is on by default (seed 003); a search without an
  // evidence store still runs, and its errors say that nothing was stored.
  const bool include_rag = args.value("include_rag", false), ingest = args.value("auto_ingest_to_rag", true);
  std::unique_ptr<EvidenceStore> store;
  std::string no_store;
  if (include_rag || ingest) {
    auto s = store_for(ctx);
    if (s)
      store = std::move(*s);
    else if (include_rag)
      return s.status();
    else
      no_store = "rag: nothing ingested: " + s.status().message();
  }
  SearchHandler handler(chosen, timeout_of(args), store.get());
  SearchResultSet r = handler.execute(args.at("query").get<std::string>(), args.value("max_results_per_source", 10),
                                      include_rag, ingest);
  if (!no_store.empty()) r.errors.push_back(no_store);
  return r.to_json();
}

// search_evidence_store: the collected evidence, offline.
Result<Json> evidence_store_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto store = store_for(ctx);
  if (!store) return store.status();
  auto r =
      (*store)->search(args.at("query").get<std::string>(), args.value("limit", 10), std::chrono::steady_clock::now());
  if (!r) return r.status();
  Json out = {{"query", args["query"]}, {"evidence", evidence_list(*r)}, {"store_size", (*store)->size()}};
  if (r->empty())
    out["message"] =
        "nothing in the local evidence store matches; run search_literature with auto_ingest_to_rag to collect "
        "evidence";
  return out;
}

namespace {

const std::map<std::string, std::string> kApiNames = {{"semantic_scholar", "Semantic Scholar"},
                                                      {"pubmed", "PubMed"},
                                                      {"arxiv", "ArXiv"},
                                                      {"europepmc", "Europe PMC"},
                                                      {"europepmc_preprint", "Europe PMC (preprint)"},
                                                      {"clinicaltrials", "ClinicalTrials.gov"}};

// One record in seed 000's output shape, with its "N/A" conventions.
Json seed_record(const Evidence& e) {
  const Citation& c = e.citation;
  Json year = "N/A";
  if (c.date.size() >= 4 && std::all_of(c.date.begin(), c.date.begin() + 4, ::isdigit))
    year = std::stoi(c.date.substr(0, 4));
  std::string abstract = e.content;
  size_t chars = 0, cut = std::string::npos;
  for (size_t i = 0; i < abstract.size(); ++i) {
    if ((static_cast<unsigned char>(abstract[i]) & 0xC0) != 0x80 && chars++ == 500) {
      cut = i;
      break;
    }
  }
  if (cut != std::string::npos) abstract = abstract.substr(0, cut) + "...";
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(8);
  out["title"] = c.title.empty() ? "N/A" : c.title;
  out["authors"] = c.authors.empty() ? Json::array({"N/A"}) : Json(c.authors);
  out["year"] = year;
  out["abstract"] = abstract.empty() ? "N/A" : abstract;
  out["doi"] = c.doi.empty() ? Json() : Json(c.doi);
  out["url"] = c.url.empty() ? "N/A" : c.url;
  out["venue"] = c.venue.empty() ? "N/A" : c.venue;
  out["source_api"] = kApiNames.count(c.source) ? kApiNames.at(c.source) : c.source;
  return out;
}

}  // namespace

// multi_source_literature_search(queries, max_results_per_query_per_source=1, max_total_unique_papers=10)
Result<Json> multi_source_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto http = http_client_for(ctx);
  if (!http) return http.status();
  LiteratureConfig cfg = config_for(ctx);
  Json names = args.value("sources", Json::array({"semantic_scholar", "pubmed", "arxiv"}));
  const int per = args.value("max_results_per_query_per_source", 1);
  const size_t limit = args.value("max_total_unique_papers", 10);
  std::vector<Evidence> found;
  std::vector<std::string> errors;
  size_t calls = 0;
  for (auto& q : args.at("queries")) {
    for (auto& n : names) {
      if (found.size() >= limit) break;
      BIOAGENT_RETURN_IF_ERROR(ctx.check());
      auto source = make_source(n.get<std::string>(), **http, cfg);
      auto r = source->search(q.get<std::string>(), per, std::chrono::steady_clock::now() + std::chrono::seconds(30));
      ++calls;
      if (!r) {
        errors.push_back(r.status().message());
        ctx.log(LogLevel::kWarn, r.status().message());
        continue;
      }
      for (auto& e : *r) found.push_back(std::move(e));
      found = deduplicate(std::move(found));  // stops early once enough unique papers are in
    }
    if (found.size() >= limit) break;
  }
  if (found.size() > limit) found.resize(limit);
  if (found.empty() && !errors.empty()) {
    std::string all;
    for (auto& e : errors) all += (all.empty() ? "" : "; ") + e;
    Status s(ErrorCode::kUnavailable, "every literature search failed: " + all);
    s.with("errors", errors);
    return s;
  }
  Json out = Json::array();
  for (auto& e : found) out.push_back(seed_record(e));
  (void)calls;
  return out;
}

}  // namespace bioagent::tools

namespace bioagent {

void register_literature_tool_types(ToolRegistry& registry) {
  registry.add_type("LiteratureSourceTool", tools::literature_source_tool);
  registry.add_type("SearchHandlerTool", tools::search_handler_tool);
  registry.add_type("EvidenceStoreTool", tools::evidence_store_tool);
  registry.add_type("MultiSourceLiteratureTool", tools::multi_source_tool);
  registry.add_type("FetchTextTool", tools::fetch_text_tool);
}

}  // namespace bioagent
