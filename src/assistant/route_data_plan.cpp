// The data bundle and the plan as sources the router asks (see
// route_sources.h). The bundle's vocabulary is what its tables hold: the
// datasets its manifest names, the words of their column headers and the names
// in their rows (transcription factors, states), read once per version of the
// manifest. The plan's vocabulary is the pipeline's stages (names, labels in
// both languages, descriptions, programs, dialog fields), the files a plan
// needs and, when the session has one, the words of its latest plan.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "assistant/route_sources.h"
#include "bioagent/bundle.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/table.h"
#include "papers/question_cues.h"
#include "text/stop_words.h"

namespace bioagent {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct BundleVocab {
  std::set<std::string> exact;                // datasets and row names as written (TOX, TEXterm)
  std::map<std::string, std::string> folded;  // the lower case of those of four characters or more
  std::set<std::string> header_stems;         // the words of the tables' column headers
  // Long forms the bundle's own texts spell its abbreviations out with ("tissue-resident memory (TRM)"),
  // lower case with '-' as ' ', to the name they stand for.
  std::map<std::string, std::string> long_forms;
};

// Lower case, '-' and '_' as spaces: how a long form is compared.
std::string plain_words(std::string_view s) {
  std::string out;
  for (char c : s) out += (c == '-' || c == '_') ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Every string of `j`, recursively.
void collect_strings(const Json& j, std::string& out) {
  if (j.is_string()) out += j.get<std::string>() + "\n";
  if (j.is_structured())
    for (auto& v : j) collect_strings(v, out);
}

// The long forms the bundle's descriptions and UI texts (the manifest and the JSON files it names) give
// for its names.
void read_long_forms(const DataBundle& b, BundleVocab& v) {
  std::string texts;
  collect_strings(b.manifest(), texts);
  for (auto& [key, value] : b.manifest().items()) {
    if (!value.is_string() || !value.get<std::string>().ends_with(".json")) continue;
    auto path = b.resolve(value.get<std::string>());
    std::error_code ec;
    if (!path || std::filesystem::file_size(*path, ec) > (4u << 20) || ec) continue;
    std::ifstream in(*path);
    collect_strings(Json::parse(in, nullptr, false), texts);
  }
  for (auto& name : v.exact)
    if (name.size() >= 2 && texts.find("(" + name) != std::string::npos)
      if (std::string form = acronym_long_form(texts, name); !form.empty()) v.long_forms[plain_words(form)] = name;
}

bool is_table_path(const std::string& s) {
  for (const char* ext : {".xlsx", ".xlsm", ".csv", ".tsv"}) {
    size_t n = std::char_traits<char>::length(ext);
    if (s.size() > n && s.compare(s.size() - n, n, ext) == 0) return true;
  }
  return false;
}

void add_entity(BundleVocab& v, const std::string& name) {
  v.exact.insert(name);
  if (name.size() >= 4) v.folded[lower_ascii(name)] = name;
}

// A cell that names a thing (a symbol, not a sentence, a path or a number).
bool is_name_cell(const std::string& s) {
  if (s.size() < 3 || s.size() > 24) return false;
  if (s.find_first_of(" /\\,;:") != std::string::npos) return false;
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isalpha(c); });
}

void read_table_vocab(const DataBundle& b, const std::string& rel, BundleVocab& v) {
  auto path = b.resolve(rel);
  if (!path) return;
  TableLimits limits;
  limits.max_rows = 20000;
  limits.max_uncompressed_bytes = 64ull << 20;
  auto sheet = read_table(*path, "", limits);
  if (!sheet || sheet->rows.empty()) return;
  for (auto& cell : sheet->rows[0])
    for (auto& w : ascii_words(cell.to_text())) {
      std::string word = w;
      while (!word.empty() && std::isdigit(static_cast<unsigned char>(word.back()))) word.pop_back();  // Wave1
      if (word.size() >= 2 && !is_stop_word(word)) v.header_stems.insert(match_stem(word));
    }
  for (size_t r = 1; r < sheet->rows.size() && r < 20000; ++r)
    for (auto& cell : sheet->rows[r])
      if (cell.kind == Cell::Kind::kString && is_name_cell(cell.text)) add_entity(v, cell.text);
}

