// The text sources the router asks (see route_sources.h): the paper library,
// the evidence store, the data bundle and the plan. A text source's score is
// the share of the message's content words found together on its best page
// or record (numbers and acronyms count more), damped when fewer than two
// words match, so that one shared word is never taken for an answer.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "assistant/route_sources.h"
#include "bioagent/bundle.h"
#include "bioagent/collections.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/papers.h"
#include "bioagent/search.h"
#include "bioagent/table.h"
#include "papers/duckdb_conn.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::set<std::string> stems_of(const std::string& text) {
  std::set<std::string> out;
  for (auto& w : ascii_words(text)) out.insert(match_stem(w));
  return out;
}

// A word written as an acronym or with digits in the message ("DVT", "LC50", "Hb") says more than a common word.
double term_weight(const std::string& term, std::string_view message) {
  if (std::any_of(term.begin(), term.end(), [](unsigned char c) { return std::isdigit(c); })) return 1.5;
  std::string up = term;
  for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return message.find(up) != std::string_view::npos && term.size() <= 6 ? 1.5 : 1.0;
}

bool kb_names(const KbMatch& kb, const std::string& term) {
  std::string stem = match_stem(term);
  for (const std::string& name : {kb.family_term, kb.family_name, kb.species_name})
    if (!name.empty() && stems_of(name).count(stem)) return true;
  return false;
}

// How well one text holds the terms: {score, beyond the knowledge base's names, matched terms}.
struct Coverage {
  double score = 0, beyond_kb = 0;
  std::vector<std::string> matched;
};

Coverage cover(const std::vector<std::string>& terms, const std::set<std::string>& text, std::string_view message,
               const KbMatch& kb) {
  Coverage c;
  double all = 0, got = 0, rest = 0, rest_got = 0;
  std::set<std::string> got_stems, rest_stems;  // distinct words matched ("plant" and "plants" are one)
  for (auto& t : terms) {
    double w = term_weight(t, message);
    const std::string stem = match_stem(t);
    bool in = text.count(stem) > 0;
    all += w, got += in ? w : 0;
    if (!kb_names(kb, t)) rest += w, rest_got += in ? w : 0;
    if (in) c.matched.push_back(t), got_stems.insert(stem);
    if (in && !kb_names(kb, t)) rest_stems.insert(stem);
  }
  // One matching word is no evidence of an answer: the score grows to full weight at two.
  auto damp = [](double share, size_t n) { return share * std::min(1.0, double(n) / 2.0); };
  c.score = all > 0 ? damp(got / all, got_stems.size()) : 0;
  c.beyond_kb = rest > 0 ? damp(rest_got / rest, rest_stems.size()) : 0;
  return c;
}

void take_best(SourceMatch& s, const Coverage& c, const std::string& what) {
  if (c.score <= s.score && !(c.score == s.score && s.best.empty())) return;
  s.score = c.score;
  s.beyond_kb = c.beyond_kb;
  s.matched = c.matched;
  s.best = what;
}

std::string query_of(const std::vector<std::string>& terms) {
  std::string q;
  for (auto& t : terms) q += (q.empty() ? "" : " ") + t;
  return q;
}

}  // namespace

Json SourceMatch::to_json() const {
  Json j = {{"available", available}, {"score", score}, {"beyond_kb", beyond_kb},
            {"matched", matched},     {"best", best},   {"ms", ms}};
  if (!error.empty()) j["error"] = error;
  return j;
}

SourceMatch match_library(const std::string& papers_db, std::string_view message, const MessageForm& form,
                          const KbMatch& kb) {
  SourceMatch s;
  const auto t0 = Clock::now();
  std::error_code ec;
  if (papers_db.empty() || !std::filesystem::exists(papers_db, ec)) return s;
  auto fail = [&](const Status& st) {
    s.error = st.message();
    s.ms = ms_since(t0);
    return s;
  };
  auto db = DuckDb::open(papers_db, /*read_only=*/true);
  if (!db) return fail(db.status());
  auto papers = (*db)->query("SELECT paper_id::VARCHAR FROM metadata", {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
  if (!papers) return fail(papers.status());
  std::set<std::string> visible;
  for (auto& row : papers->rows) visible.insert(row[0].get<std::string>());
  s.available = !visible.empty();
  const std::vector<std::string> terms = source_terms(message, form);
  if (!s.available || terms.empty()) return s.ms = ms_since(t0), s;
  auto coll = Collections::open(collections_dir_for(papers_db), false, {});
  if (!coll) return fail(coll.status());
  auto hits = (*coll)->search({query_of(terms), "text_bm25_en", "chunks", "text_content", "", 20}, visible);
  if (!hits) return fail(hits.status());
  if (auto st = fill_entry_texts(**db, *hits); !st.is_ok()) return fail(st);
  // The page is the unit that answers: its chunks among the hits, read together.
  std::map<std::pair<std::string, int>, std::string> pages;
  std::vector<std::pair<std::string, int>> order;
  for (auto& h : *hits) {
    auto key = std::make_pair(h.entry.pdf_id, h.entry.page_number);
    if (!pages.count(key)) order.push_back(key);
    pages[key] += h.entry.text + "\n";
  }
  std::map<std::string, std::string> titles;
  for (auto& key : order) {
    Coverage c = cover(terms, stems_of(pages[key]), message, kb);
    take_best(s, c, key.first.substr(0, 12) + " p. " + std::to_string(key.second));
  }
  s.ms = ms_since(t0);
  return s;
}

SourceMatch match_evidence_store(const std::string& cache_dir, std::string_view message, const MessageForm& form,
                                 const KbMatch& kb) {
  SourceMatch s;
  const auto t0 = Clock::now();
  std::error_code ec;
  const std::string path = cache_dir + "/evidence.sqlite";
  if (cache_dir.empty() || !std::filesystem::exists(path, ec)) return s;
  auto store = EvidenceStore::open(path);
  if (!store) return s.error = store.status().message(), s;
  s.available = (*store)->size() > 0;
  const std::vector<std::string> terms = source_terms(message, form);
  if (s.available && !terms.empty()) {
    auto found = (*store)->search(query_of(terms), 5, Clock::now() + std::chrono::milliseconds(500));
    if (!found) {
      s.error = found.status().message();
    } else {
      for (auto& e : *found)
        take_best(s, cover(terms, stems_of(e.citation.title + "\n" + e.content), message, kb),
                  std::string(utf8_prefix(e.citation.title, 120)));
    }
  }
  s.ms = ms_since(t0);
  return s;
}

Json SessionMatch::to_json() const {
  return {{"plan", has_plan},
          {"plan_family", plan_family},
          {"plan_species", plan_species},
          {"running_task", running_task},
          {"resumable_task", resumable_task}};
}

Json RouteEvidence::to_json() const {
  return {{"knowledge_base", kb.to_json()},
          {"library", library.to_json()},
          {"evidence_store", evidence_store.to_json()},
          {"data", data.to_json()},
          {"plan", plan.to_json()},
          {"session", session.to_json()},
          {"ms", ms}};
}

}  // namespace bioagent
