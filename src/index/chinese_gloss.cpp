#include "index/chinese_gloss.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>

namespace bioagent {
namespace {

constexpr size_t kMaxGlosses = 2;     // per word: the first senses are the common ones
constexpr size_t kKeptGlosses = 6;    // per word, to choose from
constexpr size_t kMaxGlossWords = 3;  // a longer gloss is an explanation, not a name

struct Dictionary {
  std::unordered_map<std::string, std::vector<std::string>> words;  // simplified and traditional forms
  size_t longest = 0;                                               // in characters
  ChineseGlossStatus status;
};

std::string dictionary_path() {
  if (const char* env = std::getenv("BIOAGENT_CEDICT"); env && *env) return env;
#ifdef BIOAGENT_CEDICT_PATH
  return BIOAGENT_CEDICT_PATH;
#else
  return {};
#endif
}

// Senses that only point elsewhere or name a surname carry no searchable meaning.
bool pointer_sense(std::string_view s) {
  static constexpr std::array<std::string_view, 10> kPrefixes = {
      "surname",  "variant of",    "old variant", "CL:",          "see ",
      "used in ", "erhua variant", "abbr. for",   "also written", "Japanese variant"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return s.starts_with(p); });
}

// "to bring down (prices)" → "bring down": parentheses and brackets removed,
// a leading infinitive marker or article dropped, lowercase; empty when what
// is left is not a short plain-English phrase.
std::string plain_gloss(std::string_view alt) {
  std::string out;
  int depth = 0;
  for (char c : alt) {
    if (c == '(' || c == '[')
      ++depth;
    else if ((c == ')' || c == ']') && depth > 0)
      --depth;
    else if (depth == 0)
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  auto trim = [](std::string& s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
  };
  trim(out);
  for (std::string_view lead : {"to ", "a ", "an ", "the "})
    if (out.starts_with(lead)) out.erase(0, lead.size());
  trim(out);
  if (out.empty()) return {};
  size_t words = 1;
  for (char c : out) {
    if (c == ' ')
      ++words;
    else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '\'')
      return {};
  }
  return words <= kMaxGlossWords ? out : std::string();
}

std::vector<std::string> short_glosses(simdjson::ondemand::array senses) {
  std::vector<std::string> out;
  for (auto item : senses) {
    std::string_view sense;
    if (item.get_string().get(sense) != simdjson::SUCCESS || pointer_sense(sense)) continue;
    size_t at = 0;
    while (at <= sense.size() && out.size() < kKeptGlosses) {
      size_t end = std::min(sense.find(';', at), sense.size());
      std::string g = plain_gloss(sense.substr(at, end - at));
      if (!g.empty() && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(std::move(g));
      at = end + 1;
    }
    if (out.size() >= kKeptGlosses) break;
  }
  return out;
}

size_t utf8_length(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

Dictionary load_dictionary() {
  Dictionary d;
  const std::string path = dictionary_path();
  d.status.path = path;
  if (path.empty() || !std::filesystem::exists(path)) {
    d.status.detail = path.empty() ? "no CC-CEDICT path was configured (BIOAGENT_CEDICT)"
                                   : "CC-CEDICT is absent at " + path + " (run scripts/setup.sh)";
    return d;
  }
  simdjson::padded_string json;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::array entries;
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS ||
      parser.iterate(json).get(doc) != simdjson::SUCCESS || doc.get_array().get(entries) != simdjson::SUCCESS) {
    d.status.detail = "CC-CEDICT at " + path + " could not be read as JSON";
    return d;
  }
  for (auto entry : entries) {
    simdjson::ondemand::object e;
    std::string_view simplified, traditional;
    simdjson::ondemand::array senses;
    if (entry.get_object().get(e) != simdjson::SUCCESS) continue;
    // Fields in the package's order: traditional, simplified, pinyin, english.
    if (e["traditional"].get_string().get(traditional) != simdjson::SUCCESS) continue;
    std::string trad(traditional);
    if (e["simplified"].get_string().get(simplified) != simdjson::SUCCESS) continue;
    std::string simp(simplified);
    if (utf8_length(simp) < 2 || e["english"].get_array().get(senses) != simdjson::SUCCESS) continue;
    auto glosses = short_glosses(senses);
    if (glosses.empty()) continue;
    d.longest = std::max({d.longest, utf8_length(simp), utf8_length(trad)});
    auto& slot = d.words[simp];
    if (slot.empty()) slot = glosses;  // the first entry of a form is its common reading
    if (trad != simp) d.words.try_emplace(trad, std::move(glosses));
  }
  d.status = {true, path, "CC-CEDICT (" + std::to_string(d.words.size()) + " words) from " + path};
  return d;
}

const Dictionary& dictionary() {
  static const Dictionary d = load_dictionary();
  return d;
}

}  // namespace

ChineseGlossStatus chinese_gloss_status() { return dictionary().status; }

namespace {

// Two of a word's glosses: the first two `known` accepts, else the first two (one known gloss stays
// alone: a word the library does not hold adds nothing to a search of it).
std::vector<const std::string*> chosen_glosses(const std::vector<std::string>& glosses,
                                               const std::function<bool(const std::string&)>& known) {
  std::vector<const std::string*> out;
  if (known)
    for (const std::string& g : glosses)
      if (out.size() < kMaxGlosses && known(g)) out.push_back(&g);
  if (out.empty())
    for (size_t i = 0; i < glosses.size() && i < kMaxGlosses; ++i) out.push_back(&glosses[i]);
  return out;
}

}  // namespace

std::vector<std::string> gloss_chinese_run(std::string_view run, const std::function<bool(const std::string&)>& known) {
  const Dictionary& d = dictionary();
  std::vector<std::string> out;
  if (d.words.empty()) return out;
  std::vector<size_t> starts;  // byte offset of each character, then the end
  for (size_t i = 0; i < run.size(); ++i)
    if ((run[i] & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(run.size());
  const size_t chars = starts.size() - 1;
  for (size_t at = 0; at < chars;) {
    size_t taken = 1;
    for (size_t len = std::min(d.longest, chars - at); len >= 2; --len) {
      auto it = d.words.find(std::string(run.substr(starts[at], starts[at + len] - starts[at])));
      if (it == d.words.end()) continue;
      for (const std::string* g : chosen_glosses(it->second, known))
        if (std::find(out.begin(), out.end(), *g) == out.end()) out.push_back(*g);
      taken = len;
      break;
    }
    at += taken;
  }
  return out;
}

}  // namespace bioagent