std::shared_ptr<const BundleVocab> build_vocab(const fs::path& dir) {
  auto b = DataBundle::open(dir);
  if (!b) return nullptr;
  auto v = std::make_shared<BundleVocab>();
  std::set<std::string> files;
  for (auto& [key, value] : b->manifest().items()) {
    if (value.is_string() && is_table_path(value.get<std::string>())) files.insert(value.get<std::string>());
    if (!value.is_object()) continue;
    for (auto& [name, file] : value.items())
      if (file.is_string() && is_table_path(file.get<std::string>())) {
        add_entity(*v, name);  // a dataset: the manifest's name for a table (TEXterm, Overall_TF_PageRank)
        files.insert(file.get<std::string>());
      }
  }
  size_t read = 0;
  for (auto& f : files)
    if (read++ < 64) read_table_vocab(*b, f, *v);
  read_long_forms(*b, *v);
  return v;
}

std::shared_ptr<const BundleVocab> bundle_vocab(const std::string& dir) {
  static std::mutex mu;
  static std::map<std::string, std::pair<fs::file_time_type, std::shared_ptr<const BundleVocab>>> cache;
  std::error_code ec;
  auto stamp = fs::last_write_time(fs::path(dir) / "bundle.json", ec);
  if (ec) return nullptr;
  std::lock_guard lock(mu);
  auto it = cache.find(dir);
  if (it != cache.end() && it->second.first == stamp) return it->second.second;
  auto v = build_vocab(dir);
  cache[dir] = {stamp, v};
  return v;
}

// The header word a message word names, as the headers were read ("Wave3" -> wave, as the header Wave1;
// "TFs" -> tf, the plural of an acronym), or "".
std::string header_stem(const BundleVocab& v, std::string w) {
  while (w.size() > 1 && std::isdigit(static_cast<unsigned char>(w.back()))) w.pop_back();
  std::string stem = match_stem(w);
  if (v.header_stems.count(stem)) return stem;
  if (w.size() >= 3 && w.size() <= 5 && w.back() == 's') {
    std::string one = match_stem(w.substr(0, w.size() - 1));
    if (v.header_stems.count(one)) return one;
  }
  return "";
}

// Words as written (case kept): letters, digits, '_' and '-' inside a word.
std::vector<std::string> cased_words(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '_' || (c == '-' && !w.empty())) {
      w += ch;
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

// The pipeline's words: stage names, labels, descriptions, programs and dialog fields; the files and
// resources a plan names. ASCII stems and the Chinese labels.
struct PlanVocab {
  std::set<std::string> stems;
  std::string chinese;
};

const PlanVocab& pipeline_vocab() {
  static const PlanVocab kVocab = [] {
    PlanVocab v;
    auto add = [&](const std::string& s) {
      for (auto& w : ascii_words(s))
        if (w.size() >= 2 && !is_stop_word(w)) v.stems.insert(match_stem(w));
      if (has_cjk(s)) v.chinese += s + "\n";
    };
    for (auto& s : genefamily_pipeline().stages()) {
      add(s.name), add(s.label), add(s.label_zh), add(s.description);
      for (auto& p : s.programs) add(p);
      for (auto& d : s.dialog) add(d.key), add(d.label.in(Lang::kEn)), add(d.label.in(Lang::kZh));
    }
    // What a plan states besides its stages: its files, the time and resources it takes, its outputs.
    for (const char* w :
         {"file",  "files",  "prepare", "upload", "naming",    "genome", "gff3",   "cds",    "pep",    "hmm",
          "fasta", "time",   "long",    "hour",   "minute",    "disk",   "space",  "memory", "ram",    "cpu",
          "core",  "thread", "step",    "stage",  "parameter", "output", "result", "figure", "report", "文件",
          "准备",  "上传",   "命名",    "时间",   "多久",      "磁盘",   "内存",   "线程",   "步骤",   "第几步",
          "参数",  "输出",   "结果",    "图",     "报告",      "进化树", "方法"})
      add(w);
    return v;
  }();
  return kVocab;
}

}  // namespace

