// PubMed E-utilities responses: ESearch (ids) and EFetch (PubmedArticleSet).
// pugixml never reads a DTD or expands external entities, so the DOCTYPE lines
// of NCBI's answers are inert.
#include <pugixml.hpp>

#include <cstring>

#include "bioagent/literature.h"
#include "literature/xml_util.h"

namespace bioagent {

Result<EsearchResult> parse_esearch(std::string_view xml) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(xml.data(), xml.size());
  if (!r) return parse_error(std::string("PubMed ESearch answer is not XML: ") + r.description());
  pugi::xml_node root = doc.child("eSearchResult");
  if (!root) return parse_error("PubMed ESearch answer has no eSearchResult element");
  if (pugi::xml_node err = root.child("ERROR"))
    return Status(ErrorCode::kToolFailed, std::string("PubMed ESearch error: ") + err.text().get());
  EsearchResult out;
  out.count = root.child("Count").text().as_ullong();
  for (pugi::xml_node id : root.child("IdList").children("Id")) out.ids.push_back(id.text().get());
  return out;
}

namespace {

const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};

std::string pub_date(pugi::xml_node article) {
  pugi::xml_node d = article.child("Journal").child("JournalIssue").child("PubDate");
  std::string year = d.child("Year").text().get();
  if (year.empty()) {
    std::string medline = d.child("MedlineDate").text().get();  // "1998 Dec-1999 Jan"
    return medline.substr(0, 4);
  }
  std::string month = d.child("Month").text().get();
  if (month.empty()) return year;
  std::string m;
  if (std::isdigit(static_cast<unsigned char>(month[0]))) {
    m = month.size() == 1 ? "0" + month : month.substr(0, 2);
  } else {
    std::string low = month.substr(0, 3);
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (int i = 0; i < 12; ++i) {
      if (low == kMonths[i]) m = (i < 9 ? "0" : "") + std::to_string(i + 1);
    }
  }
  if (m.empty()) return year;
  std::string day = d.child("Day").text().get();
  if (day.empty()) return year + "-" + m;
  return year + "-" + m + "-" + (day.size() == 1 ? "0" + day : day);
}

}  // namespace

Result<std::vector<Evidence>> parse_pubmed_efetch(std::string_view xml) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(xml.data(), xml.size());
  if (!r) return parse_error(std::string("PubMed EFetch answer is not XML: ") + r.description());
  pugi::xml_node set = doc.child("PubmedArticleSet");
  if (!set) return parse_error("PubMed EFetch answer has no PubmedArticleSet element");
  std::vector<Evidence> out;
  for (pugi::xml_node pa : set.children("PubmedArticle")) {
    pugi::xml_node mc = pa.child("MedlineCitation");
    pugi::xml_node art = mc.child("Article");
    Evidence e;
    Citation& c = e.citation;
    c.source = "pubmed";
    c.pmid = mc.child("PMID").text().get();
    c.title = xml_text(art.child("ArticleTitle"));
    c.venue = xml_text(art.child("Journal").child("Title"));
    c.date = pub_date(art);
    c.url = c.pmid.empty() ? "" : "https://pubmed.ncbi.nlm.nih.gov/" + c.pmid + "/";
    for (pugi::xml_node a : art.child("AuthorList").children("Author")) {
      std::string last = a.child("LastName").text().get();
      std::string fore = a.child("ForeName").text().get();
      std::string coll = xml_text(a.child("CollectiveName"));
      if (!last.empty())
        c.authors.push_back(fore.empty() ? last : fore + " " + last);
      else if (!coll.empty())
        c.authors.push_back(coll);
    }
    for (pugi::xml_node id : pa.child("PubmedData").child("ArticleIdList").children("ArticleId")) {
      if (c.doi.empty() && std::strcmp(id.attribute("IdType").value(), "doi") == 0) c.doi = id.text().get();
    }
    if (c.doi.empty()) {
      for (pugi::xml_node id : art.children("ELocationID")) {
        if (std::strcmp(id.attribute("EIdType").value(), "doi") == 0) c.doi = id.text().get();
      }
    }
    // Structured abstracts keep their section labels: "BACKGROUND: ...".
    std::string abstract;
    for (pugi::xml_node t : art.child("Abstract").children("AbstractText")) {
      std::string label = t.attribute("Label").value();
      std::string text = xml_text(t);
      if (text.empty()) continue;
      if (!abstract.empty()) abstract += "\n";
      abstract += label.empty() ? text : label + ": " + text;
    }
    e.content = abstract;
    Json mesh = Json::array(), types = Json::array();
    for (pugi::xml_node h : mc.child("MeshHeadingList").children("MeshHeading"))
      mesh.push_back(h.child("DescriptorName").text().get());
    for (pugi::xml_node t : art.child("PublicationTypeList").children("PublicationType"))
      types.push_back(t.text().get());
    e.extra["mesh_terms"] = mesh;
    e.extra["publication_types"] = types;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace bioagent
