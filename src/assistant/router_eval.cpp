// The router's evaluations (see bioagent/assistant.h): a three-column case
// file over the rules alone, and a case file whose cases name the session they
// are asked in, each context set up for real (a plan shown, a task waiting in
// its parameter dialog, the PDFs in the paper library) and every case routed by
// Assistant::route, as the chat routes it.
#include <algorithm>
#include <chrono>
#include <fstream>

#include "assistant/assistant_internal.h"
#include "bioagent/genefamily.h"
#include "bioagent/papers.h"

namespace bioagent {
namespace {

struct Case {
  std::string id, intent, family, species, context, gold, message;
  int line = 0;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
    out.push_back(line.substr(at, tab - at));
  out.push_back(line.substr(at));
  return out;
}

Result<std::vector<Case>> read_cases(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return not_found("cannot read router cases " + file.string());
  std::vector<Case> out;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto f = split_tabs(line);
    Case c;
    c.line = line_no;
    if (f.size() == 3) {
      c = {"", f[0], f[1], "*", "none", "-", f[2], line_no};
    } else if (f.size() == 7) {
      c = {f[0], f[1], f[2], f[3], f[4], f[5], f[6], line_no};
    } else {
      return parse_error(file.string() + ":" + std::to_string(line_no) +
                         ": expected intent<TAB>family<TAB>message or id<TAB>intent<TAB>family<TAB>species<TAB>"
                         "context<TAB>gold<TAB>message");
    }
    if (!intent_from_string(c.intent))
      return parse_error(file.string() + ":" + std::to_string(line_no) + ": unknown intent '" + c.intent + "'");
    if (c.context != "none" && c.context != "plan" && c.context != "running" && c.context != "library")
      return parse_error(file.string() + ":" + std::to_string(line_no) + ": unknown context '" + c.context + "'");
    out.push_back(std::move(c));
  }
  if (out.empty()) return invalid_argument(file.string() + " holds no cases");
  return out;
}

bool family_ok(const std::string& want, const Route& r) {
  return want == "*" || (want == "-" ? r.family.empty() : lower_ascii(r.family) == lower_ascii(want));
}

// The Latin name a route names: the species list's for its prefix, else the name the user wrote.
std::string route_latin(const Route& r) {
  if (!r.species_name.empty()) return r.species_name;
  const Json* sp = r.species.empty() ? nullptr : find_species(r.species);
  return sp ? sp->value("latin", "") : r.species;
}

// Tallies of one evaluation.
struct Tally {
  int total = 0, right = 0, intent_right = 0, zh = 0, species_checked = 0, species_right = 0;
  Json failures = Json::array(), confusion = Json::object(), by_context = Json::object();
  std::vector<double> ms;

  void add(const Case& c, const Route& r, double ms_taken) {
    const std::string got = to_string(r.intent);
    const bool ok = got == c.intent && family_ok(c.family, r);
    ++total, zh += has_cjk(c.message), right += ok, intent_right += got == c.intent;
    ms.push_back(ms_taken);
    Json& cell = confusion[c.intent][got];
    cell = cell.is_number() ? cell.get<int>() + 1 : 1;
    Json& ctx = by_context[c.context];
    if (ctx.is_null()) ctx = {{"cases", 0}, {"correct", 0}};
    ctx["cases"] = ctx["cases"].get<int>() + 1;
    ctx["correct"] = ctx["correct"].get<int>() + ok;
    if (c.species != "*") {
      ++species_checked;
      species_right += c.species == "-" ? route_latin(r).empty() : route_latin(r) == c.species;
    }
    if (!ok) {
      Json miss = {{"message", c.message},
                   {"expected", c.intent + (c.family == "*" ? "" : " / " + c.family)},
                   {"got", got + " / " + (r.family.empty() ? "-" : r.family)},
                   {"because", r.matched.empty() ? "" : r.matched.back()}};
      if (!c.id.empty()) miss["id"] = c.id, miss["context"] = c.context;
      miss["form"] = r.form;  // how the message read, and what each source held for it
      miss["evidence"] = r.evidence;
      failures.push_back(miss);
    }
  }

