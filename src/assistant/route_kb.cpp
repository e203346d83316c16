// The knowledge base as a source the router asks (see route_sources.h): the
// family and species a message names, else the family whose entry alone holds
// one of the message's rarer words ("W-box" is in the WRKY entry only), and
// how much of the message the knowledge base names or holds.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "assistant/route_sources.h"
#include "bioagent/collections.h"
#include "bioagent/json_text.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

// Each family's words (ASCII stems of its names, full name, domains, member genes, functions and regulators)
// and its Chinese text; and for each stem the families that hold it.
struct KbIndex {
  std::vector<const Json*> families;
  std::vector<std::set<std::string>> stems;
  std::vector<std::string> chinese;
  std::map<std::string, std::set<size_t>> holders;
};

void add_text(const Json& v, std::set<std::string>& stems, std::string& zh) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    for (auto& w : ascii_words(s))
      if (!is_stop_word(w) && w.size() >= 2) stems.insert(match_stem(w));
    if (has_cjk(s)) zh += s + "\n";
  } else if (v.is_array() || v.is_object()) {
    for (auto& x : v) add_text(x, stems, zh);
  }
}

const KbIndex& kb_index() {
  static const KbIndex kIndex = [] {
    KbIndex k;
    for (auto& f : gene_family_kb()["families"]) {
      std::set<std::string> stems;
      std::string zh;
      for (const char* field : {"name", "aliases", "genes", "chinese", "full_name", "pfam", "functions", "regulators",
                                "functions_zh", "regulators_zh"})
        if (f.contains(field)) add_text(f[field], stems, zh);
      for (auto& s : stems) k.holders[s].insert(k.families.size());
      k.families.push_back(&f);
      k.stems.push_back(std::move(stems));
      k.chinese.push_back(std::move(zh));
    }
    return k;
  }();
  return kIndex;
}

// The CJK pairs of characters of a run ("核定位信号" -> 核定, 定位, 位信, 信号).
std::vector<std::string> cjk_pairs(const std::string& run) {
  std::vector<std::string> chars, out;
  for (size_t i = 0; i < run.size();) {
    size_t n = static_cast<unsigned char>(run[i]) >= 0xF0 ? 4 : static_cast<unsigned char>(run[i]) >= 0xE0 ? 3 : 1;
    chars.push_back(run.substr(i, n));
    i += n;
  }
  for (size_t i = 0; i + 1 < chars.size(); ++i) out.push_back(chars[i] + chars[i + 1]);
  return out;
}

// The family whose entry alone (or with one other) holds the message's words: an ASCII word held by one family,
// or two words held by at most two families, all pointing at the same family. Null when none stands out.
const Json* inferred_family(const MessageForm& form, std::string* because) {
  const KbIndex& k = kb_index();
  std::map<size_t, double> votes;
  std::map<size_t, std::vector<std::string>> why;
  for (auto& c : form.content) {
    if (has_cjk(c)) {
      for (auto& pair : cjk_pairs(c)) {
        std::vector<size_t> in;
        for (size_t i = 0; i < k.families.size(); ++i)
          if (k.chinese[i].find(pair) != std::string::npos) in.push_back(i);
        if (in.empty() || in.size() > 2) continue;
        for (size_t i : in) votes[i] += 0.5 / double(in.size()), why[i].push_back(pair);
      }
      continue;
    }
    auto it = k.holders.find(match_stem(c));
    if (it == k.holders.end() || it->second.size() > 2) continue;
    for (size_t i : it->second) votes[i] += 1.0 / double(it->second.size()), why[i].push_back(c);
  }
  size_t best = SIZE_MAX;
  double top = 0, second = 0;
  for (auto& [i, v] : votes) {
    if (v > top)
      second = top, top = v, best = i;
    else
      second = std::max(second, v);
  }
  if (best == SIZE_MAX || top < 1.0 || top <= second) return nullptr;
  std::string list;
  for (auto& w : why[best]) list += (list.empty() ? "" : ",") + w;
  *because = list;
  return k.families[best];
}

