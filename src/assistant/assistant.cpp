// Assistant: sessions, the chat turn (RouterAgent, then the intent table's
// handler: knowledge, literature, planning, execution or the tool agent),
// plans, uploads and the learning store's export and import.
#include <re2/re2.h>
#include <fstream>

#include "assistant/intents.h"
#include "assistant/report_sections.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, created TEXT);"
    "CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, session TEXT, role TEXT, content TEXT,"
    " meta TEXT, at TEXT);"
    "CREATE INDEX IF NOT EXISTS messages_session ON messages(session);"
    "CREATE TABLE IF NOT EXISTS plans (id TEXT PRIMARY KEY, session TEXT, species TEXT, family TEXT, yaml TEXT,"
    " plan TEXT, at TEXT);";

}  // namespace

std::string Assistant::Impl::species_of(const std::string& sid) const {
  auto r = store->query("SELECT species FROM plans WHERE session = ? ORDER BY at DESC LIMIT 1", {sid});
  return r && !r->empty() ? (*r)[0].value("species", std::string()) : std::string();
}

Status Assistant::Impl::require_session(const std::string& sid) const {
  static const RE2 ok("s_[0-9a-f]{32}");
  if (!RE2::FullMatch(sid, ok)) return not_found("no session '" + sid.substr(0, 80) + "': create one first");
  auto r = store->query("SELECT id FROM sessions WHERE id = ?", {sid});
  if (!r) return r.status();
  if (r->empty()) return not_found("no session '" + sid + "': create one first");
  return Status::ok();
}

Assistant::Assistant(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Assistant::~Assistant() { shutdown(); }

Result<std::unique_ptr<Assistant>> Assistant::open(AssistantOptions options) {
  if (!options.registry || !options.workspace) return invalid_argument("the assistant needs a registry and workspace");
  auto impl = std::make_unique<Impl>();
  impl->o = options;
  impl->env = {options.registry, options.workspace, options.tool_options};
  auto store = AppStore::open(options.runs.state_dir / "app.sqlite", kSchema, "the assistant's store");
  if (!store) return store.status();
  impl->store = std::move(*store);
  if (!impl->env.offline()) {
    auto catalog = load_model_catalog();
    if (catalog && !catalog->empty()) {
      auto model = catalog->get(options.model);
      if (!model) return model.status();
      auto client = LlmClient::create(*model, options.tool_options["allow_private_urls"] == "1");
      if (!client) return client.status();
      impl->llm = std::move(*client);
      impl->model_name = model->name;
    }
  }
  RunServiceOptions ro = options.runs;
  const auto opt = [&](const char* k) { return options.tool_options.count(k) ? options.tool_options.at(k) : ""; };
  ro.network = {{"offline", impl->env.offline()},
                {"cache_dir", opt("cache_dir")},
                {"allow_private_urls", opt("allow_private_urls") == "1"}};
  if (!opt("cache_dir").empty() && ro.version_book.empty())
    ro.version_book = fs::path(opt("cache_dir")) / "program_versions.json";
  auto runs = RunService::open(ro, impl->run_hooks());
  if (!runs) return runs.status();
  impl->runs = std::move(*runs);
  return std::unique_ptr<Assistant>(new Assistant(std::move(impl)));
}

void Assistant::shutdown() {
  if (impl_ && impl_->runs) impl_->runs->shutdown();
}

RunService& Assistant::runs() { return *impl_->runs; }
const RunService& Assistant::runs() const { return *impl_->runs; }

RunHooks Assistant::Impl::run_hooks() {
  RunHooks h;
  h.llm = llm.get();
  h.report_sections = [this](const Json& subject, const std::vector<StageStatus>& finished, const fs::path& run_dir,
                             Lang lang, const std::function<void(Json)>& record) -> Json {
    const std::string prefix = subject.value("prefix", "");
    const Json* sp = find_species(prefix);
    return report_sections_patch(env, llm.get(),
                                 {prefix, sp ? sp->value("latin", "") : "", subject.value("family", "")}, finished,
                                 run_dir, lang, record);
  };
  h.on_outcome = [this](const std::string& owner, const std::string& task_id, TaskState state, const std::string& text,
                        const Json& links) {
    Json meta = {{"agent", "execution"}, {"task_id", task_id}, {"state", to_string(state)}, {"links", links}};
    store->record("INSERT INTO messages (session, role, content, meta, at) VALUES (?,?,?,?,?)",
                  {owner, "assistant", text, json_text(meta), now_iso()});
  };
  return h;
}

Result<Json> Assistant::create_session() {
  std::string id = random_id("s_");
  BIOAGENT_RETURN_IF_ERROR(impl_->store->exec("INSERT INTO sessions (id, created) VALUES (?, ?)", {id, now_iso()}));
  std::error_code ec;
  fs::create_directories(impl_->session_dir(id) / "data", ec);
  return Json{{"session_id", id}, {"model", impl_->model_name}};
}

bool Assistant::has_session(const std::string& sid) const { return impl_->require_session(sid).is_ok(); }

Result<Json> Assistant::messages(const std::string& sid) const {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  auto rows = impl_->store->query("SELECT role, content, meta, at FROM messages WHERE session = ? ORDER BY id", {sid});
  if (!rows) return rows.status();
  for (auto& r : *rows) r["meta"] = Json::parse(r["meta"].get<std::string>(), nullptr, false);
  return Json{{"session_id", sid}, {"messages", *rows}};
}

Result<Json> Assistant::plan(const std::string& sid, const std::string& species, const std::string& family,
                             const std::string& language) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  const Lang lang =
      language.empty() ? (has_cjk(species) || has_cjk(family) ? Lang::kZh : Lang::kEn) : lang_or_en(language);
  return impl_->store_plan(sid, species, family, lang, impl_->llm.get());
}

