// Retrieval evaluation over a labelled question set (tests/data/paper_qa_dev.jsonl):
// ingests the PDFs, then for every question ranks pages with each collection
// alone (RetrieveFromVectorstore over chunks.text_content, pages in the order
// of their best chunk) and with ClassicRetrieve, and asks the offline agent.
// Prints recall@1, recall@5 and MRR (over the first 20 distinct pages) per
// method and the offline answers' key-term rate (an answer counts when it
// contains one of the question's answer terms, case-insensitively).
// Usage: retrieval_eval PAPERS_DB QUESTIONS.jsonl WORK_DIR PDF...
//   prints one line per method: "<method> <r@1> <r@5> <mrr>" and
//   "offline_key_terms <rate>", and writes WORK_DIR/per_question.jsonl.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "bioagent/agent.h"
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: retrieval_eval PAPERS_DB QUESTIONS.jsonl WORK_DIR PDF...\n";
    return 2;
  }
  const std::string db = argv[1], questions = argv[2], work = argv[3];
  std::vector<std::filesystem::path> pdfs(argv + 4, argv + argc);
  std::map<std::string, std::string> file_of;  // paper id → file name
  {
    auto lib = PaperLibrary::open(db);
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
  std::filesystem::create_directories(work + "/cache");

  auto listed = registry.call("list_vector_collections", Json::object(), ctx);
  if (!listed) return fail(listed.status());
  std::vector<std::string> collections;
  for (auto& c : (*listed)["collections"])
    if (c.value("table_name", "").empty()) collections.push_back(c["collection_name"]);

  std::map<std::string, Score> scores;
  size_t n = 0, key_terms = 0;
  std::ifstream in(questions);
  std::ofstream per(work + "/per_question.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json q = Json::parse(line);
    std::set<std::string> gold;
    for (auto& g : q["gold"]) gold.insert(g["file"].get<std::string>() + "#" + std::to_string(g["page"].get<int>()));
    Json row = {{"id", q["id"]}, {"kind", q["kind"]}};
    for (auto& c : collections) {
      auto r = registry.call("RetrieveFromVectorstore",
                             {{"query", q["question"]},
                              {"collection_name", c},
                              {"table_name", "chunks"},
                              {"column_name", "text_content"},
                              {"limit", 100}},
                             ctx);
      if (!r) return fail(r.status());
      auto ranked = pages_of((*r)["results"], file_of);
      scores[c].add(ranked, gold);
      row[c] = Json(std::vector<std::string>(ranked.begin(), ranked.begin() + std::min<size_t>(5, ranked.size())));
    }
    auto r = registry.call("ClassicRetrieve", {{"query", q["question"]}, {"limit", int(kDepth)}}, ctx);
    if (!r) return fail(r.status());
    auto ranked = pages_of((*r)["results"], file_of);
    scores["ClassicRetrieve"].add(ranked, gold);
    row["ClassicRetrieve"] =
        Json(std::vector<std::string>(ranked.begin(), ranked.begin() + std::min<size_t>(5, ranked.size())));
    auto a = run_offline_agent(q["question"], registry, ctx, AgentOptions{});
    if (!a) return fail(a.status());
    std::string answer = lower(a->answer);
    bool hit = std::any_of(q["answer_terms"].begin(), q["answer_terms"].end(), [&](const Json& t) {
      return answer.find(lower(t.get<std::string>())) != std::string::npos;
    });
    key_terms += hit;
    row["key_term"] = hit;
    row["gold"] = Json(std::vector<std::string>(gold.begin(), gold.end()));
    per << row.dump() << "\n";
    ++n;
  }
  if (n == 0) return fail(invalid_argument("no questions in " + questions));
  for (auto& [name, s] : scores)
    std::cout << name << " " << s.r1 / double(n) << " " << s.r5 / double(n) << " " << s.mrr / double(n) << "\n";
  std::cout << "offline_key_terms " << double(key_terms) / double(n) << "\n";
  std::cout << "questions " << n << "\n";
  return 0;
}
