// A safe calculator for Python-style arithmetic: a real tokenizer, parser and
// evaluator (nothing is ever passed to an interpreter). Integers, floats,
// scientific notation, + - * / // % **, unary +/-, parentheses, chained
// comparisons, list literals for sum/min/max, functions abs round min max sum
// sqrt log log10 log2 exp floor ceil pow, constants pi and e. Python semantics
// for / (true division), // and % (floor, sign of divisor). Integers are 64-bit;
// an integer result that would overflow becomes a float. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct CalcLimits {
  size_t max_length = 10000;         // characters in the expression
  int max_depth = 100;               // nesting of parentheses, unary operators, powers
  int64_t max_int_exponent = 10000;  // |n| in a**n for integer a with |a| > 1
};

struct CalcValue {
  enum class Kind { kInt, kFloat, kBool, kList };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<CalcValue> items;  // kList

  static CalcValue of_int(int64_t v) {
    CalcValue c;
    c.kind = Kind::kInt;
    c.i = v;
    return c;
  }
  static CalcValue of_float(double v) {
    CalcValue c;
    c.kind = Kind::kFloat;
    c.f = v;
    return c;
  }
  static CalcValue of_bool(bool v) {
    CalcValue c;
    c.kind = Kind::kBool;
    c.b = v;
    return c;
  }

  double as_double() const;
  // Python's repr(): 14, 0.1, 1e-05, 1e+16, True, [1, 2].
  std::string repr() const;
  std::string_view type_name() const;  // "int", "float", "bool", "list"
};

// Evaluates `expr`. Errors carry details {position (0-based), token} when they
// concern a place in the text.
Result<CalcValue> evaluate_expression(std::string_view expr, const CalcLimits& limits = {});

// Python's repr of a double ("shortest round-trip", fixed for 1e-4 <= |x| < 1e16).
std::string python_float_repr(double x);

}  // namespace bioagent
