// Python-semantics arithmetic on CalcValue, used by the calculator's parser.
#pragma once

#include <string>
#include <vector>

#include "bioagent/calc.h"

namespace bioagent::calc_math {

Result<CalcValue> binary(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos,
                         const CalcLimits& limits);
Result<CalcValue> unary(const std::string& op, const CalcValue& a, size_t pos);
Result<bool> compare(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos);

bool is_function(const std::string& name);
std::string function_list();
Result<CalcValue> call(const std::string& name, const std::vector<CalcValue>& args, size_t pos);

}  // namespace bioagent::calc_math
