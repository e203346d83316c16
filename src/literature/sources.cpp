// The five literature sources: request building, HTTP, parsing, typed errors.
#include <curl/curl.h>

#include <nlohmann/json.hpp>

#include "bioagent/search.h"

namespace bioagent {
namespace {

std::string url_encode(const std::string& s) {
  char* e = curl_easy_escape(nullptr, s.c_str(), static_cast<int>(s.size()));
  std::string out = e ? e : "";
  curl_free(e);
  return out;
}

class HttpSource : public SearchSource {
 public:
  HttpSource(std::string name, HttpClient& http, std::string base)
      : name_(std::move(name)), http_(http), base_(std::move(base)) {}
  std::string name() const override { return name_; }

 protected:
  Status error(const std::string& type, const std::string& message) const {
    Status s(type == "rate_limit_error" ? ErrorCode::kResourceExhausted : ErrorCode::kToolFailed,
             name_ + ": " + message);
    s.with("source", name_).with("error_type", type);
    return s;
  }

  // GET with the source's rate limit; HTTP errors become typed errors.
  Result<std::string> get(const std::string& path_and_query, std::chrono::steady_clock::time_point deadline,
                          std::vector<std::pair<std::string, std::string>> headers = {}) {
    HttpRequest req;
    req.url = base_ + path_and_query;
    req.source = name_;
    req.headers = std::move(headers);
    req.deadline = deadline;
    req.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto r = http_.fetch(req);
    if (!r) {
      Status s = r.status();
      s.with("source", name_).with("error_type", "search_error");
      return s;
    }
    if (r->status == 429) {
      Status s =
          error("rate_limit_error",
                "rate limited (HTTP 429)" +
                    (r->headers.count("retry-after") ? "; retry after " + r->headers["retry-after"] + " s" : ""));
      return s;
    }
    if (r->status < 200 || r->status >= 300) {
      Status s = error("search_error",
                       "HTTP " + std::to_string(r->status) + " from " + req.url + ": " + r->body.substr(0, 200));
      s.with("http_status", r->status);
      return s;
    }
    return std::move(r->body);
  }

  // Parser errors name the source too; a server that returns more records
  // than were asked for (`n`) is cut to the first n.
  Result<std::vector<Evidence>> tag(Result<std::vector<Evidence>> r, int n) const {
    if (r) {
      if (n >= 0 && r->size() > static_cast<size_t>(n)) r->resize(static_cast<size_t>(n));
      return r;
    }
    Status s = r.status();
    s.with("source", name_).with("error_type", "search_error");
    return s;
  }

  std::string name_;
  HttpClient& http_;
  std::string base_;
};

class PubMed : public HttpSource {
 public:
  PubMed(HttpClient& h, std::string base, std::string key)
      : HttpSource("pubmed", h, std::move(base)), key_(std::move(key)) {}
  Result<std::vector<Evidence>> search(const std::string& query, int n,
                                       std::chrono::steady_clock::time_point deadline) override {
    std::string common = "&tool=bioagent" + (key_.empty() ? "" : "&api_key=" + url_encode(key_));
    auto ids = get("/esearch.fcgi?db=pubmed&retmode=xml&sort=relevance&retmax=" + std::to_string(n) +
                       "&term=" + url_encode(query) + common,
                   deadline);
    if (!ids) return ids.status();
    auto parsed = parse_esearch(*ids);
    if (!parsed) return tag(parsed.status(), n);
    if (parsed->ids.empty()) return std::vector<Evidence>{};
    if (parsed->ids.size() > static_cast<size_t>(n)) parsed->ids.resize(static_cast<size_t>(n));
    std::string list;
    for (auto& id : parsed->ids) list += (list.empty() ? "" : ",") + id;
    auto xml = get("/efetch.fcgi?db=pubmed&retmode=xml&id=" + list + common, deadline);
    if (!xml) return xml.status();
    auto records = tag(parse_pubmed_efetch(*xml), n);
    if (!records) return records;
    for (size_t i = 0; i < records->size(); ++i)
      (*records)[i].relevance =
          records->size() <= 1 ? 1.0 : 1.0 - 0.5 * static_cast<double>(i) / static_cast<double>(records->size() - 1);
    return records;
  }

