// Arbitrary-precision integers for the calculator: sign and magnitude in
// 32-bit limbs, schoolbook multiplication, bitwise long division. Sizes are
// bounded by the calculator's limits (at most CalcLimits::max_int_bits), so the
// quadratic algorithms stay fast.
#include <algorithm>
#include <cmath>

#include "bioagent/calc.h"

namespace bioagent {

namespace {

using Mag = std::vector<uint32_t>;

void trim(Mag& m) {
  while (!m.empty() && m.back() == 0) m.pop_back();
}

int compare_mag(const Mag& a, const Mag& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

Mag add_mag(const Mag& a, const Mag& b) {
  const Mag& big = a.size() >= b.size() ? a : b;
  const Mag& small = a.size() >= b.size() ? b : a;
  Mag out(big.size() + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < big.size(); ++i) {
    uint64_t s = uint64_t(big[i]) + (i < small.size() ? small[i] : 0) + carry;
    out[i] = static_cast<uint32_t>(s);
    carry = s >> 32;
  }
  out[big.size()] = static_cast<uint32_t>(carry);
  trim(out);
  return out;
}

Mag sub_mag(const Mag& a, const Mag& b) {  // |a| >= |b|
  Mag out(a.size(), 0);
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t d = int64_t(a[i]) - (i < b.size() ? b[i] : 0) - borrow;
    borrow = d < 0;
    out[i] = static_cast<uint32_t>(d + (borrow ? (int64_t(1) << 32) : 0));
  }
  trim(out);
  return out;
}

Mag mul_mag(const Mag& a, const Mag& b) {
  if (a.empty() || b.empty()) return {};
  Mag out(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      uint64_t t = uint64_t(a[i]) * b[j] + out[i + j] + carry;
      out[i + j] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    out[i + b.size()] = static_cast<uint32_t>(carry);
  }
  trim(out);
  return out;
}

// Divides by a single limb in place; returns the remainder.
uint32_t divmod_small(Mag& a, uint32_t d) {
  uint64_t rem = 0;
  for (size_t i = a.size(); i-- > 0;) {
    uint64_t cur = (rem << 32) | a[i];
    a[i] = static_cast<uint32_t>(cur / d);
    rem = cur % d;
  }
  trim(a);
  return static_cast<uint32_t>(rem);
}

size_t bits_of(const Mag& m) {
  if (m.empty()) return 0;
  return (m.size() - 1) * 32 + (32 - static_cast<size_t>(__builtin_clz(m.back())));
}

Mag shl_mag(const Mag& m, size_t bits) {
  if (m.empty()) return {};
  Mag out(m.size() + bits / 32 + 1, 0);
  const size_t limbs = bits / 32, shift = bits % 32;
  for (size_t i = 0; i < m.size(); ++i) {
    uint64_t v = uint64_t(m[i]) << shift;
    out[i + limbs] |= static_cast<uint32_t>(v);
    out[i + limbs + 1] |= static_cast<uint32_t>(v >> 32);
  }
  trim(out);
  return out;
}

// Knuth's algorithm D (as in Hacker's Delight, divmnu): u / v with v of two
// limbs or more and u at least as long; O(len(u) * len(v)) limb operations.
void divmod_knuth(const Mag& u, const Mag& v, Mag* q, Mag* r) {
  const size_t m = u.size(), n = v.size();
  const int s = __builtin_clz(v.back());  // normalise: the divisor's top bit set
  auto shifted = [s](uint32_t hi, uint32_t lo) {
    return static_cast<uint32_t>((uint64_t(hi) << s) | (s ? uint64_t(lo) >> (32 - s) : 0));
  };
  Mag vn(n), un(m + 1);
  for (size_t i = n - 1; i > 0; --i) vn[i] = shifted(v[i], v[i - 1]);
  vn[0] = v[0] << s;
  un[m] = s ? static_cast<uint32_t>(uint64_t(u[m - 1]) >> (32 - s)) : 0;
  for (size_t i = m - 1; i > 0; --i) un[i] = shifted(u[i], u[i - 1]);
  un[0] = u[0] << s;
  const uint64_t b = uint64_t(1) << 32;
  Mag quot(m - n + 1, 0);
  for (size_t j = m - n + 1; j-- > 0;) {
    const uint64_t num = (uint64_t(un[j + n]) << 32) | un[j + n - 1];
    uint64_t qhat = num / vn[n - 1], rhat = num % vn[n - 1];
    while (qhat >= b || qhat * vn[n - 2] > ((rhat << 32) | un[j + n - 2])) {
      --qhat;
      rhat += vn[n - 1];
      if (rhat >= b) break;
    }
    int64_t k = 0, t = 0;
    for (size_t i = 0; i < n; ++i) {  // un[j..j+n] -= qhat * vn
      const uint64_t p = qhat * vn[i];
      t = int64_t(un[i + j]) - k - int64_t(p & 0xFFFFFFFFu);
      un[i + j] = static_cast<uint32_t>(t);
      k = int64_t(p >> 32) - (t >> 32);
    }
    t = int64_t(un[j + n]) - k;
    un[j + n] = static_cast<uint32_t>(t);
    quot[j] = static_cast<uint32_t>(qhat);
    if (t < 0) {  // qhat was one too large: add the divisor back
      quot[j] -= 1;
      uint64_t carry = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t sum = uint64_t(un[i + j]) + vn[i] + carry;
        un[i + j] = static_cast<uint32_t>(sum);
        carry = sum >> 32;
      }
      un[j + n] = static_cast<uint32_t>(un[j + n] + carry);
    }
  }
  Mag rem(n, 0);
  for (size_t i = 0; i + 1 < n; ++i)
    rem[i] = static_cast<uint32_t>((uint64_t(un[i]) >> s) | (uint64_t(un[i + 1]) << (32 - s)));
  rem[n - 1] = un[n - 1] >> s;
  trim(quot);
  trim(rem);
  *q = std::move(quot);
  *r = std::move(rem);
}

// Truncating division of magnitudes: q = a / b, r = a % b (b non-zero).
void divmod_mag(const Mag& a, const Mag& b, Mag* q, Mag* r) {
  if (compare_mag(a, b) < 0) {
    *q = {};
    *r = a;
    return;
  }
  if (b.size() == 1) {
    *q = a;
    uint32_t rem = divmod_small(*q, b[0]);
    *r = rem ? Mag{rem} : Mag{};
    return;
  }
  divmod_knuth(a, b, q, r);
}

}  // namespace

