#include "papers/identifier_votes.h"

#include <cctype>
#include <cmath>

#include "papers/duckdb_conn.h"

namespace bioagent {
namespace {

bool identifier_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == ':' || c == '.'; }

bool looks_like_identifier(const std::string& w) {
  if (w.size() < 4) return false;
  size_t letters = 0, digits = 0, upper = 0, inner_upper = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(w[i]);
    letters += std::isalpha(c) != 0, digits += std::isdigit(c) != 0, upper += std::isupper(c) != 0;
    if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(w[i - 1]))) ++inner_upper;
  }
  if (letters == 0) return false;  // a number, not a name
  return digits > 0 || inner_upper > 0 || upper >= 5;
}

}  // namespace

std::vector<std::string> question_identifiers(const std::string& question) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    while (!w.empty() && (w.back() == '.' || w.back() == ':' || w.back() == '-')) w.pop_back();
    if (looks_like_identifier(w) && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    w.clear();
  };
  for (char ch : question) {
    if (identifier_char(static_cast<unsigned char>(ch)))
      w += ch;
    else
      flush();
  }
  flush();
  return out;
}

std::map<std::pair<std::string, int>, double> identifier_pages(DuckDb& db, const std::set<std::string>& visible,
                                                               const std::vector<std::string>& ids) {
  std::map<std::pair<std::string, int>, double> out;
  if (ids.empty()) return out;
  auto n = db.query("SELECT count(*) FROM pages");
  if (!n || n->rows.empty()) return out;
  const double pages = std::max<double>(1, double(n->rows[0][0].get<int64_t>()));
  std::map<std::pair<std::string, int>, double> held;
  double total = 0;
  for (auto& id : ids) {
    auto r = db.query("SELECT ref_paper_id::VARCHAR, page_number FROM pages WHERE strpos(page_content, ?) > 0",
                      {.max_rows = 10000, .max_chars = SIZE_MAX}, {id});
    if (!r || r->rows.empty()) continue;
    const double weight = std::log(1.0 + pages / double(r->rows.size()));
    total += weight;
    for (auto& row : r->rows)
      if (visible.contains(row[0].get<std::string>()))
        held[{row[0].get<std::string>(), int(row[1].get<int64_t>())}] += weight;
  }
  if (total <= 0) return out;
  for (auto& [page, w] : held) out[page] = w / total;
  return out;
}

}  // namespace bioagent
