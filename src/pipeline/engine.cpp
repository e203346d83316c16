// Pipeline: planning, stage keys, attempts with repairs, and the DAG scheduler.
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <cerrno>

#include "bioagent/digest.h"
#include "bioagent/json_text.h"
#include "bioagent/pipeline.h"
#include "bioagent/schema.h"
#include "bioagent/version.h"
#include "pipeline/run_store.h"
#include "pipeline/subprocess.h"

namespace bioagent {

Json StageStatus::to_json() const {
  return Json{{"stage", stage},     {"state", state},     {"key", key},        {"folder", folder},
              {"message", message}, {"seconds", seconds}, {"summary", summary}};
}

fs::path StageContext::data(const std::string& key) const {
  return fs::path(run.value("files", Json::object()).value(key, std::string()));
}

std::string program_version(const std::string& program) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(program); it != cache.end()) return it->second;
  std::string v = "not installed";
  if (!which(program).empty()) {
    v = "unknown";
    // Probes run in a scratch folder: some wrappers (Debian's PAML) copy a
    // control file into the current folder and run an example analysis there.
    std::error_code ec;
    fs::path scratch = fs::temp_directory_path(ec) / ("bioagent-probe-" + std::to_string(::getpid()));
    fs::create_directories(scratch, ec);
    for (auto args : {std::vector<std::string>{program, "--version"}, {program, "-h"}, {program, "-help"}}) {
      auto c = capture(args, 10000, scratch.string());
      if (!c) continue;
      // The first line that names a version number.
      size_t pos = 0;
      while (pos < c->out.size()) {
        size_t nl = c->out.find('\n', pos);
        std::string line = c->out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (line.find_first_of("0123456789") != std::string::npos && line.find('.') != std::string::npos) {
          line.erase(0, line.find_first_not_of("# \t"));
          v = line.substr(0, 120);
          break;
        }
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      if (v != "unknown") break;
    }
    fs::remove_all(scratch, ec);
  }
  cache[program] = v;
  return v;
}

Pipeline::Pipeline(std::vector<StageSpec> stages) : stages_(std::move(stages)) {}

const StageSpec* Pipeline::find(const std::string& name) const {
  for (auto& s : stages_)
    if (s.name == name) return &s;
  return nullptr;
}

Result<std::vector<std::string>> Pipeline::plan(const std::vector<std::string>& wanted) const {
  std::set<std::string> need;
  std::function<Status(const std::string&, int)> add = [&](const std::string& n, int depth) -> Status {
    if (depth > 64) return invalid_argument("the stage table has a cycle at '" + n + "'");
    const StageSpec* s = find(n);
    if (!s) {
      std::string list;
      for (auto& st : stages_) list += (list.empty() ? "" : ", ") + st.name;
      return not_found("no stage named '" + n + "'; the stages are: " + list);
    }
    if (!need.insert(n).second) return Status::ok();
    for (auto& up : s->after) BIOAGENT_RETURN_IF_ERROR(add(up, depth + 1));
    return Status::ok();
  };
  if (wanted.empty())
    for (auto& s : stages_) BIOAGENT_RETURN_IF_ERROR(add(s.name, 0));
  for (auto& w : wanted) BIOAGENT_RETURN_IF_ERROR(add(w, 0));
  std::vector<std::string> out;  // table order is a valid order when every stage follows its upstreams
  for (auto& s : stages_)
    if (need.count(s.name)) {
      for (auto& up : s.after)
        if (std::find(out.begin(), out.end(), up) == out.end())
          return invalid_argument("stage '" + s.name + "' is listed before its upstream '" + up + "'");
      out.push_back(s.name);
    }
  return out;
}

namespace {

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, StageStatus> status;
  int free_cpus = 0;
  int running = 0;
};

Result<std::string> data_digest(RunStore& store, const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return not_found("the data file " + p.string() + " does not exist");
  auto size = int64_t(fs::file_size(p, ec));
  auto mtime = int64_t(fs::last_write_time(p, ec).time_since_epoch().count());
  std::string abs = fs::absolute(p).string();
  std::string d = store.cached_digest(abs, size, mtime);
  if (!d.empty()) return d;
  auto h = file_sha256(p);
  if (!h) return h.status();
  store.put_digest(abs, size, mtime, *h);
  return *h;
}

