// Tests of the expression language: Python arithmetic, precedence, functions, names and error messages.
#include "cutune/expr.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cutune/error.hpp"

namespace cutune {
void PrintTo(const Value& v, std::ostream* os) { *os << v.str(); }
}  // namespace cutune

namespace {

using cutune::Expr;
using cutune::SpecError;
using cutune::Value;

Value ev(std::string_view text) { return Expr::parse(text).eval({}); }

// The message of the SpecError that evaluating or parsing `text` throws, or "" when none is thrown.
std::string error_of(std::string_view text) {
  try {
    ev(text);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

void expect_int(std::string_view text, std::int64_t expected) {
  const Value v = ev(text);
  EXPECT_FALSE(v.is_float()) << text;
  EXPECT_EQ(v.as_int(), expected) << text;
}

void expect_float(std::string_view text, double expected) {
  const Value v = ev(text);
  EXPECT_TRUE(v.is_float()) << text;
  EXPECT_DOUBLE_EQ(v.as_double(), expected) << text;
}

TEST(ExprEval, Precedence) {
  expect_int("1 + 2 * 3", 7);
  expect_int("(1 + 2) * 3", 9);
  expect_int("10 - 2 - 3", 5);
  expect_int("2 * 3 ** 2", 18);
  expect_int("100 // 10 // 3", 3);
  expect_int("7 - 6 % 4", 5);
  expect_int("-2 ** 2", -4);
  expect_int("(-2) ** 2", 4);
  expect_int("--3", 3);
  expect_int("+4 - -1", 5);
  expect_int("not 1 == 2", 1);
  expect_int("1 or 0 and 0", 1);
  expect_int("(1 or 0) and 0", 0);
  expect_int("1 + 2 < 2 * 2", 1);
}

TEST(ExprEval, PowerIsRightAssociative) {
  expect_int("2 ** 3 ** 2", 512);
  expect_int("(2 ** 3) ** 2", 64);
  expect_float("2 ** -1", 0.5);
  expect_float("4 ** 0.5", 2.0);
  expect_int("(-3) ** 3", -27);
  expect_int("0 ** 0", 1);
  expect_int("2 ** 62", std::int64_t{1} << 62);
}

TEST(ExprEval, TrueDivisionGivesFloat) {
  expect_float("7 / 2", 3.5);
  expect_float("6 / 3", 2.0);
  expect_float("-7 / 2", -3.5);
}

TEST(ExprEval, FloorDivisionFloorsLikePython) {
  expect_int("7 // 2", 3);
  expect_int("-7 // 2", -4);
  expect_int("7 // -2", -4);
  expect_int("-7 // -2", 3);
  expect_int("6 // 3", 2);
  expect_float("7.5 // 2", 3.0);
  expect_float("-7.5 // 2", -4.0);
  expect_float("7 // 2.0", 3.0);
}

TEST(ExprEval, ModuloTakesTheDivisorsSign) {
  expect_int("7 % 3", 1);
  expect_int("-7 % 3", 2);
  expect_int("7 % -3", -2);
  expect_int("-7 % -3", -1);
  expect_int("6 % 3", 0);
  expect_int("-9223372036854775807 - 1 % -1", -9223372036854775807);
  expect_float("-7.5 % 2", 0.5);
  expect_float("7.5 % -2", -0.5);
  expect_float("7.5 % 2", 1.5);
}

TEST(ExprEval, ChainedComparisons) {
  expect_int("1 < 2 < 3", 1);
  expect_int("1 < 3 < 2", 0);
  expect_int("3 > 2 == 2", 1);
  expect_int("1 <= 1 < 1", 0);
  expect_int("1 != 2 != 1", 1);
  expect_int("2 >= 2 >= 1 > 0", 1);
  expect_int("1 == 1.0", 1);
  expect_int("0.5 < 1", 1);
  // Exact, as in Python: 2**53 + 1 is not representable as a double.
  expect_int("2 ** 53 + 1 == 2.0 ** 53", 0);
  expect_int("2 ** 53 + 1 > 2.0 ** 53", 1);
}

TEST(ExprEval, LogicGivesZeroOrOneAndShortCircuits) {
  expect_int("3 and 5", 1);
  expect_int("0 or 0.0", 0);
  expect_int("not 0", 1);
  expect_int("not 2.5", 0);
  expect_int("True + True", 2);
  expect_int("False", 0);
  expect_int("0 and 1 // 0", 0);
  expect_int("1 or 1 // 0", 1);
}

TEST(ExprEval, Functions) {
  expect_int("min(3, 1, 2)", 1);
  expect_int("max(3, 1, 2)", 3);
  expect_float("max(1, 2.5)", 2.5);
  expect_int("min(1, 1.0)", 1);  // the first of equal values, as in Python
  expect_int("ceil_div(7, 2)", 4);
  expect_int("ceil_div(8, 2)", 4);
  expect_int("ceil_div(-7, 2)", -3);
  expect_int("abs(-3)", 3);
  expect_float("abs(-2.5)", 2.5);
  expect_int("int(-3.7)", -3);
  expect_int("int(3.9)", 3);
  expect_int("int(7)", 7);
  expect_float("float(3)", 3.0);
  expect_int("max(min(4, 9), 2) * 2", 8);
}

TEST(ExprEval, Literals) {
  expect_float("1.5e2", 150.0);
  expect_float(".25", 0.25);
  expect_float("3.", 3.0);
  expect_int("9223372036854775807", 9223372036854775807);
}

TEST(ExprNames, BindResolvesNamesToSlots) {
  Expr e = Expr::parse("TILE * VEC + TILE // PAD");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"TILE", "VEC", "PAD"}));
  EXPECT_TRUE(e.uses("VEC"));
  EXPECT_FALSE(e.uses("TIL"));
  EXPECT_FALSE(e.bound());
  e.bind({"PAD", "X", "VEC", "TILE"});
  EXPECT_TRUE(e.bound());
  const std::vector<Value> values{Value(3), Value(100), Value(4), Value(32)};
  EXPECT_EQ(e.eval(values).as_int(), 32 * 4 + 32 / 3);
  const Expr copy = e;
  EXPECT_EQ(copy.eval(values).as_int(), 138);
  EXPECT_EQ(copy.text(), "TILE * VEC + TILE // PAD");
}

