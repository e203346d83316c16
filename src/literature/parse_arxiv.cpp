// arXiv API Atom feeds.
#include <pugixml.hpp>

#include <cstring>
#include <iterator>

#include "bioagent/literature.h"
#include "literature/xml_util.h"

namespace bioagent {

Result<std::vector<Evidence>> parse_arxiv(std::string_view xml) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(xml.data(), xml.size());
  if (!r) return parse_error(std::string("arXiv answer is not XML: ") + r.description());
  pugi::xml_node feed = doc.child("feed");
  if (!feed) return parse_error("arXiv answer has no Atom feed element");
  std::vector<Evidence> out;
  auto entries = feed.children("entry");
  const size_t n = static_cast<size_t>(std::distance(entries.begin(), entries.end()));
  size_t i = 0;
  for (pugi::xml_node entry : feed.children("entry")) {
    std::string id = entry.child("id").text().get();
    // arXiv reports a bad query as a single entry whose id is the error page.
    if (id.find("arxiv.org/api/errors") != std::string::npos)
      return invalid_argument("arXiv rejected the query: " + xml_text(entry.child("summary")));
    Evidence e;
    Citation& c = e.citation;
    c.source = "arxiv";
    c.title = xml_text(entry.child("title"));
    c.url = id;
    for (pugi::xml_node link : entry.children("link")) {
      if (std::strcmp(link.attribute("rel").value(), "alternate") == 0) c.url = link.attribute("href").value();
    }
    c.date = std::string(entry.child("published").text().get()).substr(0, 10);
    for (pugi::xml_node a : entry.children("author")) c.authors.push_back(xml_text(a.child("name")));
    c.doi = entry.child("arxiv:doi").text().get();
    c.venue = xml_text(entry.child("arxiv:journal_ref"));
    if (c.venue.empty()) c.venue = "arXiv";
    e.content = xml_text(entry.child("summary"));
    std::string arxiv_id = id.substr(id.rfind('/') == std::string::npos ? 0 : id.rfind('/') + 1);
    e.extra["arxiv_id"] = arxiv_id;
    e.extra["primary_category"] = entry.child("arxiv:primary_category").attribute("term").value();
    e.extra["preprint"] = true;
    e.relevance = n <= 1 ? 1.0 : 1.0 - 0.5 * static_cast<double>(i) / static_cast<double>(n - 1);
    ++i;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace bioagent
