#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <random>

#include "bioagent/calc.h"

using namespace bioagent;

namespace {

std::string eval(const std::string& e) {
  auto r = evaluate_expression(e);
  return r.is_ok() ? r->repr() : "ERR " + r.status().message();
}

}  // namespace

// Expected values are what CPython 3.11 prints for the same expression.
TEST(Calc, PythonSemantics) {
  struct Case {
    const char* expr;
    const char* repr;
  } cases[] = {
      {"2 + 3 * 4", "14"},
      {"(2 + 3) * 4", "20"},
      {"7 / 2", "3.5"},
      {"8 / 2", "4.0"},
      {"7 // 2", "3"},
      {"-7 // 2", "-4"},
      {"7 // -2", "-4"},
      {"-7 % 3", "2"},
      {"7 % -3", "-2"},
      {"7.5 // 2", "3.0"},
      {"-7.5 % 2", "0.5"},
      {"5 % -0.75", "-0.25"},
      {"2 ** 10", "1024"},
      {"2 ** -1", "0.5"},
      {"-2 ** 2", "-4"},
      {"(-2) ** 2", "4"},
      {"2 ** 3 ** 2", "512"},
      {"-3 ** -1", "-0.3333333333333333"},
      {"0.1 + 0.2", "0.30000000000000004"},
      {"1e3", "1000.0"},
      {"1.5E-3 * 2", "0.003"},
      {"1e16", "1e+16"},
      {"123456789012345.0", "123456789012345.0"},
      {"0.0001", "0.0001"},
      {"0.00001", "1e-05"},
      {"1_000 + 1", "1001"},
      {"--5", "5"},
      {"+-+5", "-5"},
      {"2 ** 100", "1267650600228229401496703205376"},
      {"9223372036854775807 + 1", "9223372036854775808"},
      {"1 < 2 < 3", "True"},
      {"3 > 2 > 2", "False"},
      {"1 == 1.0", "True"},
      {"2 != 2", "False"},
      {"(1 < 2) + 1", "2"},
      {"abs(-3)", "3"},
      {"abs(-2.5)", "2.5"},
      {"round(2.5)", "2"},
      {"round(3.5)", "4"},
      {"round(-0.5)", "0"},
      {"round(2.675, 2)", "2.67"},
      {"round(1234, -2)", "1200"},
      {"round(1250, -2)", "1200"},
      {"round(1350, -2)", "1400"},
      {"round(3.14159, 3)", "3.142"},
      {"min(3, 1, 2)", "1"},
      {"max([1, 2.5, -1])", "2.5"},
      {"sum([1, 2, 3])", "6"},
      {"sum([0.5, 0.25], 1)", "1.75"},
      {"sum(1, 2)", "3"},
      {"sqrt(16)", "4.0"},
      {"log(e)", "1.0"},
      {"log(8, 2)", "3.0"},
      {"log10(1000)", "3.0"},
      {"log2(1024)", "10.0"},
      {"exp(0)", "1.0"},
      {"floor(-2.5)", "-3"},
      {"ceil(2.1)", "3"},
      {"floor(7)", "7"},
      {"pow(2, 8)", "256"},
      {"pow(2.0, 0.5)", "1.4142135623730951"},
      {"pi", "3.141592653589793"},
      {"e", "2.718281828459045"},
      {"round(pi * 2 ** 2, 4)", "12.5664"},
      {" \t2\n+2 ", "4"},
      {"-9223372036854775807 - 1", "-9223372036854775808"},
      {"(-9223372036854775807 - 1) // -1", "9223372036854775808"},
      {"log2(1024) / sqrt(16)", "2.5"},
  };
  for (const auto& c : cases) EXPECT_EQ(eval(c.expr), c.repr) << c.expr;
}

