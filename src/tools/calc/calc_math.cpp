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
      return i.to_double();
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
      return i.to_string();
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
BigInt as_int(const CalcValue& v) { return v.kind == Kind::kBool ? BigInt(v.b ? 1 : 0) : v.i; }

Result<CalcValue> finite(double d, size_t pos, const std::string& op) {
  if (!std::isfinite(d)) return range_err(pos, op, "numerical result out of range (overflow)");
  return CalcValue::of_float(d);
}

// An integer operand as a float, refused as Python refuses when it is too large.
Result<double> int_to_float(const BigInt& v, size_t pos, const std::string& op) {
  double d = v.to_double();
  if (!std::isfinite(d)) return range_err(pos, op, "int too large to convert to float (overflow)");
  return d;
}

Result<double> to_float(const CalcValue& v, size_t pos, const std::string& op) {
  return is_integral(v) ? int_to_float(as_int(v), pos, op) : Result<double>(v.f);
}

Status too_big(size_t pos, const std::string& op, const CalcLimits& limits) {
  Status s =
      range_err(pos, op, "integer result is too large (more than " + std::to_string(limits.max_int_bits) + " bits)");
  s.with("limit", limits.max_int_bits);
  return s;
}

Result<CalcValue> checked(BigInt v, size_t pos, const std::string& op, const CalcLimits& limits) {
  if (v.bit_length() > limits.max_int_bits) return too_big(pos, op, limits);
  return CalcValue::of_int(std::move(v));
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

Result<CalcValue> int_power(const BigInt& base, const BigInt& exp, size_t pos, const CalcLimits& limits) {
  if (exp.negative()) {
    if (base.is_zero()) return err(pos, "**", "division by zero (0 cannot be raised to a negative power)");
    auto b = int_to_float(base, pos, "**");
    if (!b) return b.status();
    return finite(std::pow(*b, exp.to_double()), pos, "**");
  }
  const BigInt abs_base = base.abs();
  if (abs_base.compare(1) <= 0) {  // 0, 1, -1
    if (exp.is_zero()) return CalcValue::of_int(1);
    if (base.negative()) return CalcValue::of_int(exp.is_zero() || !(exp.abs().to_string().back() & 1) ? 1 : -1);
    return CalcValue::of_int(base);
  }
  if (!exp.fits_int64() || exp.to_int64() > limits.max_int_exponent) {
    Status s = range_err(
        pos, "**",
        "exponent " + exp.to_string() + " is too large (limit " + std::to_string(limits.max_int_exponent) + ")");
    s.with("limit", limits.max_int_exponent);
    return s;
  }
  const uint64_t e = static_cast<uint64_t>(exp.to_int64());
  // The result has about (bits(base) - 1) * e + 1 bits; refuse before computing it.
  if (e > 0 && (abs_base.bit_length() - 1) * e + 1 > limits.max_int_bits) return too_big(pos, "**", limits);
  return checked(BigInt::pow(base, e), pos, "**", limits);
}

// Python's exact comparison of an integer with a float.
int compare_int_float(const BigInt& x, double y) {
  if (std::isinf(y)) return y > 0 ? -1 : 1;
  const double fl = std::floor(y);
  int c = x.compare(*BigInt::from_double(fl));
  if (c != 0) return c;
  return fl == y ? 0 : -1;
}

Result<CalcValue> int_binary(const std::string& op, const BigInt& x, const BigInt& y, size_t pos,
                             const CalcLimits& limits) {
  if (op == "+") return checked(x + y, pos, op, limits);
  if (op == "-") return checked(x - y, pos, op, limits);
  if (op == "*") {
    if (x.bit_length() + y.bit_length() > limits.max_int_bits + 1) return too_big(pos, op, limits);
    return checked(x * y, pos, op, limits);
  }
  if (op == "/") {
    if (y.is_zero()) return err(pos, op, "division by zero");
    double d = BigInt::true_divide(x, y);
    if (!std::isfinite(d)) return range_err(pos, op, "integer division result too large for a float (overflow)");
    return CalcValue::of_float(d);
  }
  if (op == "//" || op == "%") {
    if (y.is_zero()) return err(pos, op, op == "//" ? "integer division by zero" : "integer modulo by zero");
    BigInt q, m;
    BigInt::floor_divmod(x, y, &q, &m);
    return CalcValue::of_int(op == "//" ? q : m);
  }
  if (op == "**") return int_power(x, y, pos, limits);
  return err(pos, op, "unknown operator '" + op + "'");
}

}  // namespace

