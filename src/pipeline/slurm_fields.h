// Reading Slurm's `key=value` output (scontrol show job, sacct --parsable). A
// scanner, not a regular expression: job names and comments in that output are
// the user's text. Pure; thread-safe.
#pragma once

#include <string>

namespace bioagent {

// The value of `key=value` in `text`: the first `key=` that starts a word (not
// OldJobState= for JobState), up to the next space or line end; an empty value
// is skipped for the next occurrence; "" when none.
std::string slurm_field(const std::string& text, const std::string& key);

}  // namespace bioagent
