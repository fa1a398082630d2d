// Python's arithmetic on expression values: exact mixed comparisons, floored division and modulo, powers, and
// integer overflow reported as an error rather than wrapped.
#include "expr_arith.hpp"

#include <cmath>
#include <limits>

#include "cutune/error.hpp"

namespace cutune::detail {

void fail(const Context& c, std::string_view what) { throw SpecError(std::string(what) + " in '" + c.text + "'"); }

// Exact three-way comparison across int and float, so that 2**53 + 1 > 2.0**53 as in Python.
// Returns 2 when unordered (a NaN is involved).
int compare(const Value& a, const Value& b) {
  if (!a.is_float() && !b.is_float()) {
    const auto x = a.as_int(), y = b.as_int();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_float() && b.is_float()) {
    const double x = a.as_double(), y = b.as_double();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const bool flipped = a.is_float();
  const std::int64_t i = flipped ? b.as_int() : a.as_int();
  const double f = flipped ? a.as_double() : b.as_double();
  int r = 0;
  if (std::isnan(f)) return 2;
  if (f >= kTwoPow63) {
    r = -1;
  } else if (f < -kTwoPow63) {
    r = 1;
  } else {
    const double t = std::trunc(f);
    const auto ti = static_cast<std::int64_t>(t);
    if (i != ti) {
      r = i < ti ? -1 : 1;
    } else {
      const double frac = f - t;
      r = frac > 0 ? -1 : (frac < 0 ? 1 : 0);
    }
  }
  return flipped ? -r : r;
}

bool compare_holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::Eq:
      return c == 0;
    case CompareOp::Ne:
      return c != 0;
    case CompareOp::Lt:
      return c == -1;
    case CompareOp::Le:
      return c == -1 || c == 0;
    case CompareOp::Gt:
      return c == 1;
    case CompareOp::Ge:
      return c == 1 || c == 0;
  }
  return false;
}

namespace {

// The result is read only after the builtin has written it (argument evaluation order is unspecified).
template <typename Builtin>
std::int64_t checked(Builtin builtin, std::int64_t a, std::int64_t b, const Context& c) {
  std::int64_t r = 0;
  if (builtin(a, b, &r)) fail(c, "integer overflow");
  return r;
}

constexpr auto kAdd = [](std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_add_overflow(a, b, r); };
constexpr auto kSub = [](std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_sub_overflow(a, b, r); };
constexpr auto kMul = [](std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_mul_overflow(a, b, r); };

// Python's float divmod: the remainder takes the divisor's sign and the quotient is floored.
void float_divmod(double a, double b, double& quotient, double& remainder) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0.0) {
    double floored = std::floor(div);
    if (div - floored > 0.5) floored += 1.0;
    div = floored;
  } else {
    div = std::copysign(0.0, a / b);
  }
  quotient = div;
  remainder = mod;
}

}  // namespace

Value floor_div(const Value& a, const Value& b, const Context& c) {
  if (!b.truthy()) fail(c, "division by zero");
  if (a.is_float() || b.is_float()) {
    double q = 0, r = 0;
    float_divmod(a.as_double(), b.as_double(), q, r);
    return q;
  }
  const auto x = a.as_int(), y = b.as_int();
  if (x == std::numeric_limits<std::int64_t>::min() && y == -1) fail(c, "integer overflow");
  std::int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}

namespace {

Value modulo(const Value& a, const Value& b, const Context& c) {
  if (!b.truthy()) fail(c, "division by zero");
  if (a.is_float() || b.is_float()) {
    double q = 0, r = 0;
    float_divmod(a.as_double(), b.as_double(), q, r);
    return r;
  }
  const auto x = a.as_int(), y = b.as_int();
  if (y == -1) return std::int64_t{0};  // also avoids INT64_MIN % -1, which traps
  std::int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

Value power(const Value& a, const Value& b, const Context& c) {
  if (!a.is_float() && !b.is_float() && b.as_int() >= 0) {
    std::int64_t base = a.as_int(), exp = b.as_int(), result = 1;
    while (exp > 0) {
      if (exp & 1) result = checked(kMul, result, base, c);
      exp >>= 1;
      if (exp > 0) base = checked(kMul, base, base, c);
    }
    return result;
  }
  const double x = a.as_double(), y = b.as_double();
  if (x == 0.0 && y < 0.0) fail(c, "division by zero (0 to a negative power)");
  if (x < 0.0 && std::isfinite(y) && y != std::trunc(y)) fail(c, "negative number to a fractional power");
  return std::pow(x, y);
}

}  // namespace

Value arithmetic(Op op, const Value& a, const Value& b, const Context& c) {
  const bool as_float = a.is_float() || b.is_float();
  switch (op) {
    case Op::Add:
      if (as_float) return a.as_double() + b.as_double();
      return checked(kAdd, a.as_int(), b.as_int(), c);
    case Op::Sub:
      if (as_float) return a.as_double() - b.as_double();
      return checked(kSub, a.as_int(), b.as_int(), c);
    case Op::Mul:
      if (as_float) return a.as_double() * b.as_double();
      return checked(kMul, a.as_int(), b.as_int(), c);
    case Op::Div:
      if (!b.truthy()) fail(c, "division by zero");
      return a.as_double() / b.as_double();
    case Op::FloorDiv:
      return floor_div(a, b, c);
    case Op::Mod:
      return modulo(a, b, c);
    case Op::Pow:
      return power(a, b, c);
    default:
      fail(c, "internal error: not a binary operator");
  }
}

Value negate(const Value& a, const Context& c) {
  if (a.is_float()) return -a.as_double();
  if (a.as_int() == std::numeric_limits<std::int64_t>::min()) fail(c, "integer overflow");
  return -a.as_int();
}

Value to_int(const Value& a, const Context& c) {
  if (!a.is_float()) return a;
  const double t = std::trunc(a.as_double());
  if (std::isnan(t) || t >= kTwoPow63 || t < -kTwoPow63) fail(c, "cannot convert " + a.str() + " to an integer");
  return static_cast<std::int64_t>(t);
}

}  // namespace cutune::detail