// Task and stage states by name with both labels; a task state says whether it ends the task.
// Stage and task states share names ("running", "done"); each kind is listed apart.
static Json state_labels() {
  Json task = Json::array(), stage = Json::array();
  for (TaskState s : all_task_states())
    task.push_back({{"name", to_string(s)},
                    {"label", label_of(s).en},
                    {"label_zh", label_of(s).zh},
                    {"terminal", is_terminal(s)}});
  for (StageState s : all_stage_states())
    stage.push_back({{"name", to_string(s)}, {"label", label_of(s).en}, {"label_zh", label_of(s).zh}});
  return {{"task", task}, {"stage", stage}};
}

Json Assistant::config() const {
  Json models = Json::array();
  if (!impl_->env.offline())
    if (auto catalog = load_model_catalog())
      for (auto& m : catalog->models) models.push_back(m.name);
  // The shared species folders (the example genome by default), for the client to offer.
  Json data = Json::array();
  std::error_code ec;
  for (auto& e : fs::directory_iterator(impl_->o.runs.data_dir, ec)) {
    if (!e.is_directory(ec)) continue;
    auto c = check_species_data(e.path(), "", "", false);
    if (c && !(*c)["prefix"].get<std::string>().empty())
      data.push_back({{"prefix", (*c)["prefix"]}, {"family", (*c)["family"]}, {"ready", (*c)["ok"]}});
  }
  Json roots = Json::array();  // by name only; GET /api/data_roots lists their folders
  for (auto& r : impl_->runs->roots()) roots.push_back(r.name);
  return {{"model", impl_->model_name},
          {"models", models},
          {"shared_data", data},
          {"data_roots", roots},
          {"offline", impl_->env.offline()},
          {"confirm_timeout_seconds", impl_->runs->confirm_timeout_seconds()},
          {"naming_rules", naming_rules()},
          {"stages", stage_labels(genefamily_pipeline())},
          {"states", state_labels()},
          {"dialog", genefamily_pipeline().dialog_fields()}};
}