Result<CalcValue> binary(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos,
                         const CalcLimits& limits) {
  if (a.kind == Kind::kList || b.kind == Kind::kList)
    return err(pos, op, "operator '" + op + "' cannot be applied to a list");
  if (is_integral(a) && is_integral(b)) return int_binary(op, as_int(a), as_int(b), pos, limits);
  auto fx = to_float(a, pos, op), fy = to_float(b, pos, op);
  if (!fx) return fx.status();
  if (!fy) return fy.status();
  const double x = *fx, y = *fy;
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
  if (is_integral(a)) return CalcValue::of_int(-as_int(a));
  return CalcValue::of_float(-a.f);
}

Result<bool> compare(const std::string& op, const CalcValue& a, const CalcValue& b, size_t pos) {
  if (a.kind == Kind::kList || b.kind == Kind::kList) return err(pos, op, "lists cannot be compared");
  int c = 0;
  if (is_integral(a) && is_integral(b)) {
    c = as_int(a).compare(as_int(b));
  } else if (is_integral(a) || is_integral(b)) {
    const double y = is_integral(a) ? b.f : a.f;
    if (std::isnan(y)) return op == "!=";
    c = compare_int_float(as_int(is_integral(a) ? a : b), y);
    if (!is_integral(a)) c = -c;
  } else {
    const double x = a.f, y = b.f;
    if (std::isnan(x) || std::isnan(y)) return op == "!=";
    c = x < y ? -1 : (x > y ? 1 : 0);
  }
  if (op == "<") return c < 0;
  if (op == ">") return c > 0;
  if (op == "<=") return c <= 0;
  if (op == ">=") return c >= 0;
  if (op == "==") return c == 0;
  return c != 0;
}

namespace {

using Fn = Result<CalcValue> (*)(const std::vector<CalcValue>&, size_t);

Status arity(const char* name, size_t pos, const std::string& expect) {
  return err(pos, name, std::string(name) + "() takes " + expect);
}

Result<double> one_number(const char* name, const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 1) return arity(name, pos, "exactly one argument");
  if (a[0].kind == Kind::kList) return err(pos, name, std::string(name) + "() needs a number, not a list");
  return to_float(a[0], pos, name);
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
  return CalcValue::of_int(*BigInt::from_double(d));
}

Result<CalcValue> f_abs(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 1) return arity("abs", pos, "exactly one argument");
  if (a[0].kind == Kind::kList) return err(pos, "abs", "abs() needs a number, not a list");
  if (is_integral(a[0])) return CalcValue::of_int(as_int(a[0]).abs());
  return CalcValue::of_float(std::fabs(a[0].f));
}

// round(int, ndigits < 0): to a multiple of 10**-ndigits, halves to even.
CalcValue round_int(const BigInt& x, const BigInt& nd) {
  if (!nd.negative()) return CalcValue::of_int(x);
  if (nd.compare(-static_cast<int64_t>(kMaxIntDigits) - 1) < 0 ||
      static_cast<size_t>(-nd.to_int64()) > x.abs().to_string().size())
    return CalcValue::of_int(0);
  const BigInt p = BigInt::pow(10, static_cast<uint64_t>(-nd.to_int64()));
  BigInt q, r;
  BigInt::floor_divmod(x, p, &q, &r);
  const int half = (r + r).compare(p);
  if (half > 0 || (half == 0 && (q.abs().to_string().back() & 1))) q = q + 1;
  return CalcValue::of_int(q * p);
}