// A program's version, remembered in the run record and in the user's
// cache folder by the binary's path, size and time (an upgrade changes them),
// so neither a warm re-run nor a new run starts helper processes to ask.
std::string cached_version(RunStore& store, const fs::path& book_file, const std::string& program) {
  std::string path = which(program);
  if (path.empty()) return "not installed";
  std::error_code ec;
  auto size = int64_t(fs::file_size(path, ec));
  auto mtime = int64_t(fs::last_write_time(path, ec).time_since_epoch().count());
  std::string v = store.cached_digest("version:" + path, size, mtime);
  if (!v.empty()) return v;
  static std::mutex mu;  // the book is shared by every run in this process
  std::lock_guard lock(mu);
  Json book;
  if (!book_file.empty()) {
    std::ifstream in(book_file);
    book = Json::parse(in, nullptr, false);
    if (!book.is_object()) book = Json::object();
  }
  std::string id = path + "|" + std::to_string(size) + "|" + std::to_string(mtime);
  if (book.contains(id) && book[id].is_string()) {
    v = book[id].get<std::string>();
  } else {
    v = program_version(program);
    if (!book_file.empty()) {  // written whole and renamed: readers never see half a file
      book[id] = v;
      fs::create_directories(book_file.parent_path(), ec);
      fs::path tmp = book_file.string() + ".tmp" + std::to_string(::getpid());
      std::ofstream(tmp) << book.dump(1);
      fs::rename(tmp, book_file, ec);
    }
  }
  store.put_digest("version:" + path, size, mtime, v);
  return v;
}

// Copies what the stage put in its final/ folder into the run's final/ folder.
void publish(const fs::path& folder, const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(folder / "final", ec)) return;
  fs::create_directories(run_dir / "final", ec);
  for (auto& e : fs::directory_iterator(folder / "final", ec))
    if (e.is_regular_file())
      fs::copy_file(e.path(), run_dir / "final" / e.path().filename(), fs::copy_options::overwrite_existing, ec);
}