Result<Json> Assistant::chat(const std::string& sid, const std::string& message, const EventFn& on_event,
                             const ChatOptions& co) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  if (message.empty()) return invalid_argument("message is empty");
  if (message.size() > 20000) return invalid_argument("message is longer than 20000 bytes");
  if (co.mode != "rag" && co.mode != "skill") return invalid_argument("mode must be rag or skill");
  auto model = impl_->turn_model(co);
  if (!model) return model.status();
  LlmClient* llm = model->llm;
  auto emit = [&](Json e) {
    if (on_event) on_event(e);
  };
  Route route = impl_->route_message(sid, message, llm);
  if (llm) BIOAGENT_RETURN_IF_ERROR(llm->interrupted());  // the turn runs again with the host's answer
  // Skill mode: a question naming a species and a family asks for the analysis.
  if (co.mode == "skill" && (route.intent == Intent::kFaq || route.intent == Intent::kChitchat) &&
      !route.species.empty() && !route.family.empty())
    route.intent = Intent::kAnalysis;
  emit({{"type", "route"}, {"route", route.to_json()}});
  const Lang lang = lang_or_en(route.language);
  // The intent table's handler answers; one that re-routes (an order with no plan) hands on once.
  const std::function<void(Json)> emit_fn = emit;
  Turn turn{*this, *impl_, sid, message, route, llm, emit_fn, lang, co.client};
  Json reply;
  for (int hop = 0; hop < 2 && reply.is_null(); ++hop) {
    auto r = intent_spec(route.intent).handler(turn);
    if (llm) BIOAGENT_RETURN_IF_ERROR(llm->interrupted());  // nothing of an interrupted turn is kept
    if (!r) return r.status();
    reply = *r;
  }
  reply["route"] = route.to_json();
  if (llm && llm->is_host_model()) impl_->name_host_model(reply, *llm, lang);
  // The answer streams to the client line by line (offline answers exist whole).
  if (!reply.contains("model") || reply["agent"] != "tools") {
    std::string text = reply.value("answer", "");
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      size_t end = nl == std::string::npos ? text.size() : nl + 1;
      emit({{"type", "delta"}, {"text", text.substr(pos, end - pos)}});
      pos = end;
    }
  }
  Json meta = reply;
  meta.erase("answer");
  BIOAGENT_RETURN_IF_ERROR(
      impl_->store->exec("INSERT INTO messages (session, role, content, meta, at) VALUES (?,?,?,?,?)",
                         {sid, "user", message, json_text(Json::object()), now_iso()}));
  BIOAGENT_RETURN_IF_ERROR(
      impl_->store->exec("INSERT INTO messages (session, role, content, meta, at) VALUES (?,?,?,?,?)",
                         {sid, "assistant", reply.value("answer", ""), json_text(meta), now_iso()}));
  emit({{"type", "done"}});
  return reply;
}

namespace {

// Safe names only: one path component of letters, digits, '.', '_' and '-', not hidden.
Status check_upload_name(const std::string& filename) {
  static const RE2 safe("[A-Za-z0-9_][A-Za-z0-9._-]{0,199}");
  if (!RE2::FullMatch(filename, safe) || filename.find("..") != std::string::npos)
    return Status(ErrorCode::kInvalidArgument,
                  "unsafe file name '" + filename.substr(0, 100) +
                      "': use letters, digits, '.', '_' and '-' only, e.g. Lchi.genome.fasta")
        .with("field", "filename");
  return Status::ok();
}

// The prefix a session's uploads already named by the rules share: a misnamed upload beside them is named
// under it, never under a prefix guessed from another word of its own name.
std::string rule_prefix_of(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(folder, ec))
    if (e.is_regular_file(ec)) names.push_back(e.path().filename().string());
  return shared_rule_prefix(names);
}

// An upload's naming as a run of the session's species reads it: a misnamed file is to be renamed under that
// species' prefix (as the run renames it); a file the rules name for another prefix is neither read as the
// species' own nor renamed, and is told so. Without a species, the uploads' shared prefix names the fix.
Json naming_for_session(const std::string& name, const std::string& species, const fs::path& folder) {
  Json n = check_file_name(name, species.empty() ? rule_prefix_of(folder) : species);
  const std::string kind = n.value("kind", Json()).is_string() ? n["kind"].get<std::string>() : "";
  const std::string stem = name.substr(0, name.find('.'));
  if (species.empty() || n.value("ok", false) != true || kind == "hmm" || stem == species) return n;
  n["other_species"] = stem;
  n["session_species"] = species;
  n["message"] = "'" + name + "' is named for the species prefix " + stem + ", not " + species +
                 " (this session's species): the " + species + " analysis does not read it and nothing is renamed; " +
                 "if it is " + species + "'s file, rename it to " + species + name.substr(stem.size());
  n["message_zh"] = "“" + name + "”以物种前缀 " + stem + " 命名，而本会话的物种是 " + species + "：" + species +
                    " 的分析不会读取它，也不会自动改名；若它是 " + species + " 的文件，请改名为 " + species +
                    name.substr(stem.size());
  return n;
}

}  // namespace

Result<fs::path> Assistant::upload_staging_dir(const std::string& sid) const {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  fs::path dir = impl_->session_dir(sid) / ".incoming";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return internal_error("cannot prepare the upload folder: " + ec.message());
  return dir;
}

