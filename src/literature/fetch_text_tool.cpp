// fetch_text_from_urls (seed 000): each paper dict gains retrieved_text_content,
// readable text from HTML, PDF or plain text, or one of the seed's error strings.
#include <nlohmann/json.hpp>

#include "bioagent/http.h"
#include "bioagent/text_extract.h"
#include "core/isolated_call.h"
#include "literature/literature_tool_types.h"

namespace bioagent::tools {

Result<std::unique_ptr<HttpClient>> http_client_for(const ToolContext& ctx);

namespace {

std::string first_chars(const std::string& s, size_t max) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && chars++ == max) return s.substr(0, i);
  }
  return s;
}

// A PDF's text, read in a child process killed at `deadline`: MuPDF's opening
// and repair of a hostile file (a page tree of 300,000 pages, a broken cross-
// reference table) cannot be interrupted from inside, so the whole read is
// bounded in time and memory from outside. The page loop also stops at the
// deadline with what it read, one second before the child would be killed.
Result<std::string> pdf_text_within(const std::string& bytes, size_t max_chars,
                                    std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return Status(ErrorCode::kTimeout, "the time allowed for the URL ran out before reading");
  IsolationLimits iso;
  iso.memory_bytes = size_t(1) << 30;
  iso.deadline = left + std::chrono::seconds(1);
  iso.what = "reading the PDF";
  auto r = run_isolated(
      [&]() -> Result<Json> {
        auto text = pdf_to_text(bytes, max_chars, deadline);
        if (!text) return text.status();
        return Json(std::move(*text));
      },
      iso);
  if (!r) return r.status();
  return r->is_string() ? r->get<std::string>() : std::string();
}

bool plausible_url(const std::string& u) {
  return (u.rfind("http://", 0) == 0 || u.rfind("https://", 0) == 0) && u.size() > 10 &&
         u.find_first_of(" \n\r\t") == std::string::npos;
}

}  // namespace

Result<Json> fetch_text_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  auto http = http_client_for(ctx);
  if (!http) return http.status();
  const size_t max_chars = args.value("max_chars_per_paper", 15000);
  const size_t max_bytes = spec.settings.value("max_download_bytes", size_t{25} << 20);
  Json out = Json::array();
  const Json& papers = args.at("paper_info_list");
  for (size_t i = 0; i < papers.size(); ++i) {
    BIOAGENT_RETURN_IF_ERROR(ctx.check());
    ctx.progress(static_cast<double>(i), static_cast<double>(papers.size()), "fetching paper text");
    Json paper = papers[i];
    std::string url = paper.contains("url") && paper["url"].is_string() ? paper["url"].get<std::string>() : "";
    if (!plausible_url(url)) {
      paper["retrieved_text_content"] = "Error: Invalid or missing URL.";
      out.push_back(std::move(paper));
      continue;
    }
    HttpRequest req;
    req.url = url;
    req.source = "fetch";
    req.timeout = std::chrono::seconds(30);
    // One overall deadline per URL: retries share the 30 s, they do not each get it.
    req.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    req.headers = {{"Accept", "text/html,application/pdf,text/plain;q=0.9,*/*;q=0.5"}};
    auto r = (*http)->fetch(req);
    std::string text;
    if (!r) {
      text = "Error fetching URL: " + r.status().message();
    } else if (r->status < 200 || r->status >= 300) {
      text = "Error fetching URL: HTTP " + std::to_string(r->status);
    } else if (r->body.size() > max_bytes) {
      text = "Error fetching URL: the document is larger than " + std::to_string(max_bytes) + " bytes";
    } else {
      std::string type = r->headers.count("content-type") ? r->headers["content-type"] : "";
      switch (sniff_content(r->body, type)) {
        case ContentKind::kPdf: {
          // Reading shares the URL's deadline with the download.
          auto pdf = pdf_text_within(r->body, max_chars, *req.deadline);
          text = pdf ? *pdf : "Error fetching URL: " + pdf.status().message();
          break;
        }
        case ContentKind::kHtml:
          text = html_to_text(r->body);
          break;
        case ContentKind::kText:
          text = r->body;
          break;
        case ContentKind::kBinary:
          text.clear();
          break;
      }
      bool blank = text.find_first_not_of(" \n\r\t") == std::string::npos;
      if (blank) text = "Error: No text could be extracted.";
    }
    paper["retrieved_text_content"] = first_chars(text, max_chars);
    out.push_back(std::move(paper));
  }
  return out;
}

}  // namespace bioagent::tools
