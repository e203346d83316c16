#include "tools/calc/calc_math.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace bioagent {

using Kind = CalcValue::Kind;

double CalcValue::as_double() const {
  switch (kind) {
    case Kind::kInt:
      return static_cast<double>(i);
    case Kind::kFloat:
      return f;
    case Kind::kBool:
      return b ? 1.0 : 0.0;
    case Kind::kList:
      return 0.0;
  }
  return 0.0;
}

std::string_view CalcValue::type_name() const {
  switch (kind) {
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kBool:
      return "bool";
    case Kind::kList:
      return "list";
  }
  return "int";
}

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  // Shortest round-trip digits in scientific form: d.ddde±XX.
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, end);
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp10 = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp10 >= -4 && exp10 < 16) {  // Python's repr switches to exponent form outside this range
    if (exp10 >= 0) {
      if (static_cast<int>(digits.size()) <= exp10 + 1) {
        out = digits + std::string(exp10 + 1 - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, exp10 + 1) + "." + digits.substr(exp10 + 1);
      }
    } else {
      out = "0." + std::string(-exp10 - 1, '0') + digits;
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += e;
  }
  return neg ? "-" + out : out;
}

std::string CalcValue::repr() const {
  switch (kind) {
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kFloat:
      return python_float_repr(f);
    case Kind::kBool:
      return b ? "True" : "False";
    case Kind::kList: {
      std::string out = "[";
      for (size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + items[k].repr();
      return out + "]";
    }
  }
  return "";
}

namespace calc_math {
namespace {

Status err(size_t pos, const std::string& token, const std::string& message) {
  Status s = invalid_argument(message + " at position " + std::to_string(pos));
  s.with("position", pos).with("token", token);
  return s;
}

Status range_err(size_t pos, const std::string& token, const std::string& message) {
  Status s = resource_exhausted(message + " at position " + std::to_string(pos));
  s.with("position", pos).with("token", token);
  return s;
}

bool is_integral(const CalcValue& v) { return v.kind == Kind::kInt || v.kind == Kind::kBool; }
int64_t as_int(const CalcValue& v) { return v.kind == Kind::kBool ? (v.b ? 1 : 0) : v.i; }

Result<CalcValue> finite(double d, size_t pos, const std::string& op) {
  if (!std::isfinite(d)) return range_err(pos, op, "numerical result out of range (overflow)");
  return CalcValue::of_float(d);
}

// Python's float floor division and modulo (Objects/floatobject.c float_divmod).
void py_float_divmod(double vx, double wx, double* floordiv, double* mod) {
  double m = std::fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m != 0) {
    if ((wx < 0) != (m < 0)) {
      m += wx;
      div -= 1.0;
    }
  } else {
    m = std::copysign(0.0, wx);
  }
  double fd;
  if (div != 0) {
    fd = std::floor(div);
    if (div - fd > 0.5) fd += 1.0;
  } else {
    fd = std::copysign(0.0, vx / wx);
  }
  *floordiv = fd;
  *mod = m;
}

Result<CalcValue> int_power(int64_t base, int64_t exp, size_t pos, const CalcLimits& limits) {
  if (exp < 0) {
    if (base == 0) return err(pos, "**", "division by zero (0 cannot be raised to a negative power)");
    return finite(std::pow(static_cast<double>(base), static_cast<double>(exp)), pos, "**");
  }
  if (base == 0 || base == 1) return CalcValue::of_int(exp == 0 ? 1 : base);
  if (base == -1) return CalcValue::of_int(exp % 2 ? -1 : 1);
  if (exp > limits.max_int_exponent) {
    Status s = range_err(
        pos, "**",
        "exponent " + std::to_string(exp) + " is too large (limit " + std::to_string(limits.max_int_exponent) + ")");
    s.with("limit", limits.max_int_exponent);
    return s;
  }
  int64_t result = 1, b = base, e = exp;
  bool overflow = false;
  while (e > 0 && !overflow) {
    if (e & 1) overflow = __builtin_mul_overflow(result, b, &result);
    e >>= 1;
    if (e > 0 && !overflow) overflow = __builtin_mul_overflow(b, b, &b);
  }
  if (!overflow) return CalcValue::of_int(result);
  return finite(std::pow(static_cast<double>(base), static_cast<double>(exp)), pos, "**");
}

}  // namespace

Result<CalcValue> binary(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos,
                         const CalcLimits& limits) {
  if (a.kind == Kind::kList || b.kind == Kind::kList)
    return err(pos, op, "operator '" + op + "' cannot be applied to a list");
  if (is_integral(a) && is_integral(b)) {
    int64_t x = as_int(a), y = as_int(b), r = 0;
    if (op == "+" && !__builtin_add_overflow(x, y, &r)) return CalcValue::of_int(r);
    if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return CalcValue::of_int(r);
    if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return CalcValue::of_int(r);
    if (op == "/") {
      if (y == 0) return err(pos, op, "division by zero");
      return CalcValue::of_float(static_cast<double>(x) / static_cast<double>(y));
    }
    if (op == "//" || op == "%") {
      if (y == 0) return err(pos, op, op == "//" ? "integer division by zero" : "integer modulo by zero");
      if (!(x == std::numeric_limits<int64_t>::min() && y == -1)) {
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          q -= 1;
          m += y;
        }
        return CalcValue::of_int(op == "//" ? q : m);
      }
    }
    if (op == "**") return int_power(x, y, pos, limits);
    // Integer overflow: fall through to float arithmetic.
  }
  double x = a.as_double(), y = b.as_double();
  if (op == "+") return finite(x + y, pos, op);
  if (op == "-") return finite(x - y, pos, op);
  if (op == "*") return finite(x * y, pos, op);
  if (op == "/") {
    if (y == 0) return err(pos, op, "float division by zero");
    return finite(x / y, pos, op);
  }
  if (op == "//" || op == "%") {
    if (y == 0) return err(pos, op, op == "//" ? "float floor division by zero" : "float modulo by zero");
    double fd, m;
    py_float_divmod(x, y, &fd, &m);
    return finite(op == "//" ? fd : m, pos, op);
  }
  if (op == "**") {
    if (x == 0 && y < 0) return err(pos, op, "zero cannot be raised to a negative power");
    if (x < 0 && std::floor(y) != y)
      return err(pos, op, "a negative number to a fractional power gives a complex number, which is not supported");
    return finite(std::pow(x, y), pos, op);
  }
  return err(pos, op, "unknown operator '" + op + "'");
}

