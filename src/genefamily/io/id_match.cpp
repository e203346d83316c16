// Records matched to GFF3 genes and transcripts by their identifiers' normal forms (see id_match.h).
#include "genefamily/io/id_match.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <unordered_map>

namespace bioagent {
namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with_icase(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != p[i]) return false;
  return true;
}

// "gene:X", "mrna:X", "CDS:X" (a word of letters and a colon) and NCBI's "rna-X", "cds-X",
// "gene-X", "id-X" without the type.
std::string_view drop_type_prefix(std::string_view id) {
  size_t colon = id.find(':');
  if (colon != std::string_view::npos && colon > 0 && colon + 1 < id.size() &&
      std::all_of(id.begin(), id.begin() + long(colon), [](char c) { return is_alpha(c) || c == '_'; }))
    return id.substr(colon + 1);
  for (const char* p : {"gene-", "rna-", "mrna-", "cds-", "exon-", "id-", "transcript-", "protein-"})
    if (id.size() > std::strlen(p) + 1 && starts_with_icase(id, p)) return id.substr(std::strlen(p));
  return id;
}

// Without a version suffix: Phytozome's ".v3.0"/".v1.1" (a "vN" part and numbers to the end),
// an annotation's ".Araport11.447" (a last number after a word of three or more letters;
// ".t1.2" is an isoform, not a version).
std::string_view drop_version(std::string_view id) {
  std::vector<size_t> dots;  // the positions of the '.' separating id's parts
  for (size_t i = 0; i < id.size(); ++i)
    if (id[i] == '.') dots.push_back(i);
  auto part = [&](size_t k) {  // the k-th part after the first, k < dots.size()
    size_t from = dots[k] + 1, to = k + 1 < dots.size() ? dots[k + 1] : id.size();
    return id.substr(from, to - from);
  };
  auto digits = [](std::string_view p) { return !p.empty() && std::all_of(p.begin(), p.end(), is_digit); };
  for (size_t k = 0; k < dots.size(); ++k) {
    std::string_view p = part(k);
    if (dots[k] == 0 || p.size() < 2 || (p[0] != 'v' && p[0] != 'V') || !digits(p.substr(1))) continue;
    bool numbers_after = true;
    for (size_t j = k + 1; j < dots.size(); ++j) numbers_after &= digits(part(j));
    if (numbers_after) return id.substr(0, dots[k]);
  }
  if (dots.size() >= 2 && digits(part(dots.size() - 1))) {
    std::string_view w = part(dots.size() - 2);
    const size_t letters = size_t(std::count_if(w.begin(), w.end(), is_alpha));
    if (!w.empty() && is_alpha(w[0]) && letters >= 3 &&
        std::all_of(w.begin(), w.end(), [](char c) { return is_alnum(c) || c == '_'; }))
      return id.substr(0, dots[dots.size() - 2]);
  }
  return id;
}