// One attempt of a stage in a temporary folder; renamed into place on success.
Status attempt(const StageSpec& spec, StageContext ctx, const std::string& key, const fs::path& folder, Runner& runner,
               RunStore& store, const PipelineOptions& o, const Json& versions) {
  std::error_code ec;
  const std::string tmp_prefix = "." + folder.filename().string() + ".tmp-";
  fs::path tmp = folder.parent_path() / (tmp_prefix + std::to_string(::getpid()));
  for (auto& e : fs::directory_iterator(folder.parent_path(), ec)) {  // leftovers of killed runs
    std::string n = e.path().filename().string();
    if (n.rfind(tmp_prefix, 0) != 0) continue;
    pid_t owner = pid_t(std::atol(n.c_str() + tmp_prefix.size()));
    if (owner != ::getpid() && ::kill(owner, 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  ctx.work = tmp;
  fs::path log = tmp / "stage.log";
  auto fail = [&](const std::string& msg) {
    store.record({{"stage", spec.name}, {"key", key}, {"state", "failed"}, {"message", msg}, {"log", log.string()}});
    return Status(ErrorCode::kToolFailed, spec.name + ": " + msg).with("log", log.string());
  };
  if (spec.check)
    if (Status s = spec.check(ctx); !s.is_ok()) return fail(s.message());
  std::vector<Step> steps;
  if (spec.steps) {
    auto st = spec.steps(ctx);
    if (!st) return fail(st.status().message());
    steps = std::move(*st);
  }
  Resources res = resources_for(spec.resource, ctx.cpus);
  res.cpus = ctx.cpus;
  if (o.stage_time_limit_minutes > 0) res.time_minutes = o.stage_time_limit_minutes;
  static const std::atomic<bool> kNever{false};
  const std::atomic<bool>& cancel = o.cancel ? *o.cancel : kNever;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (cancel.load()) return Status(ErrorCode::kCancelled, spec.name + ": cancelled");
    if (auto* cmd = std::get_if<Command>(&steps[i])) {
      ProcessResult r = runner.run(*cmd, tmp, log, res, cancel);
      Json rec = {{"stage", spec.name},
                  {"key", key},
                  {"step", int(i)},
                  {"argv", cmd->argv},
                  {"versions", versions},
                  {"runner", runner.name()},
                  {"job_id", r.job_id},
                  {"seconds", r.seconds},
                  {"user_seconds", r.user_seconds},
                  {"system_seconds", r.system_seconds},
                  {"max_rss_kb", r.max_rss_kb},
                  {"exit_code", r.exit_code},
                  {"log", log.string()}};
      if (r.cancelled) {
        rec["state"] = "cancelled";
        store.record(rec);
        return Status(ErrorCode::kCancelled, spec.name + ": cancelled");
      }
      if (r.timed_out || r.exit_code != 0) {
        std::string why = r.timed_out         ? "timed out after " + std::to_string(res.time_minutes) + " min"
                          : r.exit_code == -1 ? "could not be started"
                                              : "exited with code " + std::to_string(r.exit_code);
        rec["state"] = "failed";
        rec["message"] = cmd->argv[0] + " " + why;
        store.record(rec);
        return Status(ErrorCode::kToolFailed, spec.name + ": " + cmd->argv[0] + " " + why + "\n" + r.log_tail)
            .with("log", log.string());
      }
      rec["state"] = "ok";
      store.record(rec);
    } else {
      Status s = std::get<StageFn>(steps[i])(ctx);
      if (!s.is_ok()) return fail(s.message());
    }
  }
  for (auto& out : spec.outputs)
    if (!fs::exists(tmp / out, ec)) return fail("did not produce " + out);
  std::ofstream(tmp / ".complete") << json_text(
      Json{{"stage", spec.name}, {"key", key}, {"params", ctx.params}, {"versions", versions}}, 2);
  fs::remove_all(folder, ec);  // an incomplete leftover of a killed run
  fs::rename(tmp, folder, ec);
  if (ec) return fail("could not move the finished folder into place: " + ec.message());
  store.record({{"stage", spec.name}, {"key", key}, {"state", "done"}, {"runner", runner.name()}});
  return Status::ok();
}

}  // namespace

Result<std::vector<StageStatus>> Pipeline::run(const Json& run, Runner& runner, const PipelineOptions& given) const {
  auto order = plan(given.stages);
  if (!order) return order.status();
  PipelineOptions o = given;
  const int most = runner.max_cpus();
  if (o.cpus <= 0) o.cpus = most > 0 ? most : 2;
  if (most > 0 && o.cpus > most)
    return Status(ErrorCode::kInvalidArgument, "a CPU budget of " + std::to_string(o.cpus) + " is more than the " +
                                                   std::to_string(most) + " CPUs the " + runner.name() +
                                                   " runner has (allowed: 1 to " + std::to_string(most) + ")")
        .with("field", "cpus");
  auto store = RunStore::open(o.run_dir);
  if (!store) return store.status();
  std::error_code ec;
  fs::create_directories(o.run_dir / "stages", ec);
  Shared sh;
  sh.free_cpus = std::max(1, o.cpus);
  for (auto& n : *order) sh.status[n] = {n, "pending", "", "", "", 0, Json()};
  std::map<std::string, std::string> keys;
  std::vector<std::thread> threads;
  std::set<std::string> announced;  // stages in a final state, announced once
  int finished = 0;
  const int total = int(order->size());
  auto emit = [&](const std::string& stage, const std::string& state, const std::string& msg) {
    if (state != "running" && state != "repairing") {
      announced.insert(stage);
      finished = int(announced.size());
    }
    if (o.on_event) o.on_event({stage, state, msg, finished, total});
  };
  // Ready stages start small first, so quick stages are not held behind a
  // stage that takes every CPU.
  std::vector<std::string> by_size = *order;
  auto weight = [&](const std::string& n) {
    const std::string& r = find(n)->resource;
    return r == "small" ? 0 : r == "medium" ? 1 : 2;
  };
  std::stable_sort(by_size.begin(), by_size.end(), [&](auto& a, auto& b) { return weight(a) < weight(b); });
  std::unique_lock lock(sh.mu);
  while (finished < total) {
    bool started = false;
    for (auto& name : by_size) {
      StageStatus& st = sh.status[name];
      if (st.state != "pending") continue;
      const StageSpec& spec = *find(name);
      bool blocked = false, upstream_failed = false;
      for (auto& up : spec.after) {
        const std::string& us = sh.status[up].state;
        if (us == "failed" || us == "skipped" || us == "cancelled")
          upstream_failed = true;
        else if (us != "done" && us != "cached")
          blocked = true;
      }
      if (upstream_failed || (o.cancel && o.cancel->load())) {
        st.state = o.cancel && o.cancel->load() ? "cancelled" : "skipped";
        st.message = st.state == "skipped" ? "an upstream stage did not finish" : "cancelled";
        emit(name, st.state, st.message);
        started = true;
        continue;
      }
      if (blocked) continue;
      // Key: parameters, data digests, upstream keys, tool versions.
      Json params = apply_defaults(spec.params_schema, run.value("params", Json::object()).value(name, Json::object()));
      if (Status v = validate(spec.params_schema, params, name); !v.is_ok()) {
        st.state = "failed";
        st.message = v.message();
        emit(name, "failed", st.message);
        started = true;
        continue;
      }
      Json versions = Json::object();
      for (auto& p : spec.programs) versions[p] = cached_version(**store, o.version_book, p);
      Json key_doc = {{"stage", name},
                      {"params", params},
                      {"versions", versions},
                      {"data", Json::object()},
                      {"upstream", Json::object()}};
      std::string missing;
      for (auto& p : spec.programs)
        if (versions[p] == "not installed") missing += (missing.empty() ? "" : ", ") + p;
      lock.unlock();
      for (auto& f : spec.data_files) {
        auto d = data_digest(**store, run.value("files", Json::object()).value(f, std::string()));
        key_doc["data"][f] = d ? *d : "missing";
      }
      lock.lock();
      for (auto& up : spec.after) key_doc["upstream"][up] = keys[up];
      std::string key = sha256_hex(key_doc.dump()).substr(0, 16);
      keys[name] = key;
      fs::path folder = o.run_dir / "stages" / (name + "-" + key);
      st.key = key;
      st.folder = folder.string();
      StageContext ctx;
      ctx.run = run;
      ctx.run["run_dir"] = fs::absolute(o.run_dir).string();  // for stages that read the run record (not keyed)
      ctx.params = params;
      for (auto& up : spec.after) ctx.input[up] = sh.status[up].folder;
      if (!missing.empty()) {
        st.state = "failed";
        st.message = "needs " + missing + " (not installed; scripts/setup.sh installs the Debian packages)";
        emit(name, "failed", st.message);
        started = true;
        continue;
      }
      if (fs::exists(folder / ".complete", ec)) {  // finished by an earlier run
        st.state = "cached";
        ctx.work = folder;
        if (spec.parse)
          if (auto sum = spec.parse(ctx)) st.summary = *sum;
        publish(folder, o.run_dir);
        emit(name, "cached", "finished earlier with the same inputs, parameters and tool versions");
        started = true;
        continue;
      }
      Resources res = resources_for(spec.resource, o.cpus);
      int want = std::min(res.cpus, std::max(1, o.cpus));
      if (sh.free_cpus < want && sh.running > 0) continue;  // wait for CPUs
      ctx.cpus = std::max(1, std::min(want, sh.free_cpus));
      sh.free_cpus -= ctx.cpus;
      ++sh.running;
      st.state = "running";
      emit(name, "running", "");
      started = true;
      threads.emplace_back([&, name, ctx, key, folder, versions]() mutable {
        const StageSpec& spec = *find(name);
        auto t0 = std::chrono::steady_clock::now();
        Status s = attempt(spec, ctx, key, folder, runner, **store, o, versions);
        std::string repaired;
        for (auto& rep : spec.repairs) {  // each matching repair once, in order
          if (s.is_ok() || s.code() == ErrorCode::kCancelled) break;
          if (s.message().find(rep.when) == std::string::npos) continue;
          StageContext patched = ctx;
          patched.params.merge_patch(rep.param_patch);
          (*store)->record({{"stage", name}, {"key", key}, {"state", "repair"}, {"message", rep.description}});
          if (o.on_event) o.on_event({name, "repairing", rep.description, -1, total});
          s = attempt(spec, patched, key, folder, runner, **store, o, versions);
          if (s.is_ok()) {
            repaired = rep.description;
            ctx = patched;
          }
        }
        Json summary;
        if (s.is_ok()) {
          ctx.work = folder;
          if (spec.parse) {
            auto sum = spec.parse(ctx);
            summary = sum ? *sum : Json{{"parse_error", sum.status().message()}};
          }
          publish(folder, o.run_dir);
        }
        std::lock_guard g(sh.mu);
        StageStatus& st = sh.status[name];
        st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        st.summary = summary;
        st.state = s.is_ok() ? "done" : s.code() == ErrorCode::kCancelled ? "cancelled" : "failed";
        st.message = s.is_ok() ? (repaired.empty() ? "" : "repaired: " + repaired) : s.message();
        sh.free_cpus += ctx.cpus;
        --sh.running;
        sh.cv.notify_all();
      });
    }
    if (finished >= total) break;
    if (!started) sh.cv.wait(lock);
    for (auto& [n, st] : sh.status)
      if ((st.state == "done" || st.state == "failed" || st.state == "cancelled") && !announced.count(n))
        emit(n, st.state, st.message);
  }
  lock.unlock();
  for (auto& t : threads) t.join();
  std::vector<StageStatus> out;
  for (auto& n : *order) {
    out.push_back(sh.status[n]);
  }
  return out;
}

}  // namespace bioagent
