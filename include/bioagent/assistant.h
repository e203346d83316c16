// The assistant of seed 004: router, knowledge base, knowledge and planning
// agents and the conversation (sessions, messages, plans, uploads) kept in
// SQLite (WAL); runs go through its run service (bioagent/runs.h), which holds
// execution, diagnosis and learning. The HTTP API, MCP and the CLI are thin
// layers over these two. Thread-safe: every method may be called
// from any thread; a session's data is only reachable with its id.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/runs.h"
#include "bioagent/tool.h"

namespace bioagent {

class ToolRegistry;
class Workspace;
namespace fs = std::filesystem;

// ---- Knowledge base (compiled in: src/assistant/*_kb.json) ----------------

// {"families": [{name, aliases, chinese, full_name, pfam[{acc,name}], members{Ath,Osa}, functions, regulators,
// reference}]}
const Json& gene_family_kb();
// {"species": [{prefix, latin, english[], chinese[], taxid, group}]}
const Json& species_kb();
// By name, alias or Chinese name (case-insensitive); nullptr when unknown.
const Json* find_gene_family(std::string_view name);
// By prefix (Lchi), Latin name, or English/Chinese common name; nullptr when unknown.
const Json* find_species(std::string_view name);
// A species entry for `name`: the knowledge base's, else one made from a Latin
// binomial ("Camellia sinensis" -> prefix Csin) or from a prefix whose files
// are in `data_dirs` (the list is for names, not a gate). Null when neither.
std::optional<Json> resolve_species(std::string_view name, const std::vector<fs::path>& data_dirs);
// The naming rule's prefix of a Latin binomial: genus initial + three letters of the epithet.
std::string prefix_of_latin(std::string_view latin);

// ---- Router ---------------------------------------------------------------

// What a message asks for. faq: knowledge about a family; literature: whether
// papers exist; analysis: a research plan; execute: an affirmative order to run
// the plan; plan_question: a question about the plan (files, stages, time);
// decline: the user does not want to run it; stop: stop the task under way
// (cancelled, resumable); resume: continue the stopped task; data, paper: the
// tool agent (the data bundle, the user's papers); chitchat: no content.
enum class Intent {
  kFaq,
  kLiterature,
  kAnalysis,
  kExecute,
  kPlanQuestion,
  kDecline,
  kStop,
  kResume,
  kData,
  kPaper,
  kChitchat
};
std::string to_string(Intent intent);
// The intent of its to_string name; not found for any other text.
Result<Intent> intent_from_string(std::string_view name);

struct Route {
  Intent intent = Intent::kChitchat;
  double confidence = 0;
  std::string species;               // prefix, e.g. "Lchi" (empty: none named)
  std::string species_name;          // a Latin name outside the knowledge base ("Camellia sinensis"), else empty
  std::string family;                // knowledge-base name, e.g. "SPL" (or the word the user used)
  std::string language;              // zh or en
  std::string decided_by = "rules";  // rules or the model's name
  std::vector<std::string> matched;  // the cues that decided
  bool question = false;             // asked as a question (never an order to act)
  bool negated = false;              // refuses running (never an order to act)
  Json form;                         // how the message reads (question, order, refusal, acts, content)
  Json evidence;                     // what each source held for it (scores 0..1, matches, milliseconds)
  Json to_json() const;
};
// The rules with the compiled-in sources only (the knowledge base, the pipeline's
// stages), no session, library, evidence store or bundle: fast, offline.
// Assistant::route asks every source and the session.
Route route_by_rules(std::string_view message);
// Adds the assistant_chat tool (one chat turn of this assistant, in a session of the store at
// the tool option assistant_state_dir, default beside the example bundle) to `registry`.
Status register_assistant_tool(ToolRegistry& registry);
// While it lives, assistant_chat calls for the store at `state_dir` reach `assistant` (a
// server's own, so its sessions, plans and running tasks are the tool's) instead of a
// second assistant opened on the same store. `assistant` must outlive it.
class Assistant;
class SharedAssistant {
 public:
  SharedAssistant(const fs::path& state_dir, Assistant& assistant);
  ~SharedAssistant();
  SharedAssistant(const SharedAssistant&) = delete;
  SharedAssistant& operator=(const SharedAssistant&) = delete;