Result<CalcValue> f_round(const std::vector<CalcValue>& a, size_t pos) {
  if (a.empty() || a.size() > 2) return arity("round", pos, "one or two arguments");
  if (a[0].kind == Kind::kList) return err(pos, "round", "round() needs a number, not a list");
  if (a.size() == 1) {
    if (is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
    return to_int(std::nearbyint(a[0].f), pos, "round");  // default mode: half to even, like Python
  }
  if (!is_integral(a[1])) return err(pos, "round", "round() ndigits must be an integer");
  const BigInt ndigits = as_int(a[1]);
  if (is_integral(a[0])) return round_int(as_int(a[0]), ndigits);
  const int64_t nd = ndigits.fits_int64() ? ndigits.to_int64() : (ndigits.negative() ? -1000 : 1000);
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

// ln, log10 or log2 (`fn`, with `fn(2)` = `of_two`) of a positive number;
// an integer too large for a float is split as m * 2**k first, as Python does.
Result<double> log_value(const char* name, const CalcValue& v, size_t pos, double (*fn)(double), double of_two) {
  if (v.kind == Kind::kList) return err(pos, name, std::string(name) + "() needs numbers, not a list");
  auto domain = [&] {
    return err(pos, name, std::string("math domain error: ") + name + "() needs a positive number");
  };
  if (!is_integral(v)) {
    if (v.f <= 0) return domain();
    return fn(v.f);
  }
  const BigInt x = as_int(v);
  if (x.negative() || x.is_zero()) return domain();
  const double d = x.to_double();
  if (std::isfinite(d)) return fn(d);
  const size_t k = x.bit_length() - 64;
  return fn(BigInt::true_divide(x, BigInt::pow(2, k))) + static_cast<double>(k) * of_two;
}

double natural_log(double x) { return std::log(x); }
double log_ten(double x) { return std::log10(x); }
double log_two(double x) { return std::log2(x); }

Result<CalcValue> f_log(const std::vector<CalcValue>& a, size_t pos) {
  if (a.empty() || a.size() > 2) return arity("log", pos, "one or two arguments");
  auto r = log_value("log", a[0], pos, natural_log, M_LN2);
  if (!r) return r.status();
  if (a.size() == 2) {
    auto lb = log_value("log", a[1], pos, natural_log, M_LN2);
    if (!lb) return lb.status();
    if (*lb == 0) return err(pos, "log", "float division by zero (log base 1)");
    return CalcValue::of_float(*r / *lb);
  }
  return CalcValue::of_float(*r);
}

Result<CalcValue> f_log10(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 1) return arity("log10", pos, "exactly one argument");
  auto r = log_value("log10", a[0], pos, log_ten, 0.30102999566398120);
  if (!r) return r.status();
  return CalcValue::of_float(*r);
}

Result<CalcValue> f_log2(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() != 1) return arity("log2", pos, "exactly one argument");
  auto r = log_value("log2", a[0], pos, log_two, 1.0);
  if (!r) return r.status();
  return CalcValue::of_float(*r);
}

Result<CalcValue> f_exp(const std::vector<CalcValue>& a, size_t pos) {
  auto d = one_number("exp", a, pos);
  if (!d) return d.status();
  return finite(std::exp(*d), pos, "exp");
}

Result<CalcValue> f_floor(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() == 1 && is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
  auto d = one_number("floor", a, pos);
  if (!d) return d.status();
  return to_int(std::floor(*d), pos, "floor");
}

Result<CalcValue> f_ceil(const std::vector<CalcValue>& a, size_t pos) {
  if (a.size() == 1 && is_integral(a[0])) return CalcValue::of_int(as_int(a[0]));
  auto d = one_number("ceil", a, pos);
  if (!d) return d.status();
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
