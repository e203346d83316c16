// The expression stage's genes x samples matrix as it is read (TSV, CSV or
// xlsx): sample names from the header row, gene ids from the first column,
// values non-negative and finite (anything else reads as 0). Internal to
// genefamily/stages.
#pragma once

#include <string>
#include <vector>

#include "bioagent/pipeline.h"

namespace bioagent::gf {

struct ExpressionMatrix {
  std::vector<std::string> samples, ids;
  std::vector<std::vector<double>> values;  // one row per id, one value per sample
};
Result<ExpressionMatrix> read_expression_matrix(const fs::path& path);

}  // namespace bioagent::gf