Result<CalcValue> unary(const std::string& op, const CalcValue& a, size_t pos) {
  if (a.kind == Kind::kList) return err(pos, op, "unary '" + op + "' cannot be applied to a list");
  if (op == "+") return is_integral(a) ? CalcValue::of_int(as_int(a)) : a;
  if (is_integral(a)) {
    int64_t x = as_int(a);
    if (x != std::numeric_limits<int64_t>::min()) return CalcValue::of_int(-x);
  }
  return CalcValue::of_float(-a.as_double());
}

Result<bool> compare(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos) {
  if (a.kind == Kind::kList || b.kind == Kind::kList) return err(pos, op, "lists cannot be compared");
  if (is_integral(a) && is_integral(b)) {
    int64_t x = as_int(a), y = as_int(b);
    if (op == "<") return x < y;
    if (op == ">") return x > y;
    if (op == "<=") return x <= y;
    if (op == ">=") return x >= y;
    if (op == "==") return x == y;
    return x != y;
  }
  double x = a.as_double(), y = b.as_double();
  if (op == "<") return x < y;
  if (op == ">") return x > y;
  if (op == "<=") return x <= y;
  if (op == ">=") return x >= y;
  if (op == "==") return x == y;
  return x != y;
}

namespace {

using Fn = Result<CalcValue> (*)(const std::vector<CalcValue>&, size_t);

Status arity(const char* name, size_t pos, const std::string& expect) {
  return err(pos, name, std::string(name) + "() takes " + expect);
}

Result<double> one_number(const char* name, const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 1) return arity(name, pos, "exactly one argument");
  if (a[0].kind == Kind::kList) return err(pos, name, std::string(name) + "() needs a number, not a list");
  return a[0].as_double();
}