TEST(ExprNames, MinIsANameUnlessCalled) {
  Expr e = Expr::parse("min + min(min, 2)");
  e.bind({"min"});
  EXPECT_EQ(e.eval(std::vector<Value>{Value(5)}).as_int(), 7);
}

TEST(ExprNames, UnknownNameOnBind) {
  Expr e = Expr::parse("TILE % ROWS == 0");
  try {
    e.bind({"TILE", "VEC"});
    FAIL() << "bind accepted an unknown name";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), "unknown name 'ROWS' in 'TILE % ROWS == 0'");
  }
  EXPECT_FALSE(e.bound());
}

TEST(ExprNames, EvalBeforeBindThrows) {
  const Expr e = Expr::parse("A + 1");
  EXPECT_THROW(e.eval(std::vector<Value>{Value(1)}), SpecError);
  EXPECT_EQ(Expr::parse("2 + 1").eval({}).as_int(), 3);  // no names: nothing to bind
}

TEST(ExprNames, ConstantAndDefault) {
  EXPECT_EQ(Expr().eval({}).as_int(), 0);
  const Expr c = Expr::constant(Value(4));
  EXPECT_EQ(c.text(), "4");
  EXPECT_EQ(c.eval({}).as_int(), 4);
  EXPECT_TRUE(c.names().empty());
  EXPECT_EQ(Expr::constant(Value(0.5)).text(), "0.5");
}

TEST(ExprErrors, SyntaxErrorsNameTextAndColumn) {
  EXPECT_EQ(error_of("1 + * 2"), "invalid expression '1 + * 2': unexpected '*' at column 5");
  EXPECT_EQ(error_of("(1 + 2"), "invalid expression '(1 + 2': expected ')', found the end at column 7");
  EXPECT_EQ(error_of("1 2"), "invalid expression '1 2': unexpected '2' at column 3");
  EXPECT_EQ(error_of("3 $ 4"), "invalid expression '3 $ 4': unexpected character '$' at column 3");
  EXPECT_EQ(error_of("TILE +"), "invalid expression 'TILE +': unexpected end at column 7");
  EXPECT_EQ(error_of(""), "invalid expression '': empty expression at column 1");
  EXPECT_EQ(error_of("foo(1)"), "invalid expression 'foo(1)': unknown function 'foo' at column 1");
  EXPECT_EQ(error_of("1 + min(1)"),
            "invalid expression '1 + min(1)': min() takes at least 2 arguments, got 1 at column 5");
  EXPECT_EQ(error_of("abs(1, 2)"), "invalid expression 'abs(1, 2)': abs() takes 1 argument, got 2 at column 1");
  EXPECT_NE(error_of("99999999999999999999").find("does not fit 64 bits"), std::string::npos);
  EXPECT_NE(error_of("1.5e").find("column 4"), std::string::npos);
  EXPECT_NE(error_of("2x").find("malformed number at column 2"), std::string::npos);
  EXPECT_NE(error_of("1 and and 2").find("unexpected 'and' at column 7"), std::string::npos);
  EXPECT_NE(error_of("1 = 2").find("column 3"), std::string::npos);
}