 private:
  std::string key_;
};

// The rules over a case file (lines "intent<TAB>family<TAB>message"; family "-" for none,
// "*" unchecked; '#' comments): {cases, chinese, correct, accuracy, failures[{message, expected, got}]}.
Result<Json> evaluate_router_cases(const fs::path& file);

// A case file with the session each case is asked in: lines
// "id<TAB>intent<TAB>family<TAB>species<TAB>context<TAB>gold<TAB>message", context none | plan (a plan
// was shown) | running (a task is under way) | library (`pdf_dir`'s PDFs are the user's paper library).
// Each context is set up for real in an assistant opened on `work_dir` (the registry's tools, the bundle
// and other tool options as given); the library is built once. Without `pdf_dir` the library cases are
// skipped and counted as such. The three-column format is read too (context none).
// {cases, chinese, correct, accuracy, intent_accuracy, species_correct, skipped, skipped_why, by_context,
//  confusion{gold: {got: n}}, failures, route_ms{median, max}}.
struct RouterEvalOptions {
  const ToolRegistry* registry = nullptr;
  const Workspace* workspace = nullptr;
  std::map<std::string, std::string> tool_options;
  fs::path pdf_dir;
  fs::path work_dir;
};
Result<Json> evaluate_router_cases(const fs::path& file, const RouterEvalOptions& options);

// ---- The assistant --------------------------------------------------------

struct AssistantOptions {
  // Runs: the state folder (app.sqlite, sessions/<id>/data for uploads, sessions/<id>/runs),
  // the shared species folders, the data roots, CPUs, runner, dialog timeout, the server's
  // stage parameters and whether unfinished tasks resume (RunServiceOptions).
  RunServiceOptions runs;
  const ToolRegistry* registry = nullptr;
  const Workspace* workspace = nullptr;
  std::map<std::string, std::string> tool_options;  // offline, cache_dir, papers_db, ...
  std::string model;  // model name from the catalog ("" = its default; none configured = offline agents)
  size_t max_upload_bytes = size_t(512) << 20;
};

using EventFn = std::function<void(const Json&)>;

class ClientChannel;

struct ChatOptions {
  std::string mode = "rag";  // rag: knowledge first; skill: a named species and family mean "plan the analysis"
  std::string model;         // a catalog name for this turn; "none": the offline agents; "": the server's
  // The client of the MCP call this turn serves (assistant_chat), or null; it must outlive the
  // turn. With no model configured (and `model` not "none"), a client offering sampling lends its
  // model to the agents (the reply names it, model_source "mcp_host"); a run the turn starts asks
  // its parameter dialog as an elicitation form when the client offers elicitation. A client
  // whose calls replay (2026-07-28) gets the turn run again with its answers: nothing is stored
  // and no run starts until the turn completes.
  ClientChannel* client = nullptr;
};

class Assistant {
 public:
  // Opens (or creates) the state folder; tasks that were running when the
  // process stopped are resumed (finished stages are reused from the run folder).
  static Result<std::unique_ptr<Assistant>> open(AssistantOptions options);
  ~Assistant();
  Assistant(const Assistant&) = delete;
  Assistant& operator=(const Assistant&) = delete;

  Result<Json> create_session();
  bool has_session(const std::string& session_id) const;
  Result<Json> messages(const std::string& session_id) const;
  // What a page restores after a reload: the messages, the uploaded files
  // (name, bytes, naming check) and the tasks (id, state, message, times), oldest first.
  Result<Json> session_state(const std::string& session_id) const;

  // How this session's chat would route `message` (the sources asked, the rules' decision, the model's
  // when one is configured and chat_options.model is not "none"); nothing is answered or stored.
  Result<Route> route(const std::string& session_id, const std::string& message, const ChatOptions& chat_options = {});
  // One chat turn: routed, answered, stored. on_event receives {"type": "route"|"delta"|"plan"|"task"|...}.
  Result<Json> chat(const std::string& session_id, const std::string& message, const EventFn& on_event = nullptr,
                    const ChatOptions& chat_options = {});
  // What a client shows: models, the offline flag, the dialog timeout, the naming rules.
  Json config() const;
  // language: zh or en (empty: Chinese when species or family is written in Chinese).
  Result<Json> plan(const std::string& session_id, const std::string& species, const std::string& family,
                    const std::string& language = "");
  // Starts a task for a plan through the run service: the plan's species and family,
  // `params` (RunParams' forms) over the server's, confirmed at once when `auto_confirm` or
  // params are given (else the dialog waits, defaults after the timeout).
  Result<Json> execute(const std::string& session_id, const std::string& plan_id, const Json& params,
                       bool auto_confirm);
  // As execute, but the dialog waits for its answer whatever is given (`params` are its starting
  // values): for a surface that puts the dialog to its user itself (an MCP elicitation form).
  Result<Json> execute_with_dialog(const std::string& session_id, const std::string& plan_id, const Json& params);
  // The run service every surface's runs go through (tasks are owned by session ids).
  RunService& runs();
  const RunService& runs() const;
  // Stores an uploaded file in the session's data folder after the naming check.
  Result<Json> upload(const std::string& session_id, const std::string& filename, std::string_view content);
  // Streamed uploads: a folder inside the session's own folder for partial files
  // (not_found for an unknown session), then the staged file moved into the data
  // folder under `filename` (checked as upload() checks it; the staged file is
  // removed whatever the outcome). Thread-safe.
  Result<fs::path> upload_staging_dir(const std::string& session_id) const;
  Result<Json> store_upload(const std::string& session_id, const std::string& filename, const fs::path& staged);

  // Stops the worker threads; running tasks stay "running" in the store and resume on the next open().
  void shutdown();

 private:
  struct Impl;
  friend struct Turn;  // a chat turn as the intent table's handlers see it (src/assistant/intents.h)
  explicit Assistant(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
