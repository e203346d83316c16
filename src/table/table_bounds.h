// Inside src/table: the bound every reader checks before it pads a sheet's
// short rows out to the widest one.
#pragma once

#include <string>

#include "bioagent/table.h"

namespace bioagent {

// OK when the sheet padded to rows × n_cols stays within limits.max_cells;
// else a refusal (kResourceExhausted) naming the limit.
Status check_rectangle(const Sheet& sheet, const std::string& label, const TableLimits& limits);

}  // namespace bioagent
