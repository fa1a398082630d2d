// The syntax tree of an expression, shared by the parser (expr_parser.cpp) and the evaluator (expr.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/expr.hpp"

namespace cutune::detail {

enum class Op : std::uint8_t {
  Constant,
  Name,
  Neg,
  Pos,
  Not,
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  And,
  Or,
  Compare,
  Min,
  Max,
  CeilDiv,
  Abs,
  Int,
  Float,
  Ceil,
  Floor,
  // Only in expressions evaluated once (eval_list, eval_number; expr_list.cpp), never per configuration:
  List,           // [a, b, ...]
  Range,          // range(stop), range(start, stop[, step])
  ListOf,         // list(xs)
  Len,            // len(xs)
  Subscript,      // xs[i]: args {xs, i}
  Comprehension,  // [e for ... if ...]: args {e, clause, clause, ...}
  For,            // clause: `for name in args[0]`
  If,             // clause: `if args[0]`
};

enum class CompareOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

struct Node {
  Op op = Op::Constant;
  Value constant;                   // Op::Constant
  std::size_t name = 0;             // Op::Name, Op::For: index into the expression's names
  std::vector<Node> args;           // operands, call arguments, or the terms of a comparison chain
  std::vector<CompareOp> compares;  // Op::Compare: compares[i] joins args[i] and args[i + 1]
  std::size_t height = 1;           // recursion levels that evaluating this node takes; the parser bounds it
};

/// What a parse accepts: the scalar language of per-configuration expressions, or that plus the list forms of
/// expressions evaluated once (parameter values).
enum class Syntax : std::uint8_t { Scalar, WithLists };

/// Parses `text` into a tree, appending each new free name to `names`; throws SpecError with the column.
Node parse_expression(std::string_view text, std::vector<std::string>& names, Syntax syntax = Syntax::Scalar);

/// Applies `op` (with `compares` for Op::Compare) to numbers already evaluated, by exactly the rules of the
/// per-configuration evaluator, so that the once-evaluator of lists does not restate them. `text` names the
/// expression in errors.
Value apply_scalar(Op op, const std::vector<Value>& operands, const std::vector<CompareOp>& compares,
                   const std::string& text);

}  // namespace cutune::detail