SourceMatch match_data_bundle(const std::string& bundle_dir, std::string_view message, const MessageForm& form,
                              const KbMatch& kb) {
  SourceMatch s;
  const auto t0 = Clock::now();
  if (bundle_dir.empty()) return s;
  auto vocab = bundle_vocab(bundle_dir);
  if (!vocab) return s;
  s.available = true;
  std::set<std::string> entities, headers, entities_beyond, headers_beyond;
  // A name asked by the long form the bundle spells it out with ("tissue resident memory cells": TRM).
  const std::string plain = " " + plain_words(utf8_prefix(message, 4000)) + " ";
  for (auto& [form, name] : vocab->long_forms)
    if (plain.find(" " + form + " ") != std::string::npos || plain.find(" " + form + "s ") != std::string::npos)
      entities.insert(name), entities_beyond.insert(name);
  for (auto& w : cased_words(std::string(utf8_prefix(message, 4000)))) {
    std::string hit;
    if (vocab->exact.count(w))
      hit = w;
    else if (auto it = w.size() >= 4 ? vocab->folded.find(lower_ascii(w)) : vocab->folded.end();
             it != vocab->folded.end())
      hit = it->second;
    bool named_by_kb = !kb.family_term.empty() && lower_ascii(kb.family_term) == lower_ascii(w);
    if (!hit.empty()) {
      entities.insert(hit);
      if (!named_by_kb) entities_beyond.insert(hit);
      continue;
    }
    std::string stem = header_stem(*vocab, w);
    if (w.size() >= 2 && !is_stop_word(lower_ascii(w)) && !stem.empty()) {
      headers.insert(stem);
      if (!named_by_kb) headers_beyond.insert(stem);
    }
  }
  const double asked = (form.has(Act::kData) ? 0.2 : 0.0) + (form.has(Act::kCompute) ? 0.1 : 0.0);
  auto score = [&](size_t e, size_t h) { return std::min(1.0, 0.45 * double(e) + 0.3 * double(h) + asked); };
  s.score = entities.empty() && headers.empty() ? 0 : score(entities.size(), headers.size());
  s.beyond_kb =
      entities_beyond.empty() && headers_beyond.empty() ? 0 : score(entities_beyond.size(), headers_beyond.size());
  for (auto& e : entities) s.matched.push_back(e);
  for (auto& h : headers) s.matched.push_back(h);
  s.best = s.matched.empty() ? "" : s.matched.front();
  s.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return s;
}

SourceMatch match_plan(const Json& plan, std::string_view message, const MessageForm& form) {
  SourceMatch s;
  s.available = true;
  const PlanVocab& v = pipeline_vocab();
  std::set<std::string> plan_stems;
  std::string plan_text = plan.is_null() ? "" : json_text(plan);
  if (plan_text.size() > 200000) plan_text.resize(200000);
  for (auto& w : ascii_words(plan_text)) plan_stems.insert(match_stem(w));
  std::set<std::string> hits;
  for (auto& c : form.content) {
    if (has_cjk(c)) {
      for (size_t i = 0; i + 6 <= c.size(); i += 3) {  // each pair of characters
        std::string pair = c.substr(i, 6);
        if (v.chinese.find(pair) != std::string::npos || plan_text.find(pair) != std::string::npos) hits.insert(pair);
      }
      continue;
    }
    std::string stem = match_stem(c);
    if (v.stems.count(stem) || (plan_stems.count(stem) && !is_stop_word(c))) hits.insert(c);
  }
  for (auto& h : hits) s.matched.push_back(h);
  s.score = std::min(1.0, 0.35 * double(hits.size()));
  s.best = plan.is_null() ? "the pipeline" : "the session's plan";
  (void)message;
  return s;
}

}  // namespace bioagent
