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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> weights;
  if (argc > 2 && std::string(argv[1]) == "--weights") {
    weights = split_weights(argv[2]);
    argv += 2;
    argc -= 2;
  }
  if (argc < 5) {
    std::cerr << "usage: retrieval_eval [--weights W,W,...] PAPERS_DB QUESTIONS.jsonl WORK_DIR PDF...\n";
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

  Scores scores;
  size_t n = 0, key_terms = 0;
  std::ifstream in(questions);
  std::ofstream per(work + "/per_question.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json q = Json::parse(line);
    std::set<std::string> gold;
    for (auto& g : q["gold"]) gold.insert(g["file"].get<std::string>() + "#" + std::to_string(g["page"].get<int>()));
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
