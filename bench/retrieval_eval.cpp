// Retrieval evaluation over a labelled question set (tests/data/paper_qa_dev.jsonl):
// ingests the PDFs, then for every question ranks pages with each collection
// alone (RetrieveFromVectorstore over chunks.text_content, pages in the order
// of their best chunk) and with ClassicRetrieve, and asks the offline agent.
// Prints recall@1, recall@5 and MRR (over the first 20 distinct pages) per
// method and the offline answers' key-term rate (an answer counts when it
// contains one of the question's answer terms, case-insensitively).
// Usage: retrieval_eval [--weights W,W,...] PAPERS_DB QUESTIONS.jsonl WORK_DIR PDF...
//   prints one line per method: "<method> <r@1> <r@5> <mrr>" and
//   "offline_key_terms <rate>", and writes WORK_DIR/per_question.jsonl.
//   A model collection is built when BIOAGENT_EMBED_URL and BIOAGENT_EMBED_MODEL
//   name an OpenAI-compatible embedding server. --weights ranks with
//   ClassicRetrieve once per weight of the model's dense vote instead
//   ("ClassicRetrieve@<w> ..." lines; no offline agent).
// retrieval_eval --sweep GRID.json ... chooses ClassicRetrieve's settings on the
//   questions of the tuning split only (the others are not read): coordinate
//   ascent from the tool's settings over GRID's candidate values ({"rounds": N,
//   "grid": {"setting": [values...]}}), keeping a value when it raises MRR
//   (ties: recall@5, then the value held). Prints "sweep <round> <setting>
//   <value> <r@1> <r@5> <mrr>" per candidate, "start"/"chosen" lines with
//   the settings and their scores.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/agent.h"
#include "bioagent/collections.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "papers/paper_tool_types.h"

using namespace bioagent;

