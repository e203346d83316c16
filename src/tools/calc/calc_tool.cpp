#include "bioagent/calc.h"
#include "bioagent/registry.h"
#include "tools/builtin_tools.h"

namespace bioagent::tools {

Result<Json> calculator_tool(const ToolSpec& spec, const Json& args, ToolContext&) {
  CalcLimits limits;
  limits.max_length = spec.settings.value("max_length", limits.max_length);
  limits.max_depth = spec.settings.value("max_depth", limits.max_depth);
  limits.max_int_exponent = spec.settings.value("max_int_exponent", limits.max_int_exponent);
  limits.max_int_bits = spec.settings.value("max_int_bits", limits.max_int_bits);
  const std::string expr = args.at("expr").get<std::string>();
  auto v = evaluate_expression(expr, limits);
  if (!v) {
    Status s = v.status();
    s.with("expr", expr);
    return s;
  }
  Json result;
  switch (v->kind) {
    case CalcValue::Kind::kInt:  // beyond 64 bits JSON numbers lose digits: the exact digits as a string
      if (v->i.fits_int64())
        result = v->i.to_int64();
      else
        result = v->i.to_string();
      break;
    case CalcValue::Kind::kFloat:
      result = v->f;
      break;
    case CalcValue::Kind::kBool:
      result = v->b;
      break;
    case CalcValue::Kind::kList:
      return invalid_argument("the expression evaluates to a list");
  }
  return Json{{"expr", expr}, {"result", result}, {"type", std::string(v->type_name())}, {"text", v->repr()}};
}

}  // namespace bioagent::tools

namespace bioagent {

void register_calc_tool_types(ToolRegistry& registry) { registry.add_type("CalculatorTool", tools::calculator_tool); }

}  // namespace bioagent