TEST(Calc, TypesOfResults) {
  EXPECT_EQ(evaluate_expression("1 + 1")->kind, CalcValue::Kind::kInt);
  EXPECT_EQ(evaluate_expression("1 / 1")->kind, CalcValue::Kind::kFloat);
  EXPECT_EQ(evaluate_expression("1 < 2")->kind, CalcValue::Kind::kBool);
}

TEST(Calc, HostileInputIsRefusedWithThePosition) {
  struct Case {
    const char* expr;
    const char* message;
    int position;
  } cases[] = {
      {"__import__('os')", "unknown function '__import__'", 0},
      {"open('x')", "unknown function 'open'", 0},
      {"os.system('ls')", "name 'os' is not allowed", 0},
      {"(1).__class__", "attribute access", 3},
      {"'a' * 3", "string literals", 0},
      {"1 + x", "name 'x' is not allowed", 4},
      {"lambda: 1", "name 'lambda' is not allowed", 0},
      {"[1, 2]", "only allowed as an argument", -1},
      {"1 if 2 else 3", "unexpected 'if'", 2},
      {"a = 1", "name 'a' is not allowed", 0},
      {"2 ^ 3", "use ** for powers", 2},
      {"1; 2", "unexpected character ';'", 1},
      {"sqrt", "must be called", 0},
      {"1j", "invalid character in a number", 1},
      {"1 +", "unexpected end", 3},
      {"(1 + 2", "unexpected end", 6},
      {"1 2", "unexpected '2'", 2},
      {"(1, 2)", "tuples are not supported", 2},
      {"", "empty expression", -1},
      {"3 @ 4", "unexpected character '@'", 2},
      {"２ + 2", "only ASCII", 0},
      {"007", "leading zeros", 0},
  };
  for (const auto& c : cases) {
    auto r = evaluate_expression(c.expr);
    ASSERT_FALSE(r.is_ok()) << c.expr << " gave " << r->repr();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << c.expr << ": " << r.status().message();
    if (c.position >= 0) EXPECT_EQ(r.status().details().value("position", -1), c.position) << c.expr;
  }
}

TEST(Calc, ArithmeticErrors) {
  struct Case {
    const char* expr;
    const char* message;
  } cases[] = {
      {"1 / 0", "division by zero"},
      {"1 // 0", "integer division by zero"},
      {"1 % 0", "modulo by zero"},
      {"1.0 / 0.0", "float division by zero"},
      {"0 ** -1", "division by zero"},
      {"0.0 ** -1", "negative power"},
      {"(-8) ** (1/3)", "complex"},
      {"sqrt(-1)", "math domain error"},
      {"log(0)", "math domain error"},
      {"log(-1)", "math domain error"},
      {"log(10, 1)", "division by zero"},
      {"exp(1000)", "overflow"},
      {"10.0 ** 400", "overflow"},
      {"1e308 * 10", "overflow"},
      {"1e400", "too large"},
      {"min([])", "empty sequence"},
      {"round(1, 2, 3)", "takes"},
      {"pow(2)", "takes exactly two"},
      {"sum([[1]])", "nested"},
      {"[1] + 1", "cannot be applied to a list"},
      {"round(1e308 * 10)", "overflow"},
  };
  for (const auto& c : cases) {
    auto r = evaluate_expression(c.expr);
    ASSERT_FALSE(r.is_ok()) << c.expr;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << c.expr << ": " << r.status().message();
  }
}

TEST(Calc, BoundsOnSizeDepthAndExponents) {
  auto huge = evaluate_expression("9**9**9");
  ASSERT_FALSE(huge.is_ok());
  EXPECT_EQ(huge.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find("too large"), std::string::npos);

  auto deep = evaluate_expression(std::string(3000, '(') + "1" + std::string(3000, ')'));
  ASSERT_FALSE(deep.is_ok());
  EXPECT_NE(deep.status().message().find("nests deeper"), std::string::npos);

  auto unary = evaluate_expression(std::string(5000, '-') + "1");
  ASSERT_FALSE(unary.is_ok()) << "a long unary chain must not recurse without bound";

  std::string longexpr = "1";
  for (int i = 0; i < 6000; ++i) longexpr += "+1";
  auto too_long = evaluate_expression(longexpr);
  EXPECT_EQ(too_long.status().code(), ErrorCode::kResourceExhausted);

  CalcLimits roomy;
  roomy.max_length = 100000;
  EXPECT_EQ(evaluate_expression(longexpr, roomy)->repr(), "6001");
  EXPECT_EQ(eval("(((((((((1)))))))))"), "1");
  EXPECT_EQ(eval("1 ** 99999999999"), "1");
  EXPECT_EQ(eval("(-1) ** 99999999999"), "-1");
}