// Arguments of min/max/sum: either several numbers or a single list.
Result<std::vector<CalcValue>> spread(const char* name, const std::vector<CalcValue>& a, size_t pos) {
  std::vector<CalcValue> v = (a.size() == 1 && a[0].kind == Kind::kList) ? a[0].items : a;
  for (auto& x : v) {
    if (x.kind == Kind::kList) return err(pos, name, std::string(name) + "() does not accept nested lists");
  }
  return v;
}

Result<CalcValue> to_int(double d, size_t pos, const char* name) {
  if (!std::isfinite(d)) return range_err(pos, name, "cannot convert a non-finite float to an integer");
  if (d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) return CalcValue::of_float(d);
  return CalcValue::of_int(static_cast<int64_t>(d));
}

Result<CalcValue> f_abs(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("abs", a, pos);
  if (!d) return d.status();
  if (is_integral(a[0]) && as_int(a[0]) != std::numeric_limits<int64_t>::min())
    return CalcValue::of_int(std::llabs(as_int(a[0])));
  return CalcValue::of_float(std::fabs(*d));
}

Result<CalcValue> f_round(const std::vector<CalcValue>& a, size_t pos) {
  if (a.empty() || a.size() > 2) return arity("round", pos, "one or two arguments");
  if (a[0].kind == Kind::kList) return err(pos, "round", "round() needs a number, not a list");
  if (a.size() == 1) {
    if (is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
    return to_int(std::nearbyint(a[0].f), pos, "round");  // default mode: half to even, like Python
  }
  if (!is_integral(a[1])) return err(pos, "round", "round() ndigits must be an integer");
  int64_t nd = as_int(a[1]);
  if (is_integral(a[0])) {
    if (nd >= 0) return CalcValue::of_int(as_int(a[0]));
    if (nd < -18) return CalcValue::of_int(0);
    int64_t p = 1;
    for (int64_t k = 0; k < -nd; ++k) p *= 10;
    int64_t x = as_int(a[0]), q = x / p, r = x % p;
    if (r < 0) {
      q -= 1;
      r += p;
    }
    if (2 * r > p || (2 * r == p && (q & 1))) q += 1;
    return CalcValue::of_int(q * p);
  }
  double x = a[0].f;
  if (!std::isfinite(x)) return CalcValue::of_float(x);
  if (nd > 300) return CalcValue::of_float(x);
  if (nd >= 0) {
    // printf rounds the exact binary value correctly, as Python's round does.
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(nd), x);
    return CalcValue::of_float(std::strtod(buf, nullptr));
  }
  if (nd < -308) return CalcValue::of_float(std::copysign(0.0, x));
  double p = std::pow(10.0, static_cast<double>(-nd));
  return CalcValue::of_float(std::nearbyint(x / p) * p);
}

Result<CalcValue> f_minmax(const std::vector<CalcValue>& a, size_t pos, bool is_min) {
  const char* name = is_min ? "min" : "max";
  auto v = spread(name, a, pos);
  if (!v) return v.status();
  if (v->empty()) return err(pos, name, std::string(name) + "() arg is an empty sequence");
  CalcValue best = (*v)[0];
  for (size_t k = 1; k < v->size(); ++k) {
    auto less = compare("<", (*v)[k], best, pos);
    auto more = compare(">", (*v)[k], best, pos);
    if ((is_min && *less) || (!is_min && *more)) best = (*v)[k];
  }
  return best;
}

Result<CalcValue> f_min(const std::vector<CalcValue>& a, size_t pos) { return f_minmax(a, pos, true); }
Result<CalcValue> f_max(const std::vector<CalcValue>& a, size_t pos) { return f_minmax(a, pos, false); }

