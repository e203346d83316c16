// A safe calculator for Python-style arithmetic: a real tokenizer, parser and
// evaluator (nothing is ever passed to an interpreter). Integers (decimal,
// 0x / 0o / 0b literals), floats, scientific notation, True / False,
// + - * / // % **, unary +/-, parentheses, chained comparisons, list literals
// for sum/min/max, functions abs round min max sum sqrt log log10 log2 exp
// floor ceil pow, constants pi and e. Python semantics for / (true division,
// correctly rounded also for big integers), // and % (floor, sign of divisor).
// Integers are exact at any size up to CalcLimits::max_int_bits, as in Python;
// a result of more than 4,300 decimal digits is refused as Python refuses to
// print one. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct CalcLimits {
  size_t max_length = 10000;         // characters in the expression
  int max_depth = 100;               // nesting of parentheses, unary operators, powers
  int64_t max_int_exponent = 10000;  // |n| in a**n for integer a with |a| > 1
  size_t max_int_bits = 100000;      // size of any integer while evaluating
  // Big-integer work for the whole expression, in 64-bit word products (a
  // multiply or divide of n and m words costs n*m; a power its squarings).
  // 2**100000 costs about 4 million; the budget is ~0.1 s of CPU.
  double max_work = 50e6;
};

// Python's digit limit for turning an int into text (sys.get_int_max_str_digits()).
inline constexpr size_t kMaxIntDigits = 4300;

// An arbitrary-precision signed integer (sign and magnitude).
class BigInt {
 public:
  BigInt() = default;
  BigInt(int64_t v);  // NOLINT: implicit, as Python mixes them freely
  // Digits only (no sign, prefix or separators) in `base` 2..16; nullopt on a bad digit.
  static std::optional<BigInt> parse(std::string_view digits, int base);
  // An integral finite double, exactly; nullopt otherwise.
  static std::optional<BigInt> from_double(double d);

  bool is_zero() const { return mag_.empty(); }
  bool negative() const { return neg_; }
  size_t bit_length() const;  // of the magnitude; 0 for zero
  bool fits_int64() const;
  int64_t to_int64() const;  // only when fits_int64()
  double to_double() const;  // correctly rounded; ±inf when too large
  std::string to_string() const;
  int compare(const BigInt& o) const;  // -1, 0, 1

  BigInt operator-() const;
  BigInt abs() const;
  friend BigInt operator+(const BigInt& a, const BigInt& b);
  friend BigInt operator-(const BigInt& a, const BigInt& b);
  friend BigInt operator*(const BigInt& a, const BigInt& b);
  // Python's // and %: the quotient floors, the remainder takes b's sign. b != 0.
  static void floor_divmod(const BigInt& a, const BigInt& b, BigInt* q, BigInt* r);
  static BigInt pow(const BigInt& base, uint64_t exp);
  // a / b correctly rounded to a double (±inf when out of range). b != 0.
  static double true_divide(const BigInt& a, const BigInt& b);

 private:
  static BigInt from_magnitude(std::vector<uint32_t> mag, bool negative);
  uint64_t magnitude_u64() const;  // the low 64 bits
  bool neg_ = false;
  std::vector<uint32_t> mag_;  // little-endian limbs, no leading zero limb
};

struct CalcValue {
  enum class Kind { kInt, kFloat, kBool, kList };
  Kind kind = Kind::kInt;
  BigInt i;
  double f = 0;
  bool b = false;
  std::vector<CalcValue> items;  // kList

  static CalcValue of_int(BigInt v) {
    CalcValue c;
    c.kind = Kind::kInt;
    c.i = std::move(v);
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

// Registers the calculator's tool type (CalculatorTool) with `registry`.
class ToolRegistry;
void register_calc_tool_types(ToolRegistry& registry);

}  // namespace bioagent
