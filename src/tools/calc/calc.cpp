// Recursive-descent evaluator. Grammar (Python precedence, lowest first):
//   comparison := arith (cmp_op arith)*          chained like Python: a < b < c
//   arith      := term (('+' | '-') term)*
//   term       := factor (('*' | '/' | '//' | '%') factor)*
//   factor     := ('+' | '-') factor | power
//   power      := primary ['**' factor]          right-assoc, binds tighter than a unary on its left
//   primary    := NUMBER | NAME | NAME '(' args ')' | '(' comparison ')' | '[' list ']'
#include "bioagent/calc.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include "tools/calc/calc_math.h"

namespace bioagent {
namespace {

// kInvalid carries a lexical error; the parser reports it when it gets there,
// so every error is reported in reading order.
enum class Tok { kNumber, kName, kString, kDot, kOp, kLParen, kRParen, kLBracket, kRBracket, kComma, kInvalid, kEnd };

struct Token {
  Tok type;
  std::string text;
  size_t pos;
  CalcValue number;
  Status error;  // kInvalid
};

Status error_at(size_t pos, const std::string& token, const std::string& message) {
  Status s = invalid_argument(message + " at position " + std::to_string(pos));
  s.with("position", pos).with("token", token);
  return s;
}

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Result<CalcValue> parse_number(std::string_view text, size_t pos) {
  std::string clean;
  bool is_float = false;
  for (size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    if (c == '_') {  // Python digit separator: only between digits
      if (k == 0 || k + 1 == text.size() || !std::isdigit(static_cast<unsigned char>(text[k - 1])) ||
          !std::isdigit(static_cast<unsigned char>(text[k + 1])))
        return error_at(pos, std::string(text), "invalid number '" + std::string(text) + "'");
      continue;
    }
    if (c == '.' || c == 'e' || c == 'E') is_float = true;
    clean += c;
  }
  if (!is_float) {
    if (clean.size() > 1 && clean[0] == '0' && clean.find_first_not_of('0') != std::string::npos)
      return error_at(pos, std::string(text), "leading zeros in a decimal integer are not allowed");
    if (clean.size() > kMaxIntDigits)  // Python refuses to read such a literal too
      return error_at(pos, std::string(text).substr(0, 20),
                      "integer literal has more than " + std::to_string(kMaxIntDigits) + " digits");
    auto v = BigInt::parse(clean, 10);
    if (!v) return error_at(pos, std::string(text), "invalid number '" + std::string(text) + "'");
    return CalcValue::of_int(std::move(*v));
  }
  // strtod, unlike from_chars, tells overflow (HUGE_VAL) from underflow (0).
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size())
    return error_at(pos, std::string(text), "invalid number '" + std::string(text) + "'");
  if (!std::isfinite(d)) return error_at(pos, std::string(text), "number '" + std::string(text) + "' is too large");
  return CalcValue::of_float(d);
}

Token invalid(size_t pos, const std::string& text, const std::string& message) {
  return {Tok::kInvalid, text, pos, {}, error_at(pos, text, message)};
}

// 0x1F, 0o17, 0b101 (any case, '_' between digits or after the prefix), as Python reads them.
Token prefixed_integer(std::string_view text, size_t pos) {
  const char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
  const int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
  const char* name = kind == 'x' ? "hexadecimal" : kind == 'o' ? "octal" : "binary";
  std::string digits;
  for (size_t k = 2; k < text.size(); ++k) {
    if (text[k] == '_' && k + 1 < text.size() && text[k + 1] != '_') continue;
    digits += text[k];
  }
  const std::string literal(text);
  if (digits.empty() || text.back() == '_') return invalid(pos, literal, std::string("invalid ") + name + " literal");
  if (digits.size() * (base == 16 ? 4 : base == 8 ? 3 : 1) > 4 * kMaxIntDigits)
    return invalid(pos, literal.substr(0, 20), std::string(name) + " literal is too long");
  auto v = BigInt::parse(digits, base);
  if (!v) {
    size_t bad = 2;
    while (bad < text.size() && (text[bad] == '_' || BigInt::parse(text.substr(bad, 1), base))) ++bad;
    std::string digit(1, text[std::min(bad, text.size() - 1)]);
    return invalid(pos + bad, digit, "invalid digit '" + digit + "' in " + name + " literal");
  }
  return {Tok::kNumber, literal, pos, CalcValue::of_int(std::move(*v)), {}};
}

// A decimal number from s[start] (digits, '_', a fraction, an exponent); i ends after it.
// Invalid when a name character follows it or it does not parse.
Token decimal_number(std::string_view s, size_t start, size_t& i) {
  auto digit = [&](size_t k) { return std::isdigit(static_cast<unsigned char>(s[k])) != 0; };
  i = start;
  while (i < s.size() && (digit(i) || s[i] == '_')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (digit(i) || s[i] == '_')) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && digit(j)) {
      i = j;
      while (i < s.size() && digit(i)) ++i;
    }
  }
  if (i < s.size() && is_name_char(s[i]))
    return invalid(i, std::string(1, s[i]),
                   "invalid character in a number (complex numbers and suffixes are not supported)");
  const std::string text(s.substr(start, i - start));
  auto num = parse_number(text, start);
  if (!num) return {Tok::kInvalid, text, start, {}, num.status()};
  return {Tok::kNumber, text, start, *num, {}};
}

