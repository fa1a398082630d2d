// Python's arithmetic and comparisons on expression values (64-bit integers checked for overflow, doubles).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "expr_node.hpp"

namespace cutune::detail {

inline constexpr double kTwoPow63 = 9223372036854775808.0;

// Everything an evaluation needs besides the tree; the text is only touched when an error is reported.
struct Context {
  std::span<const Value> values;
  const std::size_t* slots;
  const std::string& text;
};

/// Throws SpecError naming the expression's text.
[[noreturn]] void fail(const Context& c, std::string_view what);
/// Exact three-way comparison across int and float (-1, 0, 1); 2 when unordered (a NaN is involved).
int compare(const Value& a, const Value& b);
bool compare_holds(CompareOp op, int c);
/// A binary operator (+ - * / // % **) with Python's semantics; integer overflow fails.
Value arithmetic(Op op, const Value& a, const Value& b, const Context& c);
Value floor_div(const Value& a, const Value& b, const Context& c);
Value negate(const Value& a, const Context& c);
/// int(): truncates a float towards zero; fails outside the 64-bit range.
Value to_int(const Value& a, const Context& c);

}  // namespace cutune::detail
