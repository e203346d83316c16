// `bioagent papers add|list|info|remove`: the paper library from the command line.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "bioagent/digest.h"
#include "bioagent/http.h"
#include "bioagent/json_text.h"
#include "bioagent/papers.h"
#include "cli/commands.h"

namespace bioagent::cli {
namespace {

Result<std::unique_ptr<PaperLibrary>> open_library(const GlobalOptions& g) {
  auto s = Session::open(g);
  if (!s) return s.status();
  auto dense = embedders_from_options(s->tool_options);
  if (!dense) return dense.status();
  return PaperLibrary::open(s->tool_options["papers_db"], std::move(*dense));
}

// A PDF from a URL, through the product's HTTP client (cache, offline mode,
// private-address guard), saved under the cache folder by the URL's digest.
Result<std::filesystem::path> download_pdf(const GlobalOptions& g, const std::string& url) {
  auto s = Session::open(g);
  if (!s) return s.status();
  HttpOptions o = http_options([&](const std::string& k) {
    auto it = s->tool_options.find(k);
    return it == s->tool_options.end() ? std::string() : it->second;
  });
  o.max_body_bytes = size_t(256) << 20;  // whole PDFs
  std::string cache = s->tool_options["cache_dir"];
  auto http = HttpClient::create(o);
  if (!http) return http.status();
  HttpRequest req;
  req.url = url;
  req.source = "fetch";
  req.timeout = std::chrono::seconds(120);
  auto resp = (*http)->fetch(req);
  if (!resp) return resp.status();
  if (resp->status != 200)
    return Status(ErrorCode::kUnavailable, "HTTP " + std::to_string(resp->status) + " for " + url);
  if (resp->body.rfind("%PDF", 0) != 0) return parse_error(url + " did not return a PDF");
  std::filesystem::path dir =
      (cache.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(cache)) / "downloads";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path file = dir / (sha256_hex(url).substr(0, 24) + ".pdf");
  std::ofstream(file, std::ios::binary) << resp->body;
  return file;
}

// The PDFs the inputs name: files as given, every .pdf under a folder, URLs
// downloaded (url_of: downloaded file -> its URL); a failed download is a result.
struct PdfInputs {
  std::vector<std::filesystem::path> files;
  std::map<std::string, std::string> url_of;
  Json results = Json::array();
  size_t download_failures = 0;
};

PdfInputs collect_pdfs(const GlobalOptions& g, const std::vector<std::string>& inputs) {
  PdfInputs out;
  for (auto& in : inputs) {
    std::error_code ec;
    if (in.rfind("http://", 0) == 0 || in.rfind("https://", 0) == 0) {
      auto file = download_pdf(g, in);
      if (!file) {
        ++out.download_failures;
        std::cerr << in << ": " << file.status().message() << "\n";
        out.results.push_back({{"url", in}, {"error", file.status().to_json()}});
        continue;
      }
      out.url_of[file->string()] = in;
      out.files.push_back(*file);
    } else if (std::filesystem::is_directory(in, ec)) {
      for (auto& e : std::filesystem::recursive_directory_iterator(in, ec))
        if (e.path().extension() == ".pdf" || e.path().extension() == ".PDF") out.files.push_back(e.path());
    } else {
      out.files.emplace_back(in);
    }
  }
  std::sort(out.files.begin(), out.files.end());
  return out;
}

// `papers add`: every PDF ingested with progress on stderr, the reports as JSON; 1 when any failed.
int add_pdfs(const GlobalOptions& g, const std::vector<std::string>& inputs, unsigned workers) {
  auto lib = open_library(g);
  if (!lib) return print_error(lib.status());
  PdfInputs in = collect_pdfs(g, inputs);
  const auto& files = in.files;
  Json& results = in.results;
  size_t written = 0;
  size_t failed = (*lib)->add_many(files, workers, [&](size_t i, const Result<IngestReport>& r) {
    ++written;
    std::cerr << "[" << written << "/" << files.size() << "] " << files[i].string()
              << (r ? (r->already_present ? " (already in the library)" : "") : " FAILED: " + r.status().message())
              << "\n";
    results.push_back(r ? r->to_json() : Json{{"pdf_path", files[i].string()}, {"error", r.status().to_json()}});
    if (r && in.url_of.count(files[i].string())) {
      if (Status s = (*lib)->set_download_url(r->paper_id, in.url_of[files[i].string()]); s.is_ok()) {
        results.back()["download_url"] = in.url_of[files[i].string()];
      } else {  // the paper is in the library; only its source link is missing, and the output says so
        results.back()["download_url_error"] = s.to_json();
        std::cerr << "  could not save the download URL: " << s.message() << "\n";
        ++in.download_failures;
      }
    }
  });
  failed += in.download_failures;
  std::cout << json_text(Json{{"added", results}, {"failed", failed}}, 2) << std::endl;
  return failed ? 1 : 0;
}

void add_add_command(CLI::App* papers, GlobalOptions& g) {
  auto* add =
      papers->add_subcommand("add", "Ingest PDF files (or every PDF in folders); re-adding a file does nothing");
  static std::vector<std::string> inputs;
  add->add_option("files", inputs, "PDF files, folders, or http(s) URLs of PDFs")->required();
  static unsigned workers = 0;
  add->add_option("--workers", workers, "Extraction threads (default: one per core)");
  add->callback([&g] { g.exit_code = add_pdfs(g, inputs, workers); });
}

void add_list_command(CLI::App* papers, GlobalOptions& g) {
  auto* list = papers->add_subcommand("list", "List the papers in the library");
  list->callback([&g] {
    auto lib = open_library(g);
    auto r = lib ? (*lib)->list() : Result<Json>(lib.status());
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    std::cout << json_text(*r, 2) << std::endl;
  });
}

void add_info_command(CLI::App* papers, GlobalOptions& g) {
  static std::string id;
  auto* info = papers->add_subcommand("info", "Show one paper: metadata and what was extracted");
  info->add_option("paper_id", id, "Paper id (see papers list)")->required();
  info->callback([&g] {
    auto lib = open_library(g);
    auto r = lib ? (*lib)->info(id) : Result<Json>(lib.status());
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    std::cout << json_text(*r, 2) << std::endl;
  });
}

void add_remove_command(CLI::App* papers, GlobalOptions& g) {
  static std::string id;
  auto* remove = papers->add_subcommand("remove", "Delete a paper and everything extracted from it");
  remove->add_option("paper_id", id, "Paper id")->required();
  remove->callback([&g] {
    auto lib = open_library(g);
    Status s = lib ? (*lib)->remove(id) : lib.status();
    if (!s.is_ok()) {
      g.exit_code = print_error(s);
      return;
    }
    std::cout << json_text(Json{{"removed", id}}, 2) << std::endl;
  });
}

}  // namespace

void add_papers_commands(CLI::App& app, GlobalOptions& g) {
  auto* papers = app.add_subcommand("papers", "The paper library: ingest PDFs and inspect what is stored");
  papers->require_subcommand(1);
  add_add_command(papers, g);
  add_list_command(papers, g);
  add_info_command(papers, g);
  add_remove_command(papers, g);
}

}  // namespace bioagent::cli
