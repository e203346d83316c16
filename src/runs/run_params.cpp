// RunParams: one parameter value per run, nested by stage, checked against the
// stage schemas; the parameter dialog is a view of it.
#include "bioagent/runs.h"

#include "bioagent/input_limits.h"
#include "bioagent/schema.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

// The dialog's display fields: shown beside the parameters, fixed by the plan.
bool display_field(const std::string& k) { return k == "stage" || k == "species" || k == "family" || k == "prefix"; }

// The stage a dialog field belongs to ("" when `key` is no dialog field).
std::string dialog_stage(const Pipeline& p, const std::string& key) {
  for (auto& s : p.stages())
    for (auto& d : s.dialog)
      if (d.key == key) return s.name;
  return "";
}

Status check_cpus(const Json& v, int max_cpus) {
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > max_cpus)
    return Status(ErrorCode::kInvalidArgument, "params.cpu must be an integer from 1 to " + std::to_string(max_cpus) +
                                                   " (the CPUs this server's runner has)")
        .with("field", "cpu")
        .with("limit", max_cpus);
  return Status::ok();
}

// A stage's given object: every key a property of its schema, and the whole valid once defaults are applied.
Status check_stage_object(const StageSpec& spec, const Json& given) {
  if (!given.is_object())
    return Status(ErrorCode::kInvalidArgument, "params." + spec.name + " must be an object of that stage's parameters")
        .with("field", spec.name);
  const Json props = spec.params_schema.value("properties", Json::object());
  for (auto it = given.begin(); it != given.end(); ++it)
    if (!props.contains(it.key())) {
      std::string known;
      for (auto p = props.begin(); p != props.end(); ++p) known += (known.empty() ? "" : ", ") + p.key();
      return Status(ErrorCode::kInvalidArgument, "params." + spec.name + "." + it.key() +
                                                     " is not a parameter of the " + spec.name +
                                                     " stage (its parameters: " + known + ")")
          .with("field", spec.name + "." + it.key());
    }
  return validate(spec.params_schema, apply_defaults(spec.params_schema, given), "params." + spec.name);
}

}  // namespace

Json RunParams::to_json() const {
  Json out = {{"cpus", cpus}, {"stages", stages}};
  if (!input_limits.empty()) out["input_limits"] = input_limits;
  return out;
}

Result<RunParams> parse_run_params(const Json& given, const Pipeline& pipeline, int max_cpus) {
  RunParams out;
  if (given.is_null()) return out;
  if (!given.is_object()) return invalid_argument("params must be an object");
  for (auto it = given.begin(); it != given.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "cpu" || k == "cpus") {  // the service's runner, not a stage, bounds it
      BIOAGENT_RETURN_IF_ERROR(check_cpus(v, max_cpus));
      out.cpus = int(v.get<int64_t>());
    } else if (k == "input_limits") {  // checked whole here; the stage-step helper applies them
      BIOAGENT_RETURN_IF_ERROR(InputLimits{}.with(v).status());
      out.input_limits.update(v);
    } else if (display_field(k)) {
      if (!v.is_string()) return invalid_argument("params." + k + " must be a string");
    } else if (const StageSpec* spec = pipeline.find(k)) {
      BIOAGENT_RETURN_IF_ERROR(check_stage_object(*spec, v));
      out.stages[k].update(v);
    } else if (std::string stage = dialog_stage(pipeline, k); !stage.empty()) {
      BIOAGENT_RETURN_IF_ERROR(pipeline.check_dialog_value(k, v));  // the stage row's field and schema
      out.stages[stage][k] = v;
    } else {
      return pipeline.check_dialog_value(k, v);  // names the field and lists the dialog's fields
    }
  }
  return out;
}

RunParams merge_run_params(RunParams base, const RunParams& over) {
  if (over.cpus > 0) base.cpus = over.cpus;
  base.input_limits.update(over.input_limits);
  for (auto it = over.stages.begin(); it != over.stages.end(); ++it) base.stages[it.key()].update(it.value());
  return base;
}

Json dialog_view(const RunParams& params, const Pipeline& pipeline, int default_cpus) {
  Json view = pipeline.dialog_defaults(params.stages);
  view["cpu"] = params.cpus > 0 ? params.cpus : default_cpus;
  return view;
}

Json dialog_shown(const Json& row_params, const RunParams& params, const Pipeline& pipeline, int default_cpus) {
  const Json fields = pipeline.dialog_fields();
  const std::string prefix = row_params.value("species", ""), family = row_params.value("family", "");
  Json shown = {{"stage", fields.empty() ? Json("") : fields[0]["stage"]},
                {"species", row_params.value("species_name", prefix)},
                {"family", family},
                {"prefix", prefix + "." + family}};
  shown.update(dialog_view(params, pipeline, default_cpus));
  return shown;
}

}  // namespace bioagent