TEST(ExprErrors, DivisionByZeroNamesTheExpression) {
  EXPECT_EQ(error_of("1 / 0"), "division by zero in '1 / 0'");
  EXPECT_EQ(error_of("1 // 0"), "division by zero in '1 // 0'");
  EXPECT_EQ(error_of("5 % 0"), "division by zero in '5 % 0'");
  EXPECT_EQ(error_of("1.0 % 0.0"), "division by zero in '1.0 % 0.0'");
  EXPECT_EQ(error_of("ceil_div(3, 0)"), "division by zero in 'ceil_div(3, 0)'");
  EXPECT_NE(error_of("0 ** -1").find("division by zero"), std::string::npos);
  Expr e = Expr::parse("N // T");
  e.bind({"N", "T"});
  EXPECT_THROW(e.eval(std::vector<Value>{Value(8), Value(0)}), SpecError);
}

TEST(ExprErrors, IntegerOverflow) {
  EXPECT_EQ(error_of("2 ** 63"), "integer overflow in '2 ** 63'");
  EXPECT_EQ(error_of("9223372036854775807 + 1"), "integer overflow in '9223372036854775807 + 1'");
  EXPECT_NE(error_of("int(1e300)").find("cannot convert"), std::string::npos);
}

TEST(ExprValue, PrintingAndConversion) {
  EXPECT_EQ(Value(32).str(), "32");
  EXPECT_EQ(Value(-7).str(), "-7");
  EXPECT_EQ(Value(0.5).str(), "0.5");
  EXPECT_EQ(Value(2.0).str(), "2.0");
  EXPECT_EQ(Value(0.1).str(), "0.1");
  EXPECT_EQ(Value(1e20).str(), "1e+20");
  EXPECT_EQ(Value(2.0).as_int(), 2);
  EXPECT_THROW(Value(2.5).as_int(), SpecError);
  EXPECT_EQ(Value(1), Value(1.0));
  EXPECT_FALSE(Value(1) == Value(2));
  EXPECT_FALSE(Value(1) == Value(1.5));
}

// Lists are evaluated once (eval_list, eval_number): the forms T1 problem files write parameter values in.
std::vector<std::int64_t> ints(std::string_view text, const cutune::ListBindings& lists = {}) {
  std::vector<std::int64_t> out;
  for (const Value& v : cutune::eval_list(text, lists)) {
    EXPECT_FALSE(v.is_float()) << text;
    out.push_back(v.as_int());
  }
  return out;
}

