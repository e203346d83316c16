#include <algorithm>
#include <cstring>
#include <map>

#include "bioagent/literature.h"
#include "literature/xml_util.h"

namespace bioagent {

std::string fold_space(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string xml_text(pugi::xml_node node) {
  if (node.type() == pugi::node_pcdata || node.type() == pugi::node_cdata) return fold_space(node.value());
  struct Walker : pugi::xml_tree_walker {
    std::string out;
    bool for_each(pugi::xml_node& n) override {
      if (n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata) {
        out += n.value();  // inline markup (<i>, <sup>) joins without spaces: H<sub>2</sub>O is H2O
      }
      return true;
    }
  } w;
  node.traverse(w);
  return fold_space(w.out);
}

Json Evidence::to_json() const {
  Json c = {{"source", citation.source}, {"title", citation.title},     {"url", citation.url},
            {"date", citation.date},     {"authors", citation.authors}, {"doi", citation.doi},
            {"pmid", citation.pmid},     {"venue", citation.venue}};
  Json out = {{"content", content}, {"citation", c}, {"relevance", relevance}};
  if (!extra.empty()) out["extra"] = extra;
  return out;
}

Evidence Evidence::from_json(const Json& j) {
  Evidence e;
  e.content = j.value("content", "");
  e.relevance = j.value("relevance", 0.0);
  e.extra = j.value("extra", Json::object());
  const Json c = j.value("citation", Json::object());
  e.citation.source = c.value("source", "");
  e.citation.title = c.value("title", "");
  e.citation.url = c.value("url", "");
  e.citation.date = c.value("date", "");
  e.citation.doi = c.value("doi", "");
  e.citation.pmid = c.value("pmid", "");
  e.citation.venue = c.value("venue", "");
  if (c.contains("authors") && c["authors"].is_array()) {
    for (auto& a : c["authors"]) {
      if (a.is_string()) e.citation.authors.push_back(a.get<std::string>());
    }
  }
  return e;
}

std::string normalize_doi(std::string_view doi) {
  std::string d(doi);
  for (char& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  d = fold_space(d);
  for (const char* prefix : {"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
                             "doi.org/", "doi:", "doi "}) {
    if (d.rfind(prefix, 0) == 0) d = d.substr(std::strlen(prefix));
  }
  d.erase(0, d.find_first_not_of(' '));
  while (!d.empty() && (d.back() == '.' || d.back() == ' ')) d.pop_back();
  return d;
}

std::string normalize_title(std::string_view title) {
  std::string out;
  for (unsigned char c : title) {
    if (std::isalnum(c))
      out += static_cast<char>(std::tolower(c));
    else if (c >= 0x80)
      out += static_cast<char>(c);  // keep non-ASCII letters as they are
  }
  return out;
}

std::string first_author_surname(const std::vector<std::string>& authors) {
  if (authors.empty()) return "";
  std::string a = fold_space(authors.front());
  // "Smith J", "Smith, John" → Smith; "John Smith" → Smith.
  size_t comma = a.find(',');
  std::string surname;
  if (comma != std::string::npos) {
    surname = a.substr(0, comma);
  } else {
    size_t space = a.rfind(' ');
    std::string last = space == std::string::npos ? a : a.substr(space + 1);
    bool initials = !last.empty() && last.size() <= 3 && std::all_of(last.begin(), last.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) || c == '.';
    });
    surname = initials && space != std::string::npos ? a.substr(0, a.find(' ')) : last;
  }
  return normalize_title(surname);
}

std::vector<Evidence> deduplicate(std::vector<Evidence> records) {
  std::vector<Evidence> out;
  std::map<std::string, size_t> by_doi, by_title;
  auto fill = [](Evidence& kept, const Evidence& other) {
    Citation& k = kept.citation;
    const Citation& o = other.citation;
    if (k.doi.empty()) k.doi = o.doi;
    if (k.pmid.empty()) k.pmid = o.pmid;
    if (k.venue.empty()) k.venue = o.venue;
    if (k.date.empty()) k.date = o.date;
    if (k.url.empty()) k.url = o.url;
    if (k.authors.empty()) k.authors = o.authors;
    if (kept.content.empty()) kept.content = other.content;
    Json also = kept.extra.value("also_found_in", Json::array());
    also.push_back(o.source);
    kept.extra["also_found_in"] = also;
  };
  for (auto& e : records) {
    std::string doi = normalize_doi(e.citation.doi);
    std::string key = normalize_title(e.citation.title) + "|" + first_author_surname(e.citation.authors);
    bool titled = !normalize_title(e.citation.title).empty();
    // DOI first; title + first author only where one of the two records has no
    // DOI: two different DOIs are two papers, whatever their titles say.
    auto hit = !doi.empty() && by_doi.count(doi) ? by_doi.find(doi) : by_doi.end();
    size_t at = std::string::npos;
    if (hit != by_doi.end())
      at = hit->second;
    else if (titled && by_title.count(key) && (doi.empty() || out[by_title[key]].citation.doi.empty()))
      at = by_title[key];
    if (at != std::string::npos) {
      fill(out[at], e);
      if (!doi.empty()) by_doi.emplace(doi, at);
      continue;
    }
    out.push_back(std::move(e));
    if (!doi.empty()) by_doi.emplace(doi, out.size() - 1);
    if (titled) by_title.emplace(key, out.size() - 1);
  }
  return out;
}

}  // namespace bioagent