TEST(Calc, FloatRepr) {
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(1e22), "1e+22");
  EXPECT_EQ(python_float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(python_float_repr(123.456), "123.456");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
}

// Python's ints are exact at any size (within the limits): no overflow to a
// float at 2**63; hex, octal and binary literals; True and False. Expected
// values are what CPython 3.11 prints.
TEST(Calc, ExactBigIntegersHexAndBooleans) {
  struct Case {
    const char* expr;
    const char* repr;
  } cases[] = {
      {"2 ** 63", "9223372036854775808"},
      {"2 ** 64 - 1", "18446744073709551615"},
      {"-2 ** 63 - 1", "-9223372036854775809"},
      {"99999999999999999999 + 1", "100000000000000000000"},
      {"12345678901234567890 * 98765432109876543210", "1219326311370217952237463801111263526900"},
      {"2 ** 200 // 3 ** 50", "2238393297946874000179418290327143433"},
      {"-(2 ** 100) // 7", "-181092942889747057356671886483"},
      {"-(2 ** 100) % 7", "5"},
      {"2 ** 100 % -7", "-5"},
      {"2 ** 100 / 2 ** 99", "2.0"},
      {"10 ** 30 / 3", "3.333333333333333e+29"},
      {"(2 ** 64 + 1) / 2 ** 64", "1.0"},
      {"2 ** 64 * 0.5", "9.223372036854776e+18"},
      {"2 ** 64 == 2.0 ** 64", "True"},
      {"2 ** 53 + 1 == 2.0 ** 53", "False"},
      {"2 ** 53 + 1 > 2.0 ** 53", "True"},
      {"abs(-2 ** 70)", "1180591620717411303424"},
      {"max(2 ** 70, 1.5)", "1180591620717411303424"},
      {"sum([2 ** 63, 2 ** 63])", "18446744073709551616"},
      {"round(2 ** 70, -20)", "1200000000000000000000"},
      {"round(1e20)", "100000000000000000000"},
      {"floor(1e19)", "10000000000000000000"},
      {"log2(2 ** 2000)", "2000.0"},
      {"log10(10 ** 400)", "400.0"},
      {"0x10", "16"},
      {"0XfF + 1", "256"},
      {"0o17", "15"},
      {"0b1010", "10"},
      {"0x_ff_ff", "65535"},
      {"0xffffffffffffffffffff", "1208925819614629174706175"},
      {"True + True", "2"},
      {"True", "True"},
      {"False == 0", "True"},
      {"3 * False", "0"},
      {"(1 < 2) == True", "True"},
  };
  for (const auto& c : cases) EXPECT_EQ(eval(c.expr), c.repr) << c.expr;
  EXPECT_EQ(eval("2 ** 10000").size(), 3011u) << "2**10000 has 3,011 digits";
  struct Bad {
    const char* expr;
    const char* message;
  } bad[] = {
      {"0x", "invalid hexadecimal literal"},
      {"0b102", "invalid digit '2' in binary literal"},
      {"0o8", "invalid digit '8' in octal literal"},
      {"0x1_", "invalid hexadecimal literal"},
      {"10 ** 5000", "more than 4300 digits"},
      {"(2 ** 10000) ** 10000", "too large"},
      {"2 ** 10000 * 2 ** 10000 * 2 ** 10000 * 2 ** 10000 * 2 ** 10000 * 2 ** 10000 * 2 ** 10000 * 2 ** 10000 * "
       "2 ** 10000 * 2 ** 10000 * 2 ** 10000",
       "too large"},
      {"2 ** 2000 * 1.0", "int too large to convert to float"},
      {"sqrt(10 ** 400)", "int too large to convert to float"},
      {"10 ** 400 / 10 ** -1", "int too large"},
      {"10 ** 400 / 3", "too large for a float"},
      {"true", "name 'true' is not allowed"},
  };
  for (const auto& c : bad) {
    auto r = evaluate_expression(c.expr);
    ASSERT_FALSE(r.is_ok()) << c.expr << " gave " << r->repr();
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << c.expr << ": " << r.status().message();
  }
}

