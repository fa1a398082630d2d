// Values and evaluation of the expression language, with Python's arithmetic on 64-bit integers and doubles.
#include "cutune/expr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "cutune/error.hpp"
#include "expr_node.hpp"

namespace cutune {
namespace detail {
namespace {

constexpr double kTwoPow63 = 9223372036854775808.0;

// Everything an evaluation needs besides the tree; the text is only touched when an error is reported.
struct Context {
  std::span<const Value> values;
  const std::size_t* slots;
  const std::string& text;
};

[[noreturn]] void fail(const Context& c, std::string_view what) {
  throw SpecError(std::string(what) + " in '" + c.text + "'");
}

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

Value eval_node(const Node& n, const Context& c) {
  switch (n.op) {
    case Op::Constant:
      return n.constant;
    case Op::Name:
      return c.values[c.slots[n.name]];
    case Op::Neg:
      return negate(eval_node(n.args[0], c), c);
    case Op::Pos:
      return eval_node(n.args[0], c);
    case Op::Not:
      return eval_node(n.args[0], c).truthy() ? 0 : 1;
    case Op::And:  // short-circuits, so that `B != 0 and A % B == 0` is safe
      return eval_node(n.args[0], c).truthy() && eval_node(n.args[1], c).truthy() ? 1 : 0;
    case Op::Or:
      return eval_node(n.args[0], c).truthy() || eval_node(n.args[1], c).truthy() ? 1 : 0;
    case Op::Compare: {
      Value left = eval_node(n.args[0], c);
      for (std::size_t i = 0; i < n.compares.size(); ++i) {
        Value right = eval_node(n.args[i + 1], c);
        if (!compare_holds(n.compares[i], compare(left, right))) return 0;
        left = right;
      }
      return 1;
    }
    case Op::Min:
    case Op::Max: {
      // Python keeps the first of equal extremes, so min(1, 1.0) is the int 1.
      Value best = eval_node(n.args[0], c);
      const int better = n.op == Op::Min ? -1 : 1;
      for (std::size_t i = 1; i < n.args.size(); ++i) {
        Value v = eval_node(n.args[i], c);
        if (compare(v, best) == better) best = v;
      }
      return best;
    }
    case Op::CeilDiv: {
      const Value a = eval_node(n.args[0], c), b = eval_node(n.args[1], c);
      return negate(floor_div(negate(a, c), b, c), c);
    }
    case Op::Abs: {
      const Value a = eval_node(n.args[0], c);
      if (a.is_float()) return std::fabs(a.as_double());
      return a.as_int() < 0 ? negate(a, c) : a;
    }
    case Op::Int:
      return to_int(eval_node(n.args[0], c), c);
    case Op::Float:
      return eval_node(n.args[0], c).as_double();
    case Op::Ceil:
    case Op::Floor: {  // Python's math.ceil and math.floor give integers
      const Value a = eval_node(n.args[0], c);
      if (!a.is_float()) return a;
      return to_int(n.op == Op::Ceil ? std::ceil(a.as_double()) : std::floor(a.as_double()), c);
    }
    default:
      return arithmetic(n.op, eval_node(n.args[0], c), eval_node(n.args[1], c), c);
  }
}

}  // namespace

Value apply_scalar(Op op, const std::vector<Value>& operands, const std::vector<CompareOp>& compares,
                   const std::string& text) {
  Node n;
  n.op = op;
  n.compares = compares;
  for (const Value& v : operands) {
    Node& operand = n.args.emplace_back();
    operand.constant = v;
  }
  const Context context{{}, nullptr, text};
  return eval_node(n, context);
}

}  // namespace detail

std::int64_t Value::as_int() const {
  if (!is_float_) return i_;
  if (f_ == std::trunc(f_) && f_ >= -detail::kTwoPow63 && f_ < detail::kTwoPow63) return static_cast<std::int64_t>(f_);
  throw SpecError("expected an integer, got " + str());
}

std::string Value::str() const {
  if (!is_float_) return std::to_string(i_);
  if (std::isnan(f_)) return "nan";
  if (std::isinf(f_)) return f_ > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, f_).ptr;
  std::string s(buffer, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool operator==(const Value& a, const Value& b) { return detail::compare(a, b) == 0; }

Expr::Expr() : text_("0"), root_(std::make_shared<detail::Node>()) {}

Expr Expr::parse(std::string_view text) {
  Expr e;
  e.text_ = std::string(text);
  e.root_ = std::make_shared<detail::Node>(detail::parse_expression(text, e.names_));
  return e;
}

Expr Expr::constant(Value v) {
  Expr e;
  e.text_ = v.str();
  auto node = std::make_shared<detail::Node>();
  node->constant = v;
  e.root_ = std::move(node);
  return e;
}

bool Expr::uses(std::string_view name) const { return std::find(names_.begin(), names_.end(), name) != names_.end(); }

void Expr::bind(const std::vector<std::string>& slots) {
  std::vector<std::size_t> slot_of_name;
  slot_of_name.reserve(names_.size());
  for (const auto& name : names_) {
    const auto it = std::find(slots.begin(), slots.end(), name);
    if (it == slots.end()) throw SpecError("unknown name '" + name + "' in '" + text_ + "'");
    slot_of_name.push_back(static_cast<std::size_t>(it - slots.begin()));
  }
  slot_of_name_ = std::move(slot_of_name);
  bound_ = true;
}

Value Expr::eval(std::span<const Value> values) const {
  if (!names_.empty()) {
    if (!bound_) throw SpecError("expression '" + text_ + "' evaluated before its names were bound");
    for (const auto slot : slot_of_name_) {
      if (slot >= values.size()) {
        throw SpecError("expression '" + text_ + "' evaluated with " + std::to_string(values.size()) +
                        " values, fewer than its bound names need");
      }
    }
  }
  const detail::Context context{values, slot_of_name_.data(), text_};
  return detail::eval_node(*root_, context);
}

}  // namespace cutune