Result<Json> Assistant::store_upload(const std::string& sid, const std::string& filename, const fs::path& staged) {
  std::error_code ec;
  struct Cleanup {
    const fs::path& p;
    ~Cleanup() {
      std::error_code e;
      fs::remove(p, e);
    }
  } cleanup{staged};
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  BIOAGENT_RETURN_IF_ERROR(check_upload_name(filename));
  uintmax_t bytes = fs::file_size(staged, ec);
  if (ec) return internal_error("the staged upload is gone: " + ec.message());
  if (bytes > impl_->o.max_upload_bytes)
    return resource_exhausted("the file is larger than the upload limit of " +
                              std::to_string(impl_->o.max_upload_bytes) + " bytes");
  if (bytes == 0) return invalid_argument("the file '" + filename + "' is empty");
  fs::path dir = impl_->session_dir(sid) / "data";
  fs::create_directories(dir, ec);
  fs::rename(staged, dir / filename, ec);
  if (ec) return internal_error("cannot store the upload: " + ec.message());
  return Json{
      {"file", filename}, {"bytes", bytes}, {"naming", naming_for_session(filename, impl_->species_of(sid), dir)}};
}

Result<Json> Assistant::upload(const std::string& sid, const std::string& filename, std::string_view content) {
  BIOAGENT_RETURN_IF_ERROR(check_upload_name(filename));
  if (content.size() > impl_->o.max_upload_bytes)
    return resource_exhausted("the file is larger than the upload limit of " +
                              std::to_string(impl_->o.max_upload_bytes) + " bytes");
  auto dir = upload_staging_dir(sid);
  if (!dir) return dir.status();
  fs::path tmp = *dir / (".upload-" + random_id(""));
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(content.data(), std::streamsize(content.size()));
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return internal_error("cannot store the upload (disk full?)");
    }
  }
  return store_upload(sid, filename, tmp);
}

Result<Json> Assistant::session_state(const std::string& sid) const {
  auto m = messages(sid);
  if (!m) return m.status();
  Json out = {{"session_id", sid}, {"messages", (*m)["messages"]}, {"files", Json::array()}};
  std::error_code ec;
  std::vector<fs::path> uploaded;
  for (auto& e : fs::directory_iterator(impl_->session_dir(sid) / "data", ec))
    if (e.is_regular_file(ec) && e.path().filename().string()[0] != '.') uploaded.push_back(e.path());
  std::sort(uploaded.begin(), uploaded.end());
  const std::string species = impl_->species_of(sid);
  for (auto& p : uploaded)
    out["files"].push_back(
        {{"name", p.filename().string()},
         {"bytes", fs::file_size(p, ec)},
         {"naming", naming_for_session(p.filename().string(), species, impl_->session_dir(sid) / "data")}});
  auto tasks = impl_->runs->tasks(sid);
  if (!tasks) return tasks.status();
  out["tasks"] = *tasks;
  return out;
}

Result<Json> Assistant::execute(const std::string& sid, const std::string& plan_id, const Json& params,
                                bool auto_confirm) {
  return impl_->start_plan(sid, plan_id, params, auto_confirm || (params.is_object() && !params.empty()));
}

Result<Json> Assistant::execute_with_dialog(const std::string& sid, const std::string& plan_id, const Json& params) {
  return impl_->start_plan(sid, plan_id, params, false);
}

Result<Json> Assistant::Impl::start_plan(const std::string& sid, const std::string& plan_id, const Json& params,
                                         bool confirmed) {
  BIOAGENT_RETURN_IF_ERROR(require_session(sid));
  auto rows = store->query("SELECT * FROM plans WHERE id = ? AND session = ?", {plan_id, sid});
  if (!rows) return rows.status();
  if (rows->empty()) return not_found("no plan '" + plan_id.substr(0, 80) + "' in this session");
  Json plan = Json::parse((*rows)[0]["plan"].get<std::string>(), nullptr, false);
  Json given = params.is_null() ? Json::object() : params;
  auto rp = parse_run_params(given, genefamily_pipeline(), runs->cpu_limit());
  if (!rp) return rp.status();
  RunRequest rq;
  rq.owner = sid;
  rq.plan_id = plan_id;
  rq.species = (*rows)[0].value("species", "");
  rq.family = (*rows)[0].value("family", "");
  rq.species_name = plan.is_object() ? plan.value("defaults", Json::object()).value("species", "") : "";
  rq.params = *rp;
  rq.lang = plan.is_object() && has_cjk(plan["plan"]["analysis_plan"].value("next_action", "")) ? Lang::kZh : Lang::kEn;
  rq.confirmed = confirmed;
  return runs->start(rq);
}

}  // namespace bioagent
