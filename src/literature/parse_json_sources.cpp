// JSON literature sources: Europe PMC, ClinicalTrials.gov v2, Semantic Scholar.
#include <set>

#include "bioagent/json_get.h"
#include "bioagent/json_text.h"
#include "bioagent/literature.h"
#include "literature/xml_util.h"

namespace bioagent {
namespace {

Result<Json> parse_json(std::string_view text, const char* what) {
  Json j = parse_json_bounded(text);
  if (j.is_discarded()) return parse_error(std::string(what) + " answer is not valid JSON");
  return j;
}

// Outside answers may hold any type anywhere: every read goes through json_member,
// json_items and str, which answer a missing or wrongly typed field with null, [] or "".
std::string str(const Json& j, const char* key) {
  const Json& v = json_member(j, key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return "";
}

// Relevance from the rank: the first answer 1.0, then gently down.
double rank_relevance(size_t i, size_t n) {
  return n <= 1 ? 1.0 : 1.0 - 0.5 * static_cast<double>(i) / static_cast<double>(n - 1);
}

// Removes simple HTML markup Europe PMC leaves in abstracts (<h4>, <i>, <sup>).
std::string strip_tags(const std::string& s) {
  std::string out;
  bool in_tag = false;
  for (char c : s) {
    if (c == '<')
      in_tag = true;
    else if (c == '>' && in_tag) {
      in_tag = false;
      out += ' ';
    } else if (!in_tag)
      out += c;
  }
  return fold_space(out);
}

}  // namespace

Result<std::vector<Evidence>> parse_europepmc(std::string_view text) {
  auto j = parse_json(text, "Europe PMC");
  if (!j) return j.status();
  if (!json_member(*j, "resultList").is_object()) {
    if (j->contains("errCode") || j->contains("error"))
      return Status(ErrorCode::kToolFailed, "Europe PMC error: " + j->dump().substr(0, 300));
    return parse_error("Europe PMC answer has no resultList");
  }
  const Json& results = json_items(json_member(json_member(*j, "resultList"), "result"));
  std::vector<Evidence> out;
  for (size_t i = 0; i < results.size(); ++i) {
    const Json& r = results[i];
    Evidence e;
    Citation& c = e.citation;
    c.source = "europepmc";
    c.title = fold_space(str(r, "title"));
    c.doi = str(r, "doi");
    c.pmid = str(r, "pmid");
    c.date = str(r, "firstPublicationDate");
    if (c.date.empty()) c.date = str(r, "pubYear");
    c.venue = str(json_member(json_member(r, "journalInfo"), "journal"), "title");
    if (c.venue.empty()) c.venue = str(r, "bookOrReportDetails");
    if (const Json& list = json_items(json_member(json_member(r, "authorList"), "author")); !list.empty()) {
      for (auto& a : list) {
        std::string name = str(a, "fullName");
        if (name.empty()) name = str(a, "collectiveName");
        if (!name.empty()) c.authors.push_back(name);
      }
    } else if (!str(r, "authorString").empty()) {
      std::string s = str(r, "authorString");
      size_t start = 0;
      while (start < s.size()) {
        size_t comma = s.find(", ", start);
        std::string a = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!a.empty() && a.back() == '.') a.pop_back();
        if (!a.empty()) c.authors.push_back(a);
        if (comma == std::string::npos) break;
        start = comma + 2;
      }
    }
    // Links: the DOI first, then PubMed, then Europe PMC's own page.
    if (!c.doi.empty())
      c.url = "https://doi.org/" + c.doi;
    else if (!c.pmid.empty())
      c.url = "https://pubmed.ncbi.nlm.nih.gov/" + c.pmid + "/";
    else if (!str(r, "id").empty())
      c.url = "https://europepmc.org/article/" + str(r, "source") + "/" + str(r, "id");
    e.content = strip_tags(str(r, "abstractText"));
    bool preprint = str(r, "source") == "PPR";
    for (auto& t : json_items(json_member(json_member(r, "pubTypeList"), "pubType"))) {
      if (t.is_string() && t.get<std::string>() == "Preprint") preprint = true;
    }
    if (preprint) {
      // The marker is in the citation's source and the text a model reads as well as in the
      // title and the side field: a citation list built from sources alone still says it.
      c.source = "europepmc_preprint";
      c.title = "[PREPRINT - Not peer-reviewed] " + c.title;
      e.content = "[PREPRINT - Not peer-reviewed] " + e.content;
    }
    e.extra["preprint"] = preprint;
    if (json_member(r, "citedByCount").is_number()) e.extra["cited_by"] = json_member(r, "citedByCount");
    e.relevance = rank_relevance(i, results.size());
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

std::string joined(const Json& names) {
  std::string out;
  for (auto& n : json_items(names)) {
    if (!n.is_string() || n.get<std::string>().empty()) continue;
    out += (out.empty() ? "" : "; ") + n.get<std::string>();
  }
  return out;
}

// The primary outcome measures as the registry states them: measure, time frame, description.
Json primary_outcomes(const Json& protocol) {
  Json out = Json::array();
  for (auto& o : json_items(json_member(json_member(protocol, "outcomesModule"), "primaryOutcomes"))) {
    std::string measure = fold_space(str(o, "measure"));
    if (measure.empty()) continue;
    out.push_back({{"measure", measure},
                   {"time_frame", fold_space(str(o, "timeFrame"))},
                   {"description", fold_space(str(o, "description"))}});
  }
  return out;
}

// Whether the registry holds posted results, and since when: a record that does not say
// (a search asked for fewer fields) is "not stated", never "no".
struct ResultsPosted {
  Json posted;  // true, false, or null when the record does not say
  std::string first_posted;
  std::string text() const {
    if (posted.is_null()) return "Results posted: not stated in the record.";
    if (!posted.get<bool>()) return "Results posted: no.";
    return "Results posted: yes" + (first_posted.empty() ? std::string() : " (first posted " + first_posted + ")") +
           ".";
  }
};

ResultsPosted results_posted(const Json& study, const Json& status) {
  ResultsPosted r;
  const std::string first = str(json_member(status, "resultsFirstPostDateStruct"), "date");
  if (json_member(study, "hasResults").is_boolean())
    r.posted = json_member(study, "hasResults").get<bool>();
  else if (!first.empty())
    r.posted = true;
  if (r.posted.is_boolean() && r.posted.get<bool>()) r.first_posted = first;
  return r;
}

// The trial's registry facts as the first lines of its evidence text, so a model
// reading only the text sees the phase, status, conditions, interventions, primary
// outcome measures and whether results are posted.
std::string trial_header(const std::string& nct, const std::string& status, const std::string& phase,
                         const Json& conditions, const Json& interventions, const Json& outcomes,
                         const ResultsPosted& results) {
  std::string h = "Trial " + nct + ". Status: " + (status.empty() ? "not given" : status) +
                  ". Phase: " + (phase.empty() ? "not given" : phase) + ".";
  std::string c = joined(conditions), iv = joined(interventions);
  if (!c.empty()) h += " Conditions: " + c + ".";
  if (!iv.empty()) h += " Interventions: " + iv + ".";
  std::string measures;
  for (auto& o : outcomes) {
    std::string m = o["measure"].get<std::string>();
    if (!o["time_frame"].get<std::string>().empty()) m += " (time frame: " + o["time_frame"].get<std::string>() + ")";
    measures += (measures.empty() ? "" : "; ") + m;
  }
  h += measures.empty() ? " Primary outcome measures: not stated in the record."
                        : " Primary outcome measures: " + measures + ".";
  return h + " " + results.text() + "\n";
}

}  // namespace

Result<std::vector<Evidence>> parse_ctgov(std::string_view text) {
  auto j = parse_json(text, "ClinicalTrials.gov");
  if (!j) return j.status();
  Json studies;
  if (json_member(*j, "studies").is_array())
    studies = json_member(*j, "studies");
  else if (json_member(*j, "protocolSection").is_object())
    studies = Json::array({*j});  // one study
  else
    return parse_error("ClinicalTrials.gov answer has no studies");
  static const std::set<std::string> kStatuses = {"COMPLETED", "ACTIVE_NOT_RECRUITING", "RECRUITING",
                                                  "ENROLLING_BY_INVITATION"};
  std::vector<Evidence> out;
  for (size_t i = 0; i < studies.size(); ++i) {
    const Json& p = json_member(studies[i], "protocolSection");
    const Json& id = json_member(p, "identificationModule");
    const Json& status = json_member(p, "statusModule");
    const Json& design = json_member(p, "designModule");
    std::string overall = str(status, "overallStatus");
    std::string type = str(design, "studyType");
    if (!type.empty() && type != "INTERVENTIONAL") continue;
    if (!overall.empty() && !kStatuses.count(overall)) continue;
    Evidence e;
    Citation& c = e.citation;
    c.source = "clinicaltrials";
    std::string nct = str(id, "nctId");
    c.title = str(id, "briefTitle");
    if (c.title.empty()) c.title = str(id, "officialTitle");
    c.url = "https://clinicaltrials.gov/study/" + nct;
    c.date = str(json_member(status, "startDateStruct"), "date");
    c.venue = "ClinicalTrials.gov";
    std::string sponsor = str(json_member(json_member(p, "sponsorCollaboratorsModule"), "leadSponsor"), "name");
    if (!sponsor.empty()) c.authors.push_back(sponsor);
    Json conditions = Json::array();
    for (auto& name : json_items(json_member(json_member(p, "conditionsModule"), "conditions")))
      if (name.is_string()) conditions.push_back(name);
    Json interventions = Json::array();
    for (auto& iv : json_items(json_member(json_member(p, "armsInterventionsModule"), "interventions")))
      interventions.push_back(str(iv, "name"));
    std::string summary = str(json_member(p, "descriptionModule"), "briefSummary");
    std::string phase_text;
    for (auto& ph : json_items(json_member(design, "phases")))
      if (ph.is_string()) phase_text += (phase_text.empty() ? "" : "/") + ph.get<std::string>();
    const Json outcomes = primary_outcomes(p);
    const ResultsPosted results = results_posted(studies[i], status);
    e.content =
        trial_header(nct, overall, phase_text, conditions, interventions, outcomes, results) + fold_space(summary);
    e.extra = {{"nct_id", nct},
               {"status", overall},
               {"phase", phase_text},
               {"conditions", conditions},
               {"interventions", interventions},
               {"start_date", c.date},
               {"completion_date", str(json_member(status, "completionDateStruct"), "date")},
               {"primary_outcomes", outcomes},
               {"has_results", results.posted},
               {"results_first_posted", results.first_posted.empty() ? Json() : Json(results.first_posted)}};
    e.relevance = rank_relevance(i, studies.size());
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

Evidence s2_paper(const Json& p) {
  Evidence e;
  Citation& c = e.citation;
  c.source = "semantic_scholar";
  c.title = fold_space(str(p, "title"));
  if (json_member(p, "year").is_number()) c.date = std::to_string(json_member(p, "year").get<int64_t>());
  if (!str(p, "publicationDate").empty()) c.date = str(p, "publicationDate");
  c.venue = str(p, "venue");
  if (c.venue.empty()) c.venue = str(json_member(p, "journal"), "name");
  c.doi = str(json_member(p, "externalIds"), "DOI");
  c.pmid = str(json_member(p, "externalIds"), "PubMed");
  for (auto& a : json_items(json_member(p, "authors"))) {
    if (!str(a, "name").empty()) c.authors.push_back(str(a, "name"));
  }
  c.url = str(p, "url");
  if (c.url.empty() && !str(p, "paperId").empty()) c.url = "https://www.semanticscholar.org/paper/" + str(p, "paperId");
  e.content = fold_space(str(p, "abstract"));
  if (e.content.empty()) e.content = str(json_member(p, "tldr"), "text");
  if (json_member(p, "citationCount").is_number()) e.extra["cited_by"] = json_member(p, "citationCount");
  if (json_member(p, "matchScore").is_number()) e.extra["match_score"] = json_member(p, "matchScore");
  return e;
}

}  // namespace

Result<std::vector<Evidence>> parse_semantic_scholar(std::string_view text) {
  auto j = parse_json(text, "Semantic Scholar");
  if (!j) return j.status();
  Json papers;
  if (j->is_array())
    papers = *j;
  else if (json_member(*j, "data").is_array())
    papers = json_member(*j, "data");
  else if (j->is_object() && (j->contains("paperId") || j->contains("title")))
    papers = Json::array({*j});
  else if (j->is_object() && j->contains("error"))
    return not_found("Semantic Scholar: " + str(*j, "error"));
  else if (j->is_object() && j->contains("message"))
    return Status(ErrorCode::kToolFailed, "Semantic Scholar: " + str(*j, "message"));
  else
    return parse_error("Semantic Scholar answer has neither data nor a paper");
  std::vector<Evidence> out;
  for (size_t i = 0; i < papers.size(); ++i) {
    if (!papers[i].is_object()) continue;  // batch answers hold null for unknown ids
    Evidence e = s2_paper(papers[i]);
    e.relevance = rank_relevance(i, papers.size());
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace bioagent