namespace {

constexpr size_t kDepth = 20;

struct Score {
  double r1 = 0, r5 = 0, mrr = 0;
  void add(const std::vector<std::string>& ranked, const std::set<std::string>& gold) {
    for (size_t i = 0; i < ranked.size() && i < kDepth; ++i)
      if (gold.count(ranked[i])) {
        r1 += i < 1;
        r5 += i < 5;
        mrr += 1.0 / double(i + 1);
        return;
      }
  }
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Distinct "file#page" keys in the order the results give them.
std::vector<std::string> pages_of(const Json& results, const std::map<std::string, std::string>& file_of) {
  std::vector<std::string> out;
  for (auto& r : results) {
    auto f = file_of.find(r.value("pdf_id", ""));
    std::string key = (f == file_of.end() ? "?" : f->second) + "#" + std::to_string(r.value("page_number", -1));
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return out;
}

int fail(const Status& s) {
  std::cerr << "retrieval_eval: " << s.message() << "\n";
  return 1;
}

using Scores = std::map<std::string, Score>;
using FileOf = std::map<std::string, std::string>;

// Ranks pages with `tool`, adds the question to scores[method] and keeps the top kDepth in row[method].
Status rank_into(const std::string& method, const std::string& tool, const Json& args,
                 const std::set<std::string>& gold, const ToolRegistry& registry, ToolContext& ctx,
                 const FileOf& file_of, Scores& scores, Json& row) {
  auto r = registry.call(tool, args, ctx);
  if (!r) return r.status();
  auto ranked = pages_of((*r)["results"], file_of);
  scores[method].add(ranked, gold);
  row[method] =
      Json(std::vector<std::string>(ranked.begin(), ranked.begin() + std::min<size_t>(kDepth, ranked.size())));
  return Status::ok();
}

// Every collection alone, ClassicRetrieve, and the offline agent's key terms.
Status score_question(const Json& q, const std::set<std::string>& gold, const std::vector<std::string>& collections,
                      const ToolRegistry& registry, ToolContext& ctx, const FileOf& file_of, Scores& scores, Json& row,
                      size_t& key_terms) {
  for (auto& c : collections) {
    Json args = {{"query", q["question"]},
                 {"collection_name", c},
                 {"table_name", "chunks"},
                 {"column_name", "text_content"},
                 {"limit", 100}};
    if (auto s = rank_into(c, "RetrieveFromVectorstore", args, gold, registry, ctx, file_of, scores, row); !s.is_ok())
      return s;
  }
  Json args = {{"query", q["question"]}, {"limit", int(kDepth)}};
  if (auto s = rank_into("ClassicRetrieve", "ClassicRetrieve", args, gold, registry, ctx, file_of, scores, row);
      !s.is_ok())
    return s;
  auto a = run_offline_agent(q["question"], registry, ctx, AgentOptions{});
  if (!a) return a.status();
  std::string answer = lower(a->answer);
  bool hit = std::any_of(q["answer_terms"].begin(), q["answer_terms"].end(),
                         [&](const Json& t) { return answer.find(lower(t.get<std::string>())) != std::string::npos; });
  key_terms += hit;
  row["key_term"] = hit;
  row["answer"] = a->answer;  // for reading the misses (KEEP_WORK keeps per_question.jsonl)
  return Status::ok();
}

// ClassicRetrieve once per weight of the model's dense vote.
Status score_weights(const Json& q, const std::set<std::string>& gold, const std::vector<std::string>& weights,
                     const ToolRegistry& registry, ToolContext& ctx, const FileOf& file_of, Scores& scores, Json& row) {
  for (auto& w : weights) {
    ctx.set_option("embed_weight", w);
    Json args = {{"query", q["question"]}, {"limit", int(kDepth)}};
    if (auto s = rank_into("ClassicRetrieve@" + w, "ClassicRetrieve", args, gold, registry, ctx, file_of, scores, row);
        !s.is_ok())
      return s;
  }
  return Status::ok();
}

std::vector<std::string> split_weights(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string w; std::getline(in, w, ',');)
    if (!w.empty()) out.push_back(w);
  return out;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A tuning question: its text and gold pages.
struct Labelled {
  std::string question;
  std::set<std::string> gold;
};

// ClassicRetrieve with `spec`'s settings over the questions; r1/r5/mrr are rates.
Result<Score> score_settings(const ToolSpec& spec, const std::vector<Labelled>& qs, ToolContext& ctx,
                             const FileOf& file_of) {
  Score s;
  for (auto& q : qs) {
    auto r = tools::classic_retrieve_tool(spec, {{"query", q.question}, {"limit", int(kDepth)}}, ctx);
    if (!r) return r.status();
    s.add(pages_of((*r)["results"], file_of), q.gold);
  }
  const double n = double(std::max<size_t>(1, qs.size()));
  return Score{s.r1 / n, s.r5 / n, s.mrr / n};
}

bool better(const Score& a, const Score& b) {
  if (std::abs(a.mrr - b.mrr) > 1e-9) return a.mrr > b.mrr;
  return a.r5 > b.r5 + 1e-9;
}

std::string score_text(const Score& s) {
  std::ostringstream o;
  o << s.r1 << " " << s.r5 << " " << s.mrr;
  return o.str();
}

// Coordinate ascent over the grid's values, from the tool's own settings.
Status sweep_settings(const Json& grid, ToolSpec spec, const std::vector<Labelled>& qs, ToolContext& ctx,
                      const FileOf& file_of) {
  Json swept = Json::object();
  for (auto& [key, values] : grid.at("grid").items()) {
    if (!spec.settings.contains(key)) return invalid_argument(key + " is not a setting of ClassicRetrieve");
    swept[key] = spec.settings[key];
  }
  auto best = score_settings(spec, qs, ctx, file_of);
  if (!best) return best.status();
  std::cout << "start " << swept.dump() << " " << score_text(*best) << "\n";
  const int rounds = grid.value("rounds", 2);
  for (int round = 1; round <= rounds; ++round) {
    bool changed = false;
    for (auto& [key, values] : grid.at("grid").items()) {
      const Json held = spec.settings[key];
      const Score held_score = *best;  // the settings as they stand score best so far
      Json chosen = held;
      for (auto& v : values) {
        spec.settings[key] = v;
        auto s = v == held ? Result<Score>(held_score) : score_settings(spec, qs, ctx, file_of);
        if (!s) return s.status();
        std::cout << "sweep " << round << " " << key << " " << v.dump() << " " << score_text(*s) << "\n";
        if (better(*s, *best)) best = *s, chosen = v;
      }
      spec.settings[key] = chosen;
      swept[key] = chosen;
      changed = changed || chosen != held;
    }
    if (!changed) break;
  }
  std::cout << "chosen " << swept.dump() << " " << score_text(*best) << "\n";
  return Status::ok();
}

std::set<std::string> gold_of(const Json& q) {
  std::set<std::string> gold;
  for (auto& g : q["gold"]) gold.insert(g["file"].get<std::string>() + "#" + std::to_string(g["page"].get<int>()));
  return gold;
}

// The sweep over the tuning split's questions only.
int sweep_main(const Json& grid, const std::string& questions, const ToolRegistry& registry, ToolContext& ctx,
               const FileOf& file_of) {
  std::vector<Labelled> tuning;
  size_t held_back = 0;
  std::ifstream in(questions);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json q = Json::parse(line);
    if (q.value("split", "") != "tuning") {
      ++held_back;
      continue;
    }
    tuning.push_back({q["question"], gold_of(q)});
  }
  if (tuning.empty()) return fail(invalid_argument("no question of " + questions + " is in the tuning split"));
  std::cout << "questions " << tuning.size() << " tuning (" << held_back << " held back)\n";
  const ToolSpec* spec = registry.find("ClassicRetrieve");
  if (!spec) return fail(not_found("no ClassicRetrieve tool"));
  if (auto s = sweep_settings(grid, *spec, tuning, ctx, file_of); !s.is_ok()) return fail(s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> weights;
  Json grid;  // --sweep
  if (argc > 2 && std::string(argv[1]) == "--weights") {
    weights = split_weights(argv[2]);
    argv += 2;
    argc -= 2;
  } else if (argc > 2 && std::string(argv[1]) == "--sweep") {
    std::ifstream g(argv[2]);
    grid = Json::parse(g, nullptr, false);
    if (!grid.is_object() || !grid.contains("grid") || !grid["grid"].is_object())
      return fail(invalid_argument(std::string(argv[2]) + " is not a sweep grid ({\"grid\": {...}})"));
    argv += 2;
    argc -= 2;
  }
  if (argc < 5) {
    std::cerr << "usage: retrieval_eval [--weights W,W,...|--sweep GRID.json] PAPERS_DB QUESTIONS.jsonl WORK_DIR "
                 "PDF...\n";
    return 2;
  }
  const std::string db = argv[1], questions = argv[2], work = argv[3];
  std::vector<std::filesystem::path> pdfs(argv + 4, argv + argc);
  const std::string embed_url = env_or_empty("BIOAGENT_EMBED_URL"), embed_model = env_or_empty("BIOAGENT_EMBED_MODEL");
  FileOf file_of;  // paper id → file name
  {
    auto dense = embedders_from_options({{"embed_url", embed_url}, {"embed_model", embed_model}});
    if (!dense) return fail(dense.status());
    auto lib = PaperLibrary::open(db, std::move(*dense));
    if (!lib) return fail(lib.status());
    size_t failed = (*lib)->add_many(pdfs, 0, [&](size_t i, const Result<IngestReport>& r) {
      if (r) file_of[r->paper_id] = pdfs[i].filename().string();
    });
    if (failed) std::cerr << "retrieval_eval: " << failed << " PDFs failed to ingest\n";
  }
  ToolRegistry registry;
  register_builtin_types(registry);
  if (auto s = registry.load_builtin(); !s.is_ok()) return fail(s);
  ToolContext ctx;
  ctx.set_option("papers_db", db);
  ctx.set_option("cache_dir", work + "/cache");
  ctx.set_option("offline", "1");
  ctx.set_option("embed_url", embed_url);
  ctx.set_option("embed_model", embed_model);
  std::filesystem::create_directories(work + "/cache");

  auto listed = registry.call("list_vector_collections", Json::object(), ctx);
  if (!listed) return fail(listed.status());
  std::vector<std::string> collections;
  for (auto& c : (*listed)["collections"])
    if (c.value("table_name", "").empty()) collections.push_back(c["collection_name"]);

  if (!grid.is_null()) return sweep_main(grid, questions, registry, ctx, file_of);
  Scores scores;
  size_t n = 0, key_terms = 0;
  std::ifstream in(questions);
  std::ofstream per(work + "/per_question.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json q = Json::parse(line);
    std::set<std::string> gold = gold_of(q);
    Json row = {{"id", q["id"]}, {"kind", q["kind"]}};
    Status st = weights.empty() ? score_question(q, gold, collections, registry, ctx, file_of, scores, row, key_terms)
                                : score_weights(q, gold, weights, registry, ctx, file_of, scores, row);
    if (!st.is_ok()) return fail(st);
    row["gold"] = Json(std::vector<std::string>(gold.begin(), gold.end()));
    per << row.dump() << "\n";
    ++n;
  }
  if (n == 0) return fail(invalid_argument("no questions in " + questions));
  for (auto& [name, s] : scores)
    std::cout << name << " " << s.r1 / double(n) << " " << s.r5 / double(n) << " " << s.mrr / double(n) << "\n";
  if (weights.empty()) std::cout << "offline_key_terms " << double(key_terms) / double(n) << "\n";
  std::cout << "questions " << n << "\n";
  return 0;
}