// An operator or punctuation at s[i] (two characters for ** // <= >= == !=); i ends after it.
Token punctuation(std::string_view s, size_t& i) {
  auto two = s.substr(i, 2);
  if (two == "**" || two == "//" || two == "<=" || two == ">=" || two == "==" || two == "!=") {
    i += 2;
    return {Tok::kOp, std::string(two), i - 2, {}, {}};
  }
  const char c = s[i];
  const size_t at = i++;
  switch (c) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '<':
    case '>':
      return {Tok::kOp, std::string(1, c), at, {}, {}};
    case '(':
      return {Tok::kLParen, "(", at, {}, {}};
    case ')':
      return {Tok::kRParen, ")", at, {}, {}};
    case '[':
      return {Tok::kLBracket, "[", at, {}, {}};
    case ']':
      return {Tok::kRBracket, "]", at, {}, {}};
    case ',':
      return {Tok::kComma, ",", at, {}, {}};
    case '.':
      return {Tok::kDot, ".", at, {}, {}};
    case '^':
      return invalid(at, "^", "'^' is bitwise xor in Python and is not supported; use ** for powers");
    case '=':
      return invalid(at, "=", "assignment is not allowed; use == to compare");
    default: {
      std::string tok(1, c);
      return invalid(at, tok, "unexpected character '" + tok + "'");
    }
  }
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    size_t start = i;
    if (c == '0' && i + 1 < s.size() && std::string_view("xXoObB").find(s[i + 1]) != std::string_view::npos) {
      i += 2;
      while (i < s.size() && is_name_char(s[i])) ++i;
      out.push_back(prefixed_integer(s.substr(start, i - start), start));
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      out.push_back(decimal_number(s, start, i));
    } else if (is_name_start(c)) {
      while (i < s.size() && is_name_char(s[i])) ++i;
      out.push_back({Tok::kName, std::string(s.substr(start, i - start)), start, {}, {}});
    } else if (c == '"' || c == '\'') {  // kept as a token so errors are reported in reading order
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += (s[j] == '\\') ? 2 : 1;
      i = std::min(j + 1, s.size());
      out.push_back({Tok::kString, std::string(s.substr(start, i - start)), start, {}, {}});
    } else {
      out.push_back(punctuation(s, i));
    }
    if (out.back().type == Tok::kInvalid) break;  // nothing after a lexical error matters
  }
  out.push_back({Tok::kEnd, "", s.size(), {}, {}});
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> toks, const CalcLimits& limits) : toks_(std::move(toks)), limits_(limits) {}

  Result<CalcValue> parse_all() {
    auto v = comparison();
    if (!v) return v;
    if (peek().type != Tok::kEnd) return unexpected(peek());
    if (v->kind == CalcValue::Kind::kList)
      return invalid_argument("a list is only allowed as an argument of sum, min or max");
    return v;
  }

 private:
  const Token& peek() const { return toks_[p_]; }
  const Token& next() { return toks_[p_++]; }
  bool peek_op(std::string_view op) const { return peek().type == Tok::kOp && peek().text == op; }

  Status unexpected(const Token& t) {
    if (t.type == Tok::kInvalid) return t.error;
    if (t.type == Tok::kEnd) return error_at(t.pos, "", "unexpected end of expression");
    return error_at(t.pos, t.text, "unexpected '" + t.text + "'");
  }

  // Scope guard for recursion depth (parens, unary chains, powers, calls).
  struct Depth {
    Parser& p;
    explicit Depth(Parser& parser) : p(parser) { ++p.depth_; }
    ~Depth() { --p.depth_; }
  };
  Status depth_ok(size_t pos) {
    if (depth_ > limits_.max_depth)
      return error_at(pos, "", "expression nests deeper than " + std::to_string(limits_.max_depth) + " levels");
    return {};
  }

  Result<CalcValue> comparison() {
    auto left = arith();
    if (!left) return left;
    if (!(peek_op("<") || peek_op(">") || peek_op("<=") || peek_op(">=") || peek_op("==") || peek_op("!=")))
      return left;
    bool all = true;
    CalcValue lhs = *left;
    while (peek_op("<") || peek_op(">") || peek_op("<=") || peek_op(">=") || peek_op("==") || peek_op("!=")) {
      Token op = next();
      auto rhs = arith();
      if (!rhs) return rhs;
      auto r = calc_math::compare(op.text, lhs, *rhs, op.pos);
      if (!r) return r.status();
      all = all && *r;
      lhs = *rhs;
    }
    return CalcValue::of_bool(all);
  }

  Result<CalcValue> arith() {
    auto left = term();
    if (!left) return left;
    while (peek_op("+") || peek_op("-")) {
      Token op = next();
      auto right = term();
      if (!right) return right;
      left = calc_math::binary(op.text, *left, *right, op.pos, limits_);
      if (!left) return left;
    }
    return left;
  }

  Result<CalcValue> term() {
    auto left = factor();
    if (!left) return left;
    while (peek_op("*") || peek_op("/") || peek_op("//") || peek_op("%")) {
      Token op = next();
      auto right = factor();
      if (!right) return right;
      BIOAGENT_RETURN_IF_ERROR(charge(op, *left, *right));
      left = calc_math::binary(op.text, *left, *right, op.pos, limits_);
      if (!left) return left;
    }
    return left;
  }

  // Counts the big-integer work of `a op b` against limits_.max_work before it is done.
  Status charge(const Token& op, const CalcValue& a, const CalcValue& b) {
    if (a.kind != CalcValue::Kind::kInt || b.kind != CalcValue::Kind::kInt) return Status::ok();
    double wa = static_cast<double>(a.i.bit_length()) / 64 + 1, wb = static_cast<double>(b.i.bit_length()) / 64 + 1;
    double cost = wa * wb;
    if (op.text == "**") {
      if (!b.i.fits_int64() || b.i.to_int64() <= 0) return Status::ok();
      double bits = static_cast<double>(a.i.bit_length()) * static_cast<double>(b.i.to_int64());
      if (bits > static_cast<double>(limits_.max_int_bits)) return Status::ok();  // refused as too large instead
      cost = 2 * (bits / 64 + 1) * (bits / 64 + 1);
    }
    work_ += cost;
    if (work_ <= limits_.max_work) return Status::ok();
    Status s = resource_exhausted("the expression needs more big-integer work than the calculator allows (at " +
                                  op.text + ", position " + std::to_string(op.pos) + ")");
    s.with("limit", limits_.max_work);
    return s;
  }

  Result<CalcValue> factor() {
    if (peek_op("+") || peek_op("-")) {
      Depth d(*this);
      Token op = next();
      BIOAGENT_RETURN_IF_ERROR(depth_ok(op.pos));
      auto v = factor();
      if (!v) return v;
      return calc_math::unary(op.text, *v, op.pos);
    }
    return power();
  }

  Result<CalcValue> power() {
    auto base = primary();
    if (!base) return base;
    if (peek().type == Tok::kDot) return error_at(peek().pos, ".", "attribute access is not allowed");
    if (!peek_op("**")) return base;
    Depth d(*this);
    Token op = next();
    BIOAGENT_RETURN_IF_ERROR(depth_ok(op.pos));
    auto exponent = factor();
    if (!exponent) return exponent;
    BIOAGENT_RETURN_IF_ERROR(charge(op, *base, *exponent));
    return calc_math::binary("**", *base, *exponent, op.pos, limits_);
  }

  Result<CalcValue> primary() {
    Depth d(*this);
    const Token& t = peek();
    BIOAGENT_RETURN_IF_ERROR(depth_ok(t.pos));
    switch (t.type) {
      case Tok::kNumber:
        return next().number;
      case Tok::kLParen: {
        next();
        auto v = comparison();
        if (!v) return v;
        if (peek().type == Tok::kComma)
          return error_at(peek().pos, ",", "tuples are not supported; use [a, b] for a list");
        if (peek().type != Tok::kRParen) return unexpected(peek());
        next();
        return v;
      }
      case Tok::kLBracket: {
        next();
        CalcValue list;
        list.kind = CalcValue::Kind::kList;
        auto items = arguments(Tok::kRBracket);
        if (!items) return items.status();
        list.items = std::move(*items);
        return list;
      }
      case Tok::kName:
        return name();
      case Tok::kString:
        return error_at(t.pos, t.text, "string literals are not allowed");
      case Tok::kDot:
        return error_at(t.pos, ".", "attribute access is not allowed");
      default:
        return unexpected(t);
    }
  }

  // Comma-separated comparisons up to `close` (consumed). Allows a trailing comma.
  Result<std::vector<CalcValue>> arguments(Tok close) {
    std::vector<CalcValue> args;
    while (peek().type != close) {
      auto v = comparison();
      if (!v) return v.status();
      args.push_back(std::move(*v));
      if (args.size() > 100000) return error_at(peek().pos, "", "too many arguments");
      if (peek().type == Tok::kComma) {
        next();
        continue;
      }
      if (peek().type != close) return unexpected(peek());
    }
    next();
    return args;
  }

  Result<CalcValue> name() {
    Token t = next();
    if (peek().type == Tok::kLParen) {
      if (!calc_math::is_function(t.text))
        return error_at(t.pos, t.text,
                        "unknown function '" + t.text + "' (allowed: " + calc_math::function_list() + ")");
      next();
      auto args = arguments(Tok::kRParen);
      if (!args) return args.status();
      if (t.text == "pow" && args->size() == 2) {
        Token as_power = t;
        as_power.text = "**";
        BIOAGENT_RETURN_IF_ERROR(charge(as_power, (*args)[0], (*args)[1]));
      }
      return calc_math::call(t.text, *args, t.pos);
    }
    if (t.text == "True" || t.text == "False") return CalcValue::of_bool(t.text == "True");
    if (t.text == "pi") return CalcValue::of_float(M_PI);
    if (t.text == "e") return CalcValue::of_float(M_E);
    if (calc_math::is_function(t.text))
      return error_at(t.pos, t.text, "function '" + t.text + "' must be called with parentheses");
    return error_at(t.pos, t.text, "name '" + t.text + "' is not allowed (only the constants pi, e, True and False)");
  }

  std::vector<Token> toks_;
  size_t p_ = 0;
  int depth_ = 0;
  double work_ = 0;  // big-integer word products so far
  const CalcLimits& limits_;
};

}  // namespace

