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
};

enum class CompareOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

struct Node {
  Op op = Op::Constant;
  Value constant;                   // Op::Constant
  std::size_t name = 0;             // Op::Name: index into the expression's names
  std::vector<Node> args;           // operands, call arguments, or the terms of a comparison chain
  std::vector<CompareOp> compares;  // Op::Compare: compares[i] joins args[i] and args[i + 1]
};

/// Parses `text` into a tree, appending each new free name to `names`; throws SpecError with the column.
Node parse_expression(std::string_view text, std::vector<std::string>& names);

}  // namespace cutune::detail