BigInt::BigInt(int64_t v) {
  neg_ = v < 0;
  uint64_t m = neg_ ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  while (m) {
    mag_.push_back(static_cast<uint32_t>(m));
    m >>= 32;
  }
}

BigInt BigInt::from_magnitude(std::vector<uint32_t> mag, bool negative) {
  BigInt out;
  trim(mag);
  out.mag_ = std::move(mag);
  out.neg_ = negative && !out.mag_.empty();
  return out;
}

std::optional<BigInt> BigInt::parse(std::string_view digits, int base) {
  if (digits.empty() || base < 2 || base > 16) return std::nullopt;
  Mag m;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c))    ? c - '0'
            : std::isxdigit(static_cast<unsigned char>(c)) ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                                                           : 99;
    if (d >= base) return std::nullopt;
    uint64_t carry = static_cast<uint64_t>(d);
    for (auto& limb : m) {
      uint64_t t = uint64_t(limb) * static_cast<uint64_t>(base) + carry;
      limb = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) m.push_back(static_cast<uint32_t>(carry));
  }
  return from_magnitude(std::move(m), false);
}

std::optional<BigInt> BigInt::from_double(double d) {
  if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
  int exp = 0;
  double frac = std::frexp(std::fabs(d), &exp);  // |d| = frac * 2^exp, 0.5 <= frac < 1
  if (frac == 0) return BigInt();
  const uint64_t mant = static_cast<uint64_t>(std::ldexp(frac, 53));  // exact: 53 bits
  BigInt m(static_cast<int64_t>(mant));
  BigInt out = exp >= 53 ? from_magnitude(shl_mag(m.mag_, static_cast<size_t>(exp - 53)), false)
                         : BigInt(static_cast<int64_t>(mant >> (53 - exp)));
  out.neg_ = d < 0 && !out.mag_.empty();
  return out;
}

size_t BigInt::bit_length() const { return bits_of(mag_); }

bool BigInt::fits_int64() const {
  if (mag_.size() > 2) return false;
  uint64_t m = magnitude_u64();
  return neg_ ? m <= (uint64_t(1) << 63) : m < (uint64_t(1) << 63);
}

uint64_t BigInt::magnitude_u64() const {
  uint64_t m = 0;
  for (size_t i = std::min<size_t>(mag_.size(), 2); i-- > 0;) m = (m << 32) | mag_[i];
  return m;
}