std::string list_error_of(std::string_view text) {
  try {
    cutune::eval_list(text);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

using Ints = std::vector<std::int64_t>;

TEST(ExprList, LiteralsAndRanges) {
  EXPECT_EQ(ints("[16, 32, 48]"), (Ints{16, 32, 48}));
  EXPECT_EQ(ints("[]"), Ints{});
  EXPECT_EQ(ints("[1, 2,]"), (Ints{1, 2}));
  EXPECT_EQ(ints("[2 * 8, 4 ** 2 + 1, 7 // 2, -3 % 5]"), (Ints{16, 17, 3, 2}));
  EXPECT_EQ(ints("range(4)"), (Ints{0, 1, 2, 3}));
  EXPECT_EQ(ints("range(2, 5)"), (Ints{2, 3, 4}));
  EXPECT_EQ(ints("range(32, 1024+1, 256)"), (Ints{32, 288, 544, 800}));
  EXPECT_EQ(ints("range(5, 0, -2)"), (Ints{5, 3, 1}));
  EXPECT_EQ(ints("range(3, 3)"), Ints{});
  EXPECT_EQ(ints("list(range(1, 4))"), (Ints{1, 2, 3}));
  const auto floats = cutune::eval_list("[0.5, 1, True]");
  ASSERT_EQ(floats.size(), 3u);
  EXPECT_TRUE(floats[0].is_float());
  EXPECT_FALSE(floats[1].is_float());
  EXPECT_EQ(floats[2].as_int(), 1);
}

TEST(ExprList, ComprehensionsAndConcatenation) {
  EXPECT_EQ(ints("[2**i for i in range(0, 6)]"), (Ints{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(ints("[16*i for i in range(1,9)]"), (Ints{16, 32, 48, 64, 80, 96, 112, 128}));
  EXPECT_EQ(ints("[i for i in range(3,35,2) if i % 5 == 0]"), (Ints{5, 15, 25}));
  EXPECT_EQ(ints("[a * 10 + b for a in range(1, 3) for b in range(2) if a != b]"), (Ints{10, 20, 21}));
  EXPECT_EQ(ints("[x for x in [1, 2, 3] if x > 1 if x < 3]"), (Ints{2}));
  EXPECT_EQ(ints("[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))").size(), 5u + 32u);
  EXPECT_EQ(ints("[1] + [2] + [i for i in range(3, 5)]"), (Ints{1, 2, 3, 4}));
  EXPECT_EQ(ints("[0] * 3"), (Ints{0, 0, 0}));
  EXPECT_EQ(ints("2 * [1, 2]"), (Ints{1, 2, 1, 2}));
  // The loop variable is local to its comprehension, so an outer list of the same name is untouched.
  EXPECT_EQ(ints("[i for i in i] + i", {{"i", {Value(7), Value(8)}}}), (Ints{7, 8, 7, 8}));
  EXPECT_EQ(ints("[ceil(i / 2) for i in range(4)] + [floor(-0.5)]"), (Ints{0, 1, 1, 2, -1}));
}

TEST(ExprList, NumbersOverBoundLists) {
  const cutune::ListBindings lists{{"ProblemSize", {Value(4096), Value(2048)}},
                                   {"filter_width", {Value(3), Value(15), Value(7)}}};
  EXPECT_EQ(cutune::eval_number("(ProblemSize[0]+max(filter_width)-1) * (ProblemSize[1]+1)", lists).as_int(),
            (4096 + 15 - 1) * (2048 + 1));
  EXPECT_EQ(cutune::eval_number("min(filter_width) * len(filter_width) + ProblemSize[-1]", lists).as_int(),
            3 * 3 + 2048);
  EXPECT_EQ(cutune::eval_number("max(3, 9, 4)").as_int(), 9);
  EXPECT_EQ(cutune::eval_number("32 <= 4 * 8 <= 1024 and not 0").as_int(), 1);
  EXPECT_THROW(cutune::eval_number("ProblemSize[2]", lists), SpecError);
  EXPECT_THROW(cutune::eval_number("filter_width", lists), SpecError);
  EXPECT_THROW(cutune::eval_list("4096"), SpecError);
}

TEST(ExprList, ErrorsNameTheProblem) {
  EXPECT_EQ(list_error_of("[1, 2"), "invalid expression '[1, 2': expected ',' or ']', found the end at column 6");
  EXPECT_EQ(list_error_of("[x for x in range(3) if]").find("invalid expression"), 0u);
  EXPECT_EQ(list_error_of("[i for in range(3)]"),
            "invalid expression '[i for in range(3)]': expected a name after 'for' at column 8");
  EXPECT_EQ(list_error_of("[j for i in range(3)]"), "unknown name 'j' in '[j for i in range(3)]'");
  EXPECT_EQ(list_error_of("[[1], [2]]"),
            "expected a number in a list element, got a list (nested lists are not supported) in '[[1], [2]]'");
  EXPECT_EQ(list_error_of("[1] + 2"), "cannot add a list and a number in '[1] + 2'");
  EXPECT_EQ(list_error_of("range(0, 1, 0)"), "range() step must not be zero in 'range(0, 1, 0)'");
  EXPECT_EQ(list_error_of("range(0.5)"), "range() needs integers, got 0.5 in 'range(0.5)'");
  EXPECT_EQ(list_error_of("[1, 2][5]").find("index 5 out of range for a list of 2"), 0u);
  EXPECT_NE(list_error_of("[1, 2][0:1]").find("unexpected character ':'"), std::string::npos);
  EXPECT_NE(list_error_of("range(10**9)").find("a list of more than"), std::string::npos);
  EXPECT_NE(list_error_of("range(1, 2, 3, 4)").find("range() takes 1 to 3 arguments, got 4"), std::string::npos);
  EXPECT_NE(list_error_of("[x if x else 1 for x in range(2)]").find("expected ',' or ']', found 'if'"),
            std::string::npos);
  EXPECT_NE(list_error_of("sorted([2, 1])").find("unknown function 'sorted'"), std::string::npos);
}

TEST(ExprList, ScalarExpressionsStillRejectLists) {
  EXPECT_EQ(error_of("[1, 2]"),
            "invalid expression '[1, 2]': '[' is not allowed here: lists and subscripts are read only where a list of "
            "values is expected at column 1");
  EXPECT_NE(error_of("range(3)").find("unknown function 'range'"), std::string::npos);
  EXPECT_NE(error_of("len(3)").find("unknown function 'len'"), std::string::npos);
  EXPECT_NE(error_of("max(3)").find("max() takes at least 2 arguments"), std::string::npos);
  // for/in/if stay ordinary names where lists cannot appear, as they were before lists existed.
  Expr e = Expr::parse("in + 1");
  e.bind({"in"});
  EXPECT_EQ(e.eval(std::vector<Value>{Value(2)}).as_int(), 3);
  expect_int("ceil(2.5) + floor(2.5) + ceil(3)", 3 + 2 + 3);
}

}  // namespace