  Json to_json() const {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    Json timing = {{"median", sorted.empty() ? 0.0 : sorted[sorted.size() / 2]},
                   {"max", sorted.empty() ? 0.0 : sorted.back()}};
    return {{"cases", total},
            {"chinese", zh},
            {"correct", right},
            {"accuracy", total ? double(right) / total : 0.0},
            {"intent_accuracy", total ? double(intent_right) / total : 0.0},
            {"species_checked", species_checked},
            {"species_correct", species_right},
            {"confusion", confusion},
            {"by_context", by_context},
            {"route_ms", timing},
            {"failures", failures}};
  }
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<Json> evaluate_router_cases(const fs::path& file) {
  auto cases = read_cases(file);
  if (!cases) return cases.status();
  Tally t;
  for (auto& c : *cases) {
    if (c.context != "none") return invalid_argument(file.string() + " names sessions: evaluate it with an assistant");
    auto t0 = std::chrono::steady_clock::now();
    Route r = route_by_rules(c.message);
    t.add(c, r, ms_since(t0));
  }
  return t.to_json();
}

namespace {

// The sessions the contexts name, set up for real: a fresh one, one with a plan, one whose task waits in its
// parameter dialog (under way, nothing computed), and a fresh one in an assistant whose library holds the PDFs.
struct EvalWorld {
  std::unique_ptr<Assistant> plain, with_library;
  std::map<std::string, std::string> session;  // context -> session id
  std::string task;
  std::string library_missing;  // why the library cases are skipped ("" when they are not)
  ~EvalWorld() {
    if (plain && !task.empty()) (void)plain->runs().cancel(session["running"], task);
    if (plain) plain->shutdown();
    if (with_library) with_library->shutdown();
  }
};

Result<std::unique_ptr<Assistant>> open_for_eval(const RouterEvalOptions& o, const std::string& name,
                                                 const std::string& papers_db) {
  AssistantOptions ao;
  ao.runs.state_dir = o.work_dir / name;
  ao.runs.data_dir = o.work_dir / "data";
  ao.runs.confirm_timeout_seconds = 3600;  // the running context's task waits in its dialog all along
  ao.runs.resume_tasks = false;
  ao.runs.cpus = 1;
  ao.registry = o.registry;
  ao.workspace = o.workspace;
  ao.tool_options = o.tool_options;
  ao.tool_options["offline"] = "1";                                // the rules are evaluated; no model is asked
  ao.tool_options["cache_dir"] = (o.work_dir / "cache").string();  // no evidence store of the user's
  ao.tool_options.erase("papers_db");
  if (!papers_db.empty()) ao.tool_options["papers_db"] = papers_db;
  return Assistant::open(ao);
}

// The paper library of the PDFs in `dir` (built once per work folder); "" with the reason when there are none.
std::string build_library(const fs::path& dir, const fs::path& db, std::string* why) {
  std::vector<fs::path> pdfs;
  std::error_code ec;
  if (!dir.empty())
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().extension() == ".pdf") pdfs.push_back(it->path());
  if (pdfs.empty()) {
    *why = dir.empty() ? "no PDF folder given" : "no PDFs in " + dir.string();
    return "";
  }
  std::sort(pdfs.begin(), pdfs.end());
  fs::create_directories(db.parent_path(), ec);
  auto lib = PaperLibrary::open(db.string());
  if (!lib) {
    *why = lib.status().message();
    return "";
  }
  size_t failed = (*lib)->add_many(pdfs, 2, [](size_t, const Result<IngestReport>&) {});
  if (failed == pdfs.size()) *why = "none of the PDFs could be read";
  return failed == pdfs.size() ? "" : db.string();
}

Status set_up(EvalWorld& w, const RouterEvalOptions& o, bool need_library) {
  std::error_code ec;
  if (!fs::exists(o.work_dir / "data" / "Exam" / "truth.json", ec)) {
    auto ex = write_example_genome(o.work_dir / "data" / "Exam");
    if (!ex) return ex.status();
  }
  auto a = open_for_eval(o, "state", "");
  if (!a) return a.status();
  w.plain = std::move(*a);
  for (const char* ctx : {"none", "plan", "running"}) {
    auto s = w.plain->create_session();
    if (!s) return s.status();
    w.session[ctx] = (*s)["session_id"];
  }
  for (const char* ctx : {"plan", "running"}) {
    auto p = w.plain->plan(w.session[ctx], "Exam", "GLOBIN", "en");
    if (!p) return p.status();
    if (std::string(ctx) == "running") {
      auto t = w.plain->execute(w.session[ctx], (*p)["plan_id"], Json::object(), false);
      if (!t) return t.status();
      w.task = (*t)["task_id"];
    }
  }
  if (!need_library) return Status::ok();
  const std::string db = build_library(o.pdf_dir, o.work_dir / "library" / "papers.duckdb", &w.library_missing);
  if (db.empty()) return Status::ok();
  auto b = open_for_eval(o, "state-library", db);
  if (!b) return b.status();
  w.with_library = std::move(*b);
  auto s = w.with_library->create_session();
  if (!s) return s.status();
  w.session["library"] = (*s)["session_id"];
  return Status::ok();
}

}  // namespace

Result<Json> evaluate_router_cases(const fs::path& file, const RouterEvalOptions& o) {
  if (!o.registry || !o.workspace || o.work_dir.empty())
    return invalid_argument("the router evaluation needs a registry, a workspace and a work folder");
  auto cases = read_cases(file);
  if (!cases) return cases.status();
  const bool need_library =
      std::any_of(cases->begin(), cases->end(), [](const Case& c) { return c.context == "library"; });
  EvalWorld w;
  BIOAGENT_RETURN_IF_ERROR(set_up(w, o, need_library));
  Tally t;
  int skipped = 0;
  for (auto& c : *cases) {
    Assistant* a = c.context == "library" ? w.with_library.get() : w.plain.get();
    if (!a) {
      ++skipped;
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto r = a->route(w.session[c.context], c.message, ChatOptions{"rag", "none"});
    if (!r)
      return Status(r.status().code(), file.string() + ":" + std::to_string(c.line) + ": " + r.status().message());
    t.add(c, *r, ms_since(t0));
  }
  Json out = t.to_json();
  out["skipped"] = skipped;
  if (skipped) out["skipped_why"] = "library cases: " + w.library_missing;
  return out;
}

}  // namespace bioagent
