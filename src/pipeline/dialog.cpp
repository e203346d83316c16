// The parameter dialog's fields, read from the stage rows: each DialogParam
// names a property of its stage's schema, which gives its default and range.
#include "bioagent/pipeline.h"
#include "bioagent/schema.h"

namespace bioagent {

namespace {

// Calls fn(stage, param, property schema) for every dialog parameter, in stage order.
template <typename Fn>
void each_dialog_param(const std::vector<StageSpec>& stages, Fn&& fn) {
  for (auto& s : stages)
    for (auto& d : s.dialog) {
      const Json* props = s.params_schema.contains("properties") ? &s.params_schema["properties"] : nullptr;
      const Json schema = props && props->contains(d.key) ? (*props)[d.key] : Json::object();
      fn(s, d, schema);
    }
}

}  // namespace

Json Pipeline::dialog_fields() const {
  Json out = Json::array();
  each_dialog_param(stages_, [&](const StageSpec& s, const DialogParam& d, const Json& schema) {
    out.push_back({{"key", d.key},
                   {"stage", s.name},
                   {"label", std::string(d.label.en)},
                   {"label_zh", std::string(d.label.zh)},
                   {"schema", schema}});
  });
  return out;
}

Json Pipeline::dialog_defaults(const Json& stage_params) const {
  Json out = Json::object();
  each_dialog_param(stages_, [&](const StageSpec& s, const DialogParam& d, const Json& schema) {
    const Json* given = stage_params.is_object() && stage_params.contains(s.name) && stage_params[s.name].is_object() &&
                                stage_params[s.name].contains(d.key)
                            ? &stage_params[s.name][d.key]
                            : nullptr;
    if (given)
      out[d.key] = *given;
    else if (schema.contains("default"))
      out[d.key] = schema["default"];
  });
  return out;
}

Status Pipeline::check_dialog_value(const std::string& key, const Json& value) const {
  Status result = Status::ok();
  bool known = false;
  std::string keys;
  each_dialog_param(stages_, [&](const StageSpec&, const DialogParam& d, const Json& schema) {
    keys += (keys.empty() ? "" : ", ") + d.key;
    if (d.key != key) return;
    known = true;
    result = validate(schema, value, "params." + key);
  });
  if (!known)
    return Status(ErrorCode::kInvalidArgument,
                  "unknown parameter '" + key.substr(0, 60) + "' (allowed: cpu, " + keys + ")")
        .with("field", key.substr(0, 60));
  return result;
}

Json Pipeline::apply_dialog(Json stage_params, const Json& dialog) const {
  if (!stage_params.is_object()) stage_params = Json::object();
  each_dialog_param(stages_, [&](const StageSpec& s, const DialogParam& d, const Json&) {
    if (dialog.is_object() && dialog.contains(d.key)) stage_params[s.name][d.key] = dialog[d.key];
  });
  return stage_params;
}

}  // namespace bioagent
