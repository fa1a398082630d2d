// Evaluation of the expression language: the tree walk, Value and Expr; Python's arithmetic is in expr_arith.cpp.
#include "cutune/expr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "cutune/error.hpp"
#include "expr_arith.hpp"

namespace cutune {
namespace detail {
namespace {

Value eval_node(const Node& n, const Context& c);

Value eval_unary(const Node& n, const Context& c) {
  const Value a = eval_node(n.args[0], c);
  if (n.op == Op::Neg) return negate(a, c);
  if (n.op == Op::Not) return a.truthy() ? 0 : 1;
  return a;  // Pos
}

// Short-circuits, so that `B != 0 and A % B == 0` is safe.
Value eval_logic(const Node& n, const Context& c) {
  const bool first = eval_node(n.args[0], c).truthy();
  if (n.op == Op::And) return first && eval_node(n.args[1], c).truthy() ? 1 : 0;
  return first || eval_node(n.args[1], c).truthy() ? 1 : 0;
}

// A chain such as `a < b <= c` holds when each link does; later operands are not evaluated once one fails.
Value eval_compare(const Node& n, const Context& c) {
  Value left = eval_node(n.args[0], c);
  for (std::size_t i = 0; i < n.compares.size(); ++i) {
    Value right = eval_node(n.args[i + 1], c);
    if (!compare_holds(n.compares[i], compare(left, right))) return 0;
    left = right;
  }
  return 1;
}

// Python keeps the first of equal extremes, so min(1, 1.0) is the int 1.
Value eval_extreme(const Node& n, const Context& c) {
  Value best = eval_node(n.args[0], c);
  const int better = n.op == Op::Min ? -1 : 1;
  for (std::size_t i = 1; i < n.args.size(); ++i) {
    Value v = eval_node(n.args[i], c);
    if (compare(v, best) == better) best = v;
  }
  return best;
}

// ceil_div, abs, int, float, ceil and floor.
Value eval_call(const Node& n, const Context& c) {
  if (n.op == Op::CeilDiv) {
    const Value a = eval_node(n.args[0], c), b = eval_node(n.args[1], c);
    return negate(floor_div(negate(a, c), b, c), c);
  }
  const Value a = eval_node(n.args[0], c);
  switch (n.op) {
    case Op::Abs:
      if (a.is_float()) return std::fabs(a.as_double());
      return a.as_int() < 0 ? negate(a, c) : a;
    case Op::Int:
      return to_int(a, c);
    case Op::Float:
      return a.as_double();
    default:  // Ceil and Floor: Python's math.ceil and math.floor give integers
      if (!a.is_float()) return a;
      return to_int(n.op == Op::Ceil ? std::ceil(a.as_double()) : std::floor(a.as_double()), c);
  }
}

Value eval_node(const Node& n, const Context& c) {
  switch (n.op) {
    case Op::Constant:
      return n.constant;
    case Op::Name:
      return c.values[c.slots[n.name]];
    case Op::Neg:
    case Op::Pos:
    case Op::Not:
      return eval_unary(n, c);
    case Op::And:
    case Op::Or:
      return eval_logic(n, c);
    case Op::Compare:
      return eval_compare(n, c);
    case Op::Min:
    case Op::Max:
      return eval_extreme(n, c);
    case Op::CeilDiv:
    case Op::Abs:
    case Op::Int:
    case Op::Float:
    case Op::Ceil:
    case Op::Floor:
      return eval_call(n, c);
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

Value Expr::eval(const Value* data, std::size_t count) const {
  const std::span<const Value> values(data, count);
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

std::size_t std::hash<cutune::Value>::operator()(const cutune::Value& v) const noexcept {
  // A float equal to an integer hashes as that integer; -0.0 and 0.0 both as 0.
  if (!v.is_float()) return std::hash<std::int64_t>{}(v.as_int());
  const double f = v.as_double();
  if (f == std::trunc(f) && f >= -cutune::detail::kTwoPow63 && f < cutune::detail::kTwoPow63) {
    return std::hash<std::int64_t>{}(static_cast<std::int64_t>(f));
  }
  return std::hash<double>{}(f);
}