Result<CalcValue> f_sum(const std::vector<CalcValue>& a, size_t pos) {
  std::vector<CalcValue> v;
  CalcValue total = CalcValue::of_int(0);
  if (a.size() == 2 && a[0].kind == Kind::kList) {  // sum(list, start)
    v = a[0].items;
    total = a[1];
  } else {
    auto s = spread("sum", a, pos);
    if (!s) return s.status();
    v = std::move(*s);
  }
  static const CalcLimits kLimits;
  for (auto& x : v) {
    auto r = binary("+", total, x, pos, kLimits);
    if (!r) return r;
    total = *r;
  }
  return total;
}

Result<CalcValue> f_sqrt(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("sqrt", a, pos);
  if (!d) return d.status();
  if (*d < 0) return err(pos, "sqrt", "math domain error: sqrt() of a negative number");
  return CalcValue::of_float(std::sqrt(*d));
}

Result<CalcValue> log_of(const char* name, double x, size_t pos) {
  if (x <= 0) return err(pos, name, std::string("math domain error: ") + name + "() needs a positive number");
  return CalcValue::of_float(0);
}

Result<CalcValue> f_log(const std::vector<CalcValue>& a, size_t pos) {
  if (a.empty() || a.size() > 2) return arity("log", pos, "one or two arguments");
  for (auto& x : a) {
    if (x.kind == Kind::kList) return err(pos, "log", "log() needs numbers, not a list");
  }
  auto chk = log_of("log", a[0].as_double(), pos);
  if (!chk) return chk;
  double r = std::log(a[0].as_double());
  if (a.size() == 2) {
    auto chk2 = log_of("log", a[1].as_double(), pos);
    if (!chk2) return chk2;
    double lb = std::log(a[1].as_double());
    if (lb == 0) return err(pos, "log", "float division by zero (log base 1)");
    r /= lb;
  }
  return CalcValue::of_float(r);
}

Result<CalcValue> f_log10(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("log10", a, pos);
  if (!d) return d.status();
  auto chk = log_of("log10", *d, pos);
  if (!chk) return chk;
  return CalcValue::of_float(std::log10(*d));
}

Result<CalcValue> f_log2(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("log2", a, pos);
  if (!d) return d.status();
  auto chk = log_of("log2", *d, pos);
  if (!chk) return chk;
  return CalcValue::of_float(std::log2(*d));
}

Result<CalcValue> f_exp(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("exp", a, pos);
  if (!d) return d.status();
  return finite(std::exp(*d), pos, "exp");
}

Result<CalcValue> f_floor(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("floor", a, pos);
  if (!d) return d.status();
  if (is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
  return to_int(std::floor(*d), pos, "floor");
}

Result<CalcValue> f_ceil(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("ceil", a, pos);
  if (!d) return d.status();
  if (is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
  return to_int(std::ceil(*d), pos, "ceil");
}

Result<CalcValue> f_pow(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 2) return arity("pow", pos, "exactly two arguments");
  static const CalcLimits kLimits;
  return binary("**", a[0], a[1], pos, kLimits);
}

const std::map<std::string, Fn>& functions() {
  static const std::map<std::string, Fn> kFns = {
      {"abs", f_abs},     {"round", f_round}, {"min", f_min},     {"max", f_max},   {"sum", f_sum},
      {"sqrt", f_sqrt},   {"log", f_log},     {"log10", f_log10}, {"log2", f_log2}, {"exp", f_exp},
      {"floor", f_floor}, {"ceil", f_ceil},   {"pow", f_pow}};
  return kFns;
}

}  // namespace

bool is_function(const std::string& name) { return functions().count(name) > 0; }

std::string function_list() {
  std::string out;
  for (auto& [name, _] : functions()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

Result<CalcValue> call(const std::string& name, const std::vector<CalcValue>& args, size_t pos) {
  return functions().at(name)(args, pos);
}

}  // namespace calc_math
}  // namespace bioagent