 private:
  std::string key_;
};

class EuropePmc : public HttpSource {
 public:
  EuropePmc(HttpClient& h, std::string base) : HttpSource("europepmc", h, std::move(base)) {}
  Result<std::vector<Evidence>> search(const std::string& query, int n,
                                       std::chrono::steady_clock::time_point deadline) override {
    auto body = get("/search?format=json&resultType=core&pageSize=" + std::to_string(n) + "&query=" + url_encode(query),
                    deadline);
    if (!body) return body.status();
    return tag(parse_europepmc(*body), n);
  }
};

class ClinicalTrials : public HttpSource {
 public:
  ClinicalTrials(HttpClient& h, std::string base) : HttpSource("clinicaltrials", h, std::move(base)) {}
  Result<std::vector<Evidence>> search(const std::string& query, int n,
                                       std::chrono::steady_clock::time_point deadline) override {
    auto body = get("/studies?format=json&pageSize=" + std::to_string(n) + "&query.term=" + url_encode(query) +
                        "&filter.overallStatus=COMPLETED,ACTIVE_NOT_RECRUITING,RECRUITING,ENROLLING_BY_INVITATION" +
                        "&filter.advanced=" + url_encode("AREA[StudyType]INTERVENTIONAL"),
                    deadline);
    if (!body) return body.status();
    return tag(parse_ctgov(*body), n);
  }
};

class Arxiv : public HttpSource {
 public:
  Arxiv(HttpClient& h, std::string base) : HttpSource("arxiv", h, std::move(base)) {}
  Result<std::vector<Evidence>> search(const std::string& query, int n,
                                       std::chrono::steady_clock::time_point deadline) override {
    auto body = get("/query?start=0&max_results=" + std::to_string(n) + "&search_query=" + url_encode("all:" + query),
                    deadline);
    if (!body) return body.status();
    return tag(parse_arxiv(*body), n);
  }
};

class SemanticScholar : public HttpSource {
 public:
  SemanticScholar(HttpClient& h, std::string base, std::string key)
      : HttpSource("semantic_scholar", h, std::move(base)), key_(std::move(key)) {}
  Result<std::vector<Evidence>> search(const std::string& query, int n,
                                       std::chrono::steady_clock::time_point deadline) override {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!key_.empty()) headers.emplace_back("x-api-key", key_);
    auto body =
        get("/graph/v1/paper/search?limit=" + std::to_string(n) +
                "&fields=title,abstract,year,publicationDate,venue,authors,externalIds,url,citationCount&query=" +
                url_encode(query),
            deadline, headers);
    if (!body) return body.status();
    return tag(parse_semantic_scholar(*body), n);
  }

 private:
  std::string key_;
};

}  // namespace

std::string LiteratureConfig::default_base_url(const std::string& source) const {
  auto it = base_urls.find(source);
  if (it != base_urls.end() && !it->second.empty()) return it->second;
  static const std::map<std::string, std::string> kDefaults = {
      {"pubmed", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"},
      {"europepmc", "https://www.ebi.ac.uk/europepmc/webservices/rest"},
      {"clinicaltrials", "https://clinicaltrials.gov/api/v2"},
      {"arxiv", "https://export.arxiv.org/api"},
      {"semantic_scholar", "https://api.semanticscholar.org"}};
  auto d = kDefaults.find(source);
  return d == kDefaults.end() ? "" : d->second;
}

const std::vector<std::string>& source_names() {
  static const std::vector<std::string> kNames = {"pubmed", "europepmc", "clinicaltrials", "arxiv", "semantic_scholar"};
  return kNames;
}

std::unique_ptr<SearchSource> make_source(const std::string& name, HttpClient& http, const LiteratureConfig& c) {
  std::string base = c.default_base_url(name);
  if (name == "pubmed") return std::make_unique<PubMed>(http, base, c.ncbi_api_key);
  if (name == "europepmc") return std::make_unique<EuropePmc>(http, base);
  if (name == "clinicaltrials") return std::make_unique<ClinicalTrials>(http, base);
  if (name == "arxiv") return std::make_unique<Arxiv>(http, base);
  if (name == "semantic_scholar") return std::make_unique<SemanticScholar>(http, base, c.semantic_scholar_api_key);
  return nullptr;
}

}  // namespace bioagent