Result<CalcValue> evaluate_expression(std::string_view expr, const CalcLimits& limits) {
  if (expr.size() > limits.max_length) {
    Status s = resource_exhausted("expression is " + std::to_string(expr.size()) + " characters long; the limit is " +
                                  std::to_string(limits.max_length));
    s.with("limit", limits.max_length);
    return s;
  }
  for (size_t i = 0; i < expr.size(); ++i) {
    if (static_cast<unsigned char>(expr[i]) >= 0x80 || expr[i] == '\0')
      return error_at(i, "", "only ASCII characters are allowed in an expression");
  }
  auto toks = tokenize(expr);
  if (toks.size() == 1) return invalid_argument("empty expression");
  Parser parser(std::move(toks), limits);
  auto v = parser.parse_all();
  // Python computes such an int but refuses to print it (sys.set_int_max_str_digits).
  if (v && v->kind == CalcValue::Kind::kInt && v->i.bit_length() > 3 * kMaxIntDigits &&
      v->i.abs().to_string().size() > kMaxIntDigits) {
    Status s = resource_exhausted("the integer result has more than " + std::to_string(kMaxIntDigits) +
                                  " digits, the most Python converts to text");
    s.with("limit", kMaxIntDigits);
    return s;
  }
  return v;
}

}  // namespace bioagent