TEST(Calc, BigIntMatchesInt64OnRandomOperands) {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 2000; ++k) {
    const int64_t a = static_cast<int64_t>(rng() >> (rng() % 64)) * ((rng() & 1) ? 1 : -1);
    int64_t b = static_cast<int64_t>(rng() >> (rng() % 64)) * ((rng() & 1) ? 1 : -1);
    if (b == 0) b = 3;
    const int64_t sa = a / 4, sb = b / 4;  // no overflow in + and -
    EXPECT_EQ((BigInt(sa) + BigInt(sb)).to_string(), std::to_string(sa + sb));
    EXPECT_EQ((BigInt(sa) - BigInt(sb)).to_string(), std::to_string(sa - sb));
    const int32_t ma = static_cast<int32_t>(a), mb = static_cast<int32_t>(b);
    EXPECT_EQ((BigInt(ma) * BigInt(mb)).to_string(), std::to_string(int64_t(ma) * mb));
    BigInt q, r;
    BigInt::floor_divmod(a, b, &q, &r);
    int64_t tq = a / b, tr = a % b;
    if (tr != 0 && ((tr < 0) != (b < 0))) {
      tq -= 1;
      tr += b;
    }
    EXPECT_EQ(q.to_string(), std::to_string(tq)) << a << " // " << b;
    EXPECT_EQ(r.to_string(), std::to_string(tr)) << a << " % " << b;
    EXPECT_EQ(BigInt(a).to_double(), static_cast<double>(a));
    EXPECT_EQ(BigInt(a).compare(b), a < b ? -1 : (a > b ? 1 : 0));
  }
  // Multi-limb division (Knuth's algorithm D) checked by multiplying back, on
  // random operands of up to 40 limbs with every sign, including divisors whose
  // top limb is small (the normalising shift) or all ones.
  auto random_big = [&](size_t hex_digits) {
    std::string h;
    for (size_t k = 0; k < hex_digits; ++k) h += "0123456789abcdef"[rng() % 16];
    if (rng() % 4 == 0) h = "ffffffff" + h;
    return *BigInt::parse(h, 16);
  };
  for (int k = 0; k < 3000; ++k) {
    BigInt x = random_big(1 + rng() % 320), y = random_big(9 + rng() % 160);
    if (rng() & 1) x = -x;
    if (rng() & 1) y = -y;
    if (y.is_zero()) continue;
    BigInt q, r;
    BigInt::floor_divmod(x, y, &q, &r);
    ASSERT_EQ((q * y + r).compare(x), 0) << x.to_string() << " / " << y.to_string();
    ASSERT_LT(r.abs().compare(y.abs()), 0);
    ASSERT_TRUE(r.is_zero() || r.negative() == y.negative()) << "the remainder takes the divisor's sign";
  }
  BigInt x = BigInt::pow(3, 300) + 12345, y = BigInt::pow(7, 60) - 1;
  BigInt q, r;
  BigInt::floor_divmod(x, y, &q, &r);
  EXPECT_EQ((q * y + r).compare(x), 0);
  EXPECT_LT(r.compare(y), 0);
  EXPECT_FALSE(r.negative());
}