// The isoform letter of proteins and transcripts made one: -PA/-RA -> -#A, _P001/_T001 -> _#001,
// .p1/.t1 -> .#1.
std::string canonical_isoform(std::string id) {
  const size_t n = id.size();
  size_t dash = id.rfind('-');
  if (dash != std::string::npos && dash + 2 <= n - 1 && n - dash <= 4 && (id[dash + 1] == 'P' || id[dash + 1] == 'R') &&
      std::all_of(id.begin() + long(dash) + 2, id.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
    id[dash + 1] = '#';
  size_t under = id.rfind('_');
  if (under != std::string::npos && n - under == 5 && (id[under + 1] == 'P' || id[under + 1] == 'T') &&
      std::all_of(id.begin() + long(under) + 2, id.end(), is_digit))
    id[under + 1] = '#';
  size_t dot = id.rfind('.');
  if (dot != std::string::npos && dot + 2 < n + 1 && n - dot >= 3 && (id[dot + 1] == 'p' || id[dot + 1] == 't') &&
      std::all_of(id.begin() + long(dot) + 2, id.end(), is_digit))
    id[dot + 1] = '#';
  return id;
}

struct Ref {
  bool transcript;         // else a gene
  const std::string* id;   // the transcript's or gene's id in the model
  const std::string* key;  // the record key the identifier came from
  unsigned levels;         // the forms (bits 0-3) that gave this string
};

// Every record identifier of the model by each distinct normal form (levels 0-3).
class RecordIndex {
 public:
  explicit RecordIndex(const GffModel& gff) : gff_(gff) {
    static const std::string kId = "ID";
    for (auto& [id, t] : gff.transcripts) {
      add(true, id, kId, id);
      for (auto& x : t.identifiers) add(true, id, x.key, x.value);
    }
    for (auto& [id, g] : gff.genes) {
      add(false, id, kId, id);
      for (auto& x : g.identifiers) add(false, id, x.key, x.value);
    }
  }
  const std::vector<Ref>* find(const std::string& form) const {
    auto it = index_.find(form);
    return it == index_.end() ? nullptr : &it->second;
  }
  const GffModel& gff() const { return gff_; }

 private:
  void add(bool transcript, const std::string& id, const std::string& key, const std::string& value) {
    const IdForms f = id_forms(value);
    for (unsigned level = 0; level < 4; ++level) {
      if (f.form[level].empty()) continue;
      auto& refs = index_[f.form[level]];
      auto same = std::find_if(refs.begin(), refs.end(), [&](const Ref& r) {
        return r.transcript == transcript && *r.id == id && *r.key == key;
      });
      if (same != refs.end())
        same->levels |= 1u << level;
      else
        refs.push_back({transcript, &id, &key, 1u << level});
    }
  }
  const GffModel& gff_;
  std::unordered_map<std::string, std::vector<Ref>> index_;
};

struct Candidate {
  std::string scheme;
  bool transcript = false;
  int level = 0;
  IdMatch match;
};

const char* kLevelNote[] = {"", " (type prefix and case aside)", " (version suffix aside)",
                            " (protein/transcript isoform letter aside)", " (isoform suffix aside)"};

std::string record_label(const Ref& r) {
  if (!r.transcript) return "gene " + *r.key;
  if (r.key->rfind("CDS ", 0) == 0 || r.key->rfind("protein ", 0) == 0) return *r.key;
  return "mRNA " + *r.key;
}

// The record an identifier's form at `level` names, when it names one gene (and at most one of
// its transcripts); `genes_only` looks among genes (a protein id without its isoform suffix).
// False when the form is unknown; `ambiguous` when it names several genes.
bool resolve(const RecordIndex& ix, const std::string& form, unsigned level, bool genes_only, const std::string& pkey,
             Candidate& out, bool& ambiguous) {
  const std::vector<Ref>* refs = ix.find(form);
  if (!refs) return false;
  std::set<std::string> genes, transcripts;
  const Ref* first = nullptr;
  for (auto& r : *refs) {
    if (!(r.levels & (1u << level)) || (genes_only && r.transcript)) continue;
    if (!first) first = &r;
    if (r.transcript) {
      transcripts.insert(*r.id);
      const std::string& g = ix.gff().transcripts.at(*r.id).gene_id;
      genes.insert(g.empty() ? *r.id : g);
    } else {
      genes.insert(*r.id);
    }
  }
  if (!first) return false;
  if (genes.size() != 1) {
    ambiguous = true;
    return false;
  }
  out.transcript = transcripts.size() == 1;
  out.level = genes_only ? 4 : int(level);
  out.match.gene = *genes.begin();
  out.match.transcript = out.transcript ? *transcripts.begin() : "";
  const Ref* label = first;  // the record that decided: a transcript's key when one transcript matched
  for (auto& r : *refs)
    if ((r.levels & (1u << level)) && r.transcript == out.transcript && (!genes_only || !r.transcript)) {
      label = &r;
      break;
    }
  out.scheme = pkey + " = " + record_label(*label) + kLevelNote[out.level];
  return true;
}

// The candidates of one record: per identifier, the first form that names a record.
std::vector<Candidate> candidates(const RecordIndex& ix, const FastaRecord& r) {
  std::vector<Candidate> out;
  for (auto& id : header_identifiers(r)) {
    const IdForms f = id_forms(id.value);
    bool ambiguous = false, found = false;
    for (unsigned level = 0; level < 4 && !found && !ambiguous; ++level) {
      if (f.form[level].empty()) continue;
      Candidate c;
      if (resolve(ix, f.form[level], level, false, id.key, c, ambiguous)) out.push_back(c), found = true;
    }
    Candidate c;
    if (!found && !ambiguous && !f.form[4].empty() && resolve(ix, f.form[4], 2, true, id.key, c, ambiguous))
      out.push_back(c);
  }
  return out;
}

}  // namespace

IdForms id_forms(std::string_view id) {
  IdForms f;
  f.form[0] = std::string(id);
  const std::string_view clean = drop_type_prefix(id);
  const std::string_view plain = drop_version(clean);
  f.form[1] = lower(clean);
  f.form[2] = lower(plain);
  f.form[3] = lower(canonical_isoform(std::string(plain)));
  f.form[4] = lower(isoform_base(std::string(plain)));
  return f;
}

std::vector<GffIdentifier> header_identifiers(const FastaRecord& r) {
  std::vector<GffIdentifier> out = {{"FASTA id", r.id}};
  std::string_view d = r.description;
  auto next_word = [&]() {
    while (!d.empty() && (d.front() == ' ' || d.front() == '\t')) d.remove_prefix(1);
    size_t end = d.find_first_of(" \t");
    std::string_view w = d.substr(0, end);
    d.remove_prefix(end == std::string_view::npos ? d.size() : end);
    return w;
  };
  auto parts = [&](std::string_view word, const char* key) {
    for (size_t p = 0; p < word.size();) {
      size_t bar = word.find('|', p);
      std::string_view part = word.substr(p, bar == std::string_view::npos ? std::string_view::npos : bar - p);
      if (part.size() >= 3 && part != word) out.push_back({key, std::string(part)});
      p = bar == std::string_view::npos ? word.size() : bar + 1;
    }
  };
  parts(r.id, "FASTA id part");
  std::string_view first = d;
  if (std::string_view w = next_word(); !w.empty() && w != r.id && clean_sequence_id(w) == r.id) {
    out.push_back({"FASTA header word", std::string(w)});
    parts(w, "FASTA header word part");
  } else {
    d = first;
  }
  for (std::string_view w = next_word(); !w.empty() && out.size() < 48; w = next_word()) {
    while (!w.empty() && (w.front() == '[' || w.front() == '(')) w.remove_prefix(1);
    while (!w.empty() && (w.back() == ']' || w.back() == ')' || w.back() == ';' || w.back() == ',')) w.remove_suffix(1);
    size_t eq = w.find('='), colon = w.find(':');
    if (eq != std::string_view::npos && eq > 0 && eq + 1 < w.size()) {
      out.push_back({"header " + std::string(w.substr(0, eq + 1)), std::string(w.substr(eq + 1))});
    } else if (colon != std::string_view::npos && colon > 0 && colon + 1 < w.size() &&
               std::all_of(w.begin(), w.begin() + long(colon), [](char c) { return is_alpha(c) || c == '_'; })) {
      out.push_back({"header " + std::string(w.substr(0, colon + 1)), std::string(w.substr(colon + 1))});
    } else if (w.size() >= 4 && std::any_of(w.begin(), w.end(), is_digit) &&
               std::any_of(w.begin(), w.end(), is_alpha)) {
      out.push_back({"header word", std::string(w)});
    }
  }
  return out;
}

std::vector<IdMatch> match_records(const GffModel& gff, const std::vector<FastaRecord>& records,
                                   std::vector<std::pair<std::string, size_t>>* evidence) {
  std::vector<IdMatch> out(records.size());
  if (gff.genes.empty() && gff.transcripts.empty()) return out;
  const RecordIndex ix(gff);
  std::vector<std::vector<Candidate>> cands(records.size());
  std::map<std::string, size_t> count;                              // scheme -> records it links
  std::map<std::string, std::map<std::string, size_t>> per_target;  // scheme -> transcript (or gene) -> records
  for (size_t i = 0; i < records.size(); ++i) {
    cands[i] = candidates(ix, records[i]);
    std::set<std::string> seen;
    for (auto& c : cands[i]) {
      if (!seen.insert(c.scheme).second) continue;
      ++count[c.scheme];
      ++per_target[c.scheme][c.transcript ? c.match.transcript : "gene " + c.match.gene];
    }
  }
  // A scheme's score: the records it links one-to-one (a transcript, or a gene of a gene-level scheme,
  // that two records claim counts for neither: isoforms led to one gene are not one-to-one).
  std::map<std::string, size_t> score;
  for (auto& [scheme, n] : count) {
    size_t shared = 0;
    for (auto& [t, k] : per_target[scheme]) shared += k > 1 ? k : 0;
    score[scheme] = n - shared;
  }
  auto better = [&](const Candidate& a, const Candidate& b) {  // a before b
    if (score[a.scheme] != score[b.scheme]) return score[a.scheme] > score[b.scheme];
    if (a.transcript != b.transcript) return a.transcript;
    if (a.level != b.level) return a.level < b.level;
    return a.scheme < b.scheme;
  };
  std::map<std::string, size_t> used;
  for (size_t i = 0; i < records.size(); ++i) {
    if (cands[i].empty()) continue;
    const Candidate* best = &cands[i][0];
    for (auto& c : cands[i])
      if (better(c, *best)) best = &c;
    out[i] = best->match;
    out[i].scheme = best->scheme;
    ++used[best->scheme];
  }
  if (evidence) {
    evidence->assign(used.begin(), used.end());
    std::stable_sort(evidence->begin(), evidence->end(), [](auto& a, auto& b) { return a.second > b.second; });
  }
  return out;
}

}  // namespace bioagent
