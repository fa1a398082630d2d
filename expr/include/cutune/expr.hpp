// The small expression language of specs: constraints, launch geometry, sizes and metrics.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#include <span>
#endif

namespace cutune {

/// A number of the expression language: an integer or a float, with Python's arithmetic rules
/// (`/` gives a float, `//` floors, `%` takes the divisor's sign, comparisons and logic give 0 or 1).
class Value {
 public:
  constexpr Value() = default;
  constexpr Value(std::int64_t i) : is_float_(false), i_(i) {}  // NOLINT: implicit on purpose
  constexpr Value(int i) : is_float_(false), i_(i) {}           // NOLINT
  constexpr Value(double f) : is_float_(true), f_(f) {}         // NOLINT

  bool is_float() const { return is_float_; }
  /// The integer; a float with an integral value converts, any other float throws SpecError.
  std::int64_t as_int() const;
  double as_double() const { return is_float_ ? f_ : static_cast<double>(i_); }
  bool truthy() const { return is_float_ ? f_ != 0.0 : i_ != 0; }
  /// Canonical printed form: integers as digits, floats with the shortest round-trip digits (always with a '.' or exponent).
  std::string str() const;

  /// Numeric equality (1 == 1.0), as in Python.
  friend bool operator==(const Value& a, const Value& b);

 private:
  bool is_float_ = false;
  std::int64_t i_ = 0;
  double f_ = 0.0;
};

namespace detail {
struct Node;
}

/// A parsed expression. Grammar, loosest first:
///   or / and / not / comparisons (== != < <= > >=, chained as in Python) / + - / * / // % / unary - + / ** (right assoc)
///   atoms: integer and float literals, True, False, names, ( expr ), calls min(a, b, ...), max(a, b, ...),
///   ceil_div(a, b), abs(a), int(a), float(a), ceil(a), floor(a) (the last two give integers, as Python's math).
/// Names are bound to slots before evaluation, so that evaluation costs no string lookups.
class Expr {
 public:
  Expr();  ///< the constant 0
  /// Parses `text`; throws SpecError naming the position on a syntax error.
  static Expr parse(std::string_view text);
  /// A constant expression.
  static Expr constant(Value v);

  const std::string& text() const { return text_; }
  /// The free names, each once, in order of first use.
  const std::vector<std::string>& names() const { return names_; }
  bool uses(std::string_view name) const;

  /// Resolves names to indices into `slots`; throws SpecError "unknown name 'X' in 'TEXT'" when a name is missing.
  void bind(const std::vector<std::string>& slots);
  bool bound() const { return bound_; }
  /// Evaluates with values[i] standing for slots[i] of the last bind(). Throws SpecError on division by zero,
  /// or when called before bind() on an expression that has names.
  Value eval(const Value* values, std::size_t count) const;
#if __cplusplus >= 202002L
  Value eval(std::span<const Value> values) const { return eval(values.data(), values.size()); }
#else
  Value eval(const std::vector<Value>& values) const { return eval(values.data(), values.size()); }
#endif

 private:
  std::string text_;
  std::vector<std::string> names_;
  std::shared_ptr<const detail::Node> root_;  // immutable, shared by copies; names refer to names_ by index
  std::vector<std::size_t> slot_of_name_;     // filled by bind(): names_[i] lives at values[slot_of_name_[i]]
  bool bound_ = false;
};

/// Names bound to lists for eval_list() and eval_number(), e.g. a parameter's values or a problem size.
using ListBindings = std::vector<std::pair<std::string, std::vector<Value>>>;

/// Evaluates `text` once to a list of numbers: the Expr language plus list displays `[a, b]`, `range(stop)`,
/// `range(start, stop[, step])`, `list(xs)`, comprehensions `[e for x in xs if c]` (any number of for and if
/// clauses), `xs[i]`, `len(xs)`, `min(xs)`, `max(xs)`, `+` joining two lists and `*` repeating one, and the names
/// of `lists`. Lists hold numbers only. Separate from Expr, so that per-configuration evaluation stays as it was.
/// Throws SpecError naming the expression when it is malformed, uses anything else, or is not a list.
std::vector<Value> eval_list(std::string_view text, const ListBindings& lists = {});
/// The same language evaluated once to a number, e.g. a buffer size `(ProblemSize[0] + max(filter_width) - 1)`.
Value eval_number(std::string_view text, const ListBindings& lists = {});

}  // namespace cutune

/// Hashes that agree with Value's numeric equality (1 and 1.0 hash alike), so that duplicates among many values are
/// found in linear time.
template <>
struct std::hash<cutune::Value> {
  std::size_t operator()(const cutune::Value& v) const noexcept;
};
