// The input limits' table (see bioagent/input_limits.h) and the refusals that name them.
#include "bioagent/input_limits.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "bioagent/pipeline.h"

namespace bioagent {

const std::vector<InputLimits::Field>& InputLimits::fields() {
  static const std::vector<Field> kFields = {
      {"line_bytes", &InputLimits::line_bytes, "bytes of one line (a GFF3/GTF, HMM or table line; a FASTA header)"},
      {"id_bytes", &InputLimits::id_bytes, "bytes of one id (a FASTA name; a GFF3 seqid, ID, Parent or Name)"},
      {"attributes", &InputLimits::attributes, "attributes of one GFF3/GTF line"},
      {"parents", &InputLimits::parents, "ids listed by one Parent attribute"},
      {"features", &InputLimits::features, "feature lines of one GFF3/GTF file"},
      {"records", &InputLimits::records, "records of one protein or CDS FASTA file"},
      {"sequence_bytes", &InputLimits::sequence_bytes, "residues of one protein or CDS record"},
      {"genome_sequence_bytes", &InputLimits::genome_sequence_bytes, "bases of one genome sequence"},
      {"file_bytes", &InputLimits::file_bytes, "bytes of a protein, CDS, GFF3, HMM or table file, inflated"},
      {"genome_bytes", &InputLimits::genome_bytes, "bytes of a genome file, inflated"},
      {"inflate_ratio", &InputLimits::inflate_ratio, "inflated / compressed bytes of a compressed file"},
      {"inflate_ratio_after_bytes", &InputLimits::inflate_ratio_after_bytes,
       "inflated bytes after which the ratio is checked"},
  };
  return kFields;
}

Json InputLimits::to_json() const {
  Json out = Json::object();
  for (auto& f : fields()) out[f.key] = this->*f.member;
  return out;
}

Result<InputLimits> InputLimits::with(const Json& given) const {
  InputLimits out = *this;
  if (given.is_null()) return out;
  if (!given.is_object()) return invalid_argument("input_limits must be an object of {limit: positive integer}");
  for (auto it = given.begin(); it != given.end(); ++it) {
    const Field* field = nullptr;
    for (auto& f : fields())
      if (it.key() == f.key) field = &f;
    if (!field) {
      std::string known;
      for (auto& f : fields()) known += (known.empty() ? "" : ", ") + std::string(f.key);
      return Status(ErrorCode::kInvalidArgument,
                    "input_limits." + it.key().substr(0, 80) + " is not an input limit (the limits: " + known + ")")
          .with("field", "input_limits." + it.key().substr(0, 80));
    }
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 1)
      return Status(ErrorCode::kInvalidArgument, "input_limits." + it.key() + " must be a positive integer")
          .with("field", "input_limits." + it.key());
    out.*(field->member) = it.value().get<int64_t>();
  }
  return out;
}

Result<InputLimits> InputLimits::with_option(const std::string& key_equals_value) const {
  const size_t eq = key_equals_value.find('=');
  int64_t v = 0;
  const char* first = key_equals_value.data() + (eq == std::string::npos ? 0 : eq + 1);
  const char* last = key_equals_value.data() + key_equals_value.size();
  auto r = std::from_chars(first, last, v);
  if (eq == std::string::npos || r.ec != std::errc() || r.ptr != last)
    return invalid_argument("--input-limit takes KEY=N (a whole number), e.g. line_bytes=8388608; got '" +
                            key_equals_value.substr(0, 80) + "'");
  return with(Json{{key_equals_value.substr(0, eq), v}});
}

namespace {
InputLimits& process_limits() {
  static InputLimits limits;
  return limits;
}
}  // namespace

const InputLimits& default_input_limits() { return process_limits(); }
void set_default_input_limits(const InputLimits& limits) { process_limits() = limits; }

Status input_limit_exceeded(const InputLimits& limits, const std::string& key, const std::string& file,
                            const std::string& what) {
  int64_t value = 0;
  for (auto& f : InputLimits::fields())
    if (key == f.key) value = limits.*f.member;
  const std::string n = std::to_string(value);
  Status s = resource_exhausted(file + ": " + what + " (the limit input_limits." + key + " is " + n +
                                "; if the file is genuine, raise it with the run parameter {\"input_limits\": {\"" +
                                key + "\": N}} or the option --input-limit " + key + "=N)");
  s.with("limit", key).with("limit_value", value).with("file", file);
  s.with(kFailureDetail, to_string(FailureClass::kMalformedInput));
  s.with(kReasonDetail, Json{{"kind", "input_limit"}, {"file", file}, {"limit", key}, {"limit_value", value}});
  return s;
}

Status bad_input(const std::string& file, size_t line, const std::string& what, const std::string& what_zh) {
  Status s = parse_error(file + " line " + std::to_string(line) + ": " + what);
  s.with("file", file).with("line", line);
  s.with(kFailureDetail, to_string(FailureClass::kMalformedInput));
  s.with(kReasonDetail, Json{{"kind", "bad_input"},
                             {"file", file},
                             {"line", line},
                             {"detail", what},
                             {"detail_zh", what_zh.empty() ? std::string() : "：" + what_zh}});
  return s;
}

}  // namespace bioagent