bool names_generic_family(const std::string& low) {
  static const char* const kGeneric[] = {"gene family", "gene families", "基因家族", "my genome",
                                         "our genome",  "我的基因组",    "全家族",   "家族分析"};
  return std::any_of(std::begin(kGeneric), std::end(kGeneric),
                     [&](const char* g) { return low.find(g) != std::string::npos; });
}

}  // namespace

std::string match_stem(std::string w) {
  for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t n = w.size();
  auto ends = [&](const char* s) {
    size_t m = std::char_traits<char>::length(s);
    return n > m && w.compare(n - m, m, s) == 0;
  };
  if (n > 4 && ends("ies")) return w.substr(0, n - 3) + "y";
  if (n > 5 && ends("ing")) return w.substr(0, n - 3);
  if (n > 4 && ends("ed") && !ends("eed")) return w.substr(0, n - 2);
  if (n > 3 && ends("s") && !ends("ss") && !ends("us") && !ends("is")) return w.substr(0, n - 1);
  return w;
}

std::vector<std::string> source_terms(std::string_view message, const MessageForm& form) {
  std::vector<std::string> out;
  auto add = [&](const std::string& w) {
    if (w.size() < 2 || is_stop_word(w) || std::find(out.begin(), out.end(), w) != out.end()) return;
    out.push_back(w);
  };
  for (auto& c : form.content)
    if (!has_cjk(c)) add(c);
  for (auto& e : name_expansions(std::string(utf8_prefix(message, 4000))))
    for (auto& w : ascii_words(e)) add(w);
  return out;
}

KbMatch match_knowledge_base(std::string_view message, const MessageForm& form, std::string_view plan_family) {
  KbMatch k;
  Mentions m = find_mentions(message, plan_family);
  if (m.family) {
    k.family = m.family;
    k.family_name = m.family->value("name", "");
    k.family_term = m.family_term;
    k.named = true;
  } else if (!m.unknown_family.empty()) {
    k.family_name = m.unknown_family;
    k.family_term = m.unknown_family;
    k.named = true;
  } else if (const Json* f = inferred_family(form, &k.family_term)) {
    k.family = f;
    k.family_name = f->value("name", "");
  }
  if (m.species) k.species = m.species->value("prefix", "");
  k.species_named = species_mentioned(utf8_prefix(message, 4000)).size();
  if (!m.species && !m.latin_species.empty()) {
    k.species = prefix_of_latin(m.latin_species);
    k.species_name = m.latin_species;
  }
  std::string low = lower_ascii(std::string(utf8_prefix(message, 4000)));
  k.generic_family = names_generic_family(low);
  // What of the content the knowledge base names (the family, the species) or holds (the family's entry).
  const KbIndex& idx = kb_index();
  size_t fam = SIZE_MAX;
  for (size_t i = 0; i < idx.families.size(); ++i)
    if (idx.families[i] == k.family) fam = i;
  for (auto& c : form.content) {
    bool named = (!k.family_term.empty() && lower_ascii(k.family_term).find(c) != std::string::npos) ||
                 (!m.species_term.empty() && lower_ascii(m.species_term).find(c) != std::string::npos) ||
                 (!k.species_name.empty() && lower_ascii(k.species_name).find(c) != std::string::npos) ||
                 (k.named && !k.family_name.empty() && lower_ascii(k.family_name).find(c) != std::string::npos);
    bool held = fam != SIZE_MAX &&
                (has_cjk(c) ? idx.chinese[fam].find(c) != std::string::npos : idx.stems[fam].count(match_stem(c)) > 0);
    if (named || held) k.explained.push_back(c);
  }
  if (!form.content.empty()) k.score = double(k.explained.size()) / double(form.content.size());
  if (k.named && k.family) k.score = std::max(k.score, 0.5);
  return k;
}

Json KbMatch::to_json() const {
  return {{"family", family_name}, {"family_term", family_term},   {"named", named},
          {"species", species},    {"species_name", species_name}, {"generic_family", generic_family},
          {"score", score},        {"explained", explained}};
}

}  // namespace bioagent
