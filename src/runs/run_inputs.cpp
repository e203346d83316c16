// The inputs a client names instead of giving server paths: comparative
// species by prefix (found among the owner's data folders like the run's own
// species, read through links as the run's species is) and an expression
// matrix or reference members by the name of one of the owner's uploads.
#include "bioagent/bitext.h"
#include "bioagent/genefamily.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

// The view plan of `folder` kept to the files read as `<prefix>.*`: a folder of several species
// (the uploads) gives the comparative species only its own files.
Json plan_for_prefix(const fs::path& folder, const std::string& prefix) {
  Json plan = data_view_plan(folder, prefix);
  Json kept = Json::array();
  for (auto& f : plan["read"]) {
    const std::string as = f.value("read_as", f.value("name", std::string()));
    if (as.rfind(prefix + ".", 0) == 0 && f.value("kind", std::string()) != "hmm") kept.push_back(f);
  }
  plan["read"] = kept;
  return plan;
}

// A plain file name: no folder part, not hidden, not a path.
bool plain_name(const std::string& s) {
  return !s.empty() && s.size() <= 255 && s[0] != '.' && s.find('/') == std::string::npos &&
         s.find('\\') == std::string::npos;
}

// A parameter a client gives as the name of one of its uploads.
struct UploadParam {
  const char* stage;
  const char* key;
  BiText what;
};
constexpr UploadParam kUploadParams[] = {{"expression", "matrix", {"the expression matrix", "表达矩阵"}},
                                         {"phylogeny", "references", {"the reference members", "参考成员"}}};

}  // namespace

Result<NamedInputs> RunService::Impl::find_named_inputs(const std::string& owner, const std::string& own_prefix,
                                                        Lang lang, const Json& stages) const {
  NamedInputs out;
  const std::vector<fs::path> dirs = self->data_dirs(owner);
  const Json named = stages.value("synteny", Json::object()).value("comparative_species", Json::array());
  for (auto& p : named) {
    if (!p.is_string()) continue;
    const std::string prefix = p.get<std::string>();
    if (prefix == own_prefix)
      return invalid_argument(BiText{"the comparative species " + prefix + " is the run's own species",
                                     "比较物种 " + prefix + " 就是本次分析的物种"}
                                  .in(lang))
          .with("field", "comparative_species");
    const fs::path folder = find_species_folder(dirs, prefix);
    Json plan = folder.empty() ? Json() : plan_for_prefix(folder, prefix);
    bool has_gff = false, has_pep = false;
    for (auto& f : folder.empty() ? Json::array() : plan["read"])
      has_gff |= f["kind"] == "gff3", has_pep |= f["kind"] == "pep";
    if (!has_gff || !has_pep)
      return not_found(BiText{"the comparative species " + prefix + " needs " + prefix + ".gff3 and " + prefix +
                                  ".pep.fasta among your data (uploads, the chosen server folder, the data roots, "
                                  "the shared example)",
                              "比较物种 " + prefix + " 需要 " + prefix + ".gff3 和 " + prefix +
                                  ".pep.fasta（上传的文件、选定的服务器文件夹、数据根目录或共享示例中）"}
                           .in(lang))
          .with("field", "comparative_species")
          .with("species", prefix);
    out.comparative.push_back({prefix, folder, plan});
  }
  // Files named by an upload's file name (a path stays the command line's).
  for (const UploadParam& u : kUploadParams) {
    if (!stages.contains(u.stage) || !stages[u.stage].is_object()) continue;
    const std::string name = stages[u.stage].value(u.key, std::string());
    if (!plain_name(name)) continue;
    std::error_code ec;
    const fs::path file = self->uploads_dir(owner) / name;
    if (!fs::is_regular_file(file, ec))
      return not_found(BiText{"no uploaded file named " + name + " for " + u.what.in(Lang::kEn) + ": upload it first",
                              "没有名为 " + name + " 的已上传文件可作" + u.what.in(Lang::kZh) + "：请先上传"}
                           .in(lang))
          .with("field", std::string(u.stage) + "." + u.key);
    out.uploads.push_back({u.stage, u.key, file});
  }
  return out;
}

Status RunService::Impl::resolve_named_inputs(const TaskContext& t, Json& run_config) {
  // No reference into run_config is held across an insertion: its object keeps keys in a vector, which an
  // insertion ("comparative") may move.
  auto named = find_named_inputs(t.owner, t.prefix, t.lang, run_config["params"]);
  if (!named) return named.status();
  Json comparative = Json::object();
  for (auto& c : named->comparative) {
    const fs::path view = t.run_dir / "comparative_links" / c.prefix;
    BIOAGENT_RETURN_IF_ERROR(link_data_view(c.folder, c.plan, view));
    comparative[c.prefix] = view.string();
  }
  if (!comparative.empty()) run_config["comparative"] = comparative;
  for (auto& u : named->uploads) run_config["params"][u.stage][u.key] = u.file.string();
  return Status::ok();
}

}  // namespace bioagent