int64_t BigInt::to_int64() const {
  uint64_t m = magnitude_u64();
  return neg_ ? static_cast<int64_t>(~m + 1) : static_cast<int64_t>(m);
}

double BigInt::to_double() const {
  const size_t n = bit_length();
  if (n <= 64) {
    double d = static_cast<double>(magnitude_u64());  // round to nearest even
    return neg_ ? -d : d;
  }
  if (n > 1100) return neg_ ? -HUGE_VAL : HUGE_VAL;
  // The top 64 bits with the rest folded into a sticky bit round once, correctly.
  Mag q, r;
  BigInt one(1);
  divmod_mag(mag_, shl_mag(one.mag_, n - 64), &q, &r);
  uint64_t top = BigInt::from_magnitude(q, false).magnitude_u64() | (r.empty() ? 0 : 1);
  double d = std::ldexp(static_cast<double>(top), static_cast<int>(n - 64));
  return neg_ ? -d : d;
}

std::string BigInt::to_string() const {
  if (mag_.empty()) return "0";
  Mag m = mag_;
  std::string out;
  while (!m.empty()) {
    uint32_t chunk = divmod_small(m, 1000000000u);
    for (int k = 0; k < 9; ++k) {
      out += static_cast<char>('0' + chunk % 10);
      chunk /= 10;
      if (m.empty() && chunk == 0) break;
    }
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  if (neg_) out += '-';
  std::reverse(out.begin(), out.end());
  return out;
}

int BigInt::compare(const BigInt& o) const {
  if (neg_ != o.neg_) return neg_ ? -1 : 1;
  int c = compare_mag(mag_, o.mag_);
  return neg_ ? -c : c;
}

BigInt BigInt::operator-() const { return from_magnitude(mag_, !neg_); }

BigInt BigInt::abs() const { return from_magnitude(mag_, false); }

BigInt operator+(const BigInt& a, const BigInt& b) {
  if (a.neg_ == b.neg_) return BigInt::from_magnitude(add_mag(a.mag_, b.mag_), a.neg_);
  int c = compare_mag(a.mag_, b.mag_);
  if (c == 0) return BigInt();
  return c > 0 ? BigInt::from_magnitude(sub_mag(a.mag_, b.mag_), a.neg_)
               : BigInt::from_magnitude(sub_mag(b.mag_, a.mag_), b.neg_);
}

BigInt operator-(const BigInt& a, const BigInt& b) { return a + (-b); }

BigInt operator*(const BigInt& a, const BigInt& b) {
  return BigInt::from_magnitude(mul_mag(a.mag_, b.mag_), a.neg_ != b.neg_);
}

void BigInt::floor_divmod(const BigInt& a, const BigInt& b, BigInt* q, BigInt* r) {
  Mag qm, rm;
  divmod_mag(a.mag_, b.mag_, &qm, &rm);
  BigInt quot = from_magnitude(std::move(qm), a.neg_ != b.neg_);
  BigInt rem = from_magnitude(std::move(rm), a.neg_);
  if (!rem.is_zero() && rem.neg_ != b.neg_) {  // Python: the remainder takes the divisor's sign
    quot = quot - BigInt(1);
    rem = rem + b;
  }
  *q = std::move(quot);
  *r = std::move(rem);
}

BigInt BigInt::pow(const BigInt& base, uint64_t exp) {
  BigInt result(1), b = base;
  while (exp > 0) {
    if (exp & 1) result = result * b;
    exp >>= 1;
    if (exp > 0) b = b * b;
  }
  return result;
}

double BigInt::true_divide(const BigInt& a, const BigInt& b) {
  const size_t na = a.bit_length(), nb = b.bit_length();
  if (na <= 53 && nb <= 53) return a.to_double() / b.to_double();  // both exact: one rounding
  // Scale so the integer quotient has 66+ bits, fold the remainder into a
  // sticky bit, and round once.
  const long shift = 66 - (static_cast<long>(na) - static_cast<long>(nb));
  Mag num = shift > 0 ? shl_mag(a.mag_, static_cast<size_t>(shift)) : a.mag_;
  Mag den = shift < 0 ? shl_mag(b.mag_, static_cast<size_t>(-shift)) : b.mag_;
  Mag q, r;
  divmod_mag(num, den, &q, &r);
  if (!r.empty()) {
    if (q.empty()) q.push_back(0);
    q[0] |= 1;
  }
  double d = std::ldexp(from_magnitude(q, false).to_double(), static_cast<int>(-shift));
  return a.neg_ != b.neg_ ? -d : d;
}

}  // namespace bioagent
