// Page cues from the paper database (see page_cues.h).
#include "papers/page_cues.h"

#include <algorithm>
#include <vector>

#include "bioagent/collections.h"
#include "papers/duckdb_conn.h"
#include "papers/question_cues.h"

namespace bioagent {

std::set<std::string> front_matter_chunk_ids(DuckDb& db) {
  std::set<std::string> out;
  auto r = db.query(
      "SELECT c.ref_paper_id::VARCHAR, c.chunk_id::VARCHAR, c.text_content, m.abstract IS NOT NULL FROM chunks c "
      "JOIN pages p ON p.page_id = c.ref_page_id JOIN metadata m ON m.paper_id = c.ref_paper_id "
      "WHERE p.page_number = 1 ORDER BY c.ref_paper_id, c.ordinal",
      {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
  if (!r) return out;  // a library without chunks
  for (size_t from = 0; from < r->rows.size();) {
    const std::string paper = r->rows[from][0].get<std::string>();
    size_t to = from;
    std::vector<std::string> texts;
    for (; to < r->rows.size() && r->rows[to][0].get<std::string>() == paper; ++to)
      texts.push_back(r->rows[to][2].get<std::string>());
    const size_t n = front_matter_chunks(texts, r->rows[from][3].get<bool>());
    for (size_t i = 0; i < n; ++i) out.insert(r->rows[from + i][1].get<std::string>());
    from = to;
  }
  return out;
}

std::map<PageKey, double> defining_pages(DuckDb& db, const std::string& query, double definition_weight,
                                         double acronym_weight) {
  std::map<PageKey, double> out;
  const std::string term = defined_term(query), acronym = asked_acronym(query);
  const std::string wanted = acronym.empty() ? term : acronym;
  if (wanted.empty()) return out;
  auto r = db.query(
      "SELECT p.ref_paper_id::VARCHAR, p.page_number, p.page_content FROM pages p "
      "WHERE strpos(lower(p.page_content), lower(?)) > 0",
      {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX}, {wanted});
  if (!r) return out;
  for (auto& row : r->rows) {
    const std::string& text = row[2].get_ref<const std::string&>();
    const PageKey key{row[0].get<std::string>(), int(row[1].get<int64_t>())};
    if (!acronym.empty() && !acronym_long_form(text, acronym).empty())
      out[key] = acronym_weight;
    else if (!term.empty() && defines_term(text, term))
      out[key] = definition_weight;
  }
  return out;
}

namespace {

// The query with the acronyms a paper introduces for long forms the query spells out ("insertion loci
// (ILs)" for a question on "insertion loci"): after its introduction a paper writes the acronym only.
std::string with_paper_acronyms(const std::string& query, const std::vector<std::string>& paper_chunks) {
  const std::vector<std::string> words = index_terms(query);
  const std::set<std::string> asked(words.begin(), words.end());
  std::string out = query;
  std::set<std::string> added;
  for (const std::string& chunk : paper_chunks)
    for (auto& [acronym, long_form] : defined_acronyms(chunk)) {
      const std::vector<std::string> spelled = index_terms(long_form), mark = index_terms(acronym);
      if (spelled.size() < 2 || mark.empty() || asked.count(mark.front()) || !added.insert(acronym).second) continue;
      if (std::all_of(spelled.begin(), spelled.end(), [&](const std::string& w) { return asked.count(w) > 0; }))
        out += " " + acronym;
    }
  return out;
}

}  // namespace

std::map<int, double> pages_ranked_within(DuckDb& db, const std::string& paper_id, const std::string& lexical_query) {
  std::map<int, double> out;
  auto r = db.query(
      "SELECT p.page_number, c.text_content FROM chunks c JOIN pages p ON p.page_id = c.ref_page_id "
      "WHERE c.ref_paper_id::VARCHAR = ? ORDER BY p.page_number, c.ordinal",
      {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX}, {paper_id});
  if (!r || r->rows.empty()) return out;
  std::vector<std::string> texts;
  for (auto& row : r->rows) texts.push_back(row[1].is_string() ? row[1].get<std::string>() : "");
  const std::vector<double> scores = bm25_among(with_paper_acronyms(lexical_query, texts), texts);
  const double best = *std::max_element(scores.begin(), scores.end());
  if (best <= 0) return out;
  for (size_t j = 0; j < scores.size(); ++j) {
    if (scores[j] <= 0) continue;
    double& page = out[int(r->rows[j][0].get<int64_t>())];
    page = std::max(page, scores[j] / best);
  }
  return out;
}

}  // namespace bioagent
