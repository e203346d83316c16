// A stage's typed reason ({"kind", "subject", ...}, StageStatus::reason) in
// either language from one bilingual table (src/pipeline): what a report, a
// chat outcome or an event shows; nothing is parsed back from English.
#pragma once

#include <string>

#include "bioagent/bitext.h"
#include "bioagent/status.h"

namespace bioagent {

// The reason in English or Chinese: the kind's sentence with "{field}" filled
// from the reason's fields ("{subject}", "{file}", ...); a failure by its
// class. Empty for a null reason or a kind the table does not have.
std::string render_reason(const Json& reason, Lang lang);
// What the user can do about it ("make every id unique ... and upload the file
// again"); empty when the table has no fix for the kind.
std::string reason_fix(const Json& reason, Lang lang);
// True for the kinds that only repeat an upstream's trouble (upstream_skipped,
// upstream_not_finished): an outcome lists those stages once, under the upstream.
bool is_upstream_reason(const Json& reason);

// An automatic repair (Repair::applied, as StageStatus::repair carries it) in
// a sentence: its rendered description, in Chinese its description_zh or
// "参数 k 由 asked 改为 used 后重新运行" when the stage table has none.
std::string repair_text(const Json& repair, Lang lang);
// Its parameters as asked and as used: "evalue: asked 1e-200, used 0.001".
std::string repair_params_text(const Json& repair, Lang lang);

}  // namespace bioagent
