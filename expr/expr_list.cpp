// Evaluates expressions once to lists or numbers: parameter values written as Python-subset list expressions.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cutune/error.hpp"
#include "cutune/expr.hpp"
#include "expr_node.hpp"

namespace cutune {
namespace detail {
namespace {

// A list this long is a typo (range(10**9)), never a tuning parameter; stop before memory runs out.
constexpr std::size_t kMaxListLength = std::size_t{1} << 24;
// Nested clauses of a comprehension multiply, and a filter may keep nothing: [0 for x in range(10**6) for y in
// range(10**6) if 0] would run 10^12 times. Their iterations in one evaluation are bounded like a list's length.
constexpr std::uint64_t kMaxIterations = kMaxListLength;

// What an expression evaluated once yields: a number or a flat list of numbers.
struct Item {
  bool is_list = false;
  Value number;
  std::vector<Value> list;
};

Item number_item(Value v) { return Item{false, v, {}}; }
Item list_item(std::vector<Value> values) { return Item{true, {}, std::move(values)}; }

class OnceEvaluator {
 public:
  OnceEvaluator(std::string text, const std::vector<std::string>& names, const ListBindings& lists)
      : text_(std::move(text)), names_(names), env_(names.size()) {
    for (const auto& [name, values] : lists) {
      const auto it = std::find(names_.begin(), names_.end(), name);
      if (it != names_.end()) env_[static_cast<std::size_t>(it - names_.begin())] = list_item(values);
    }
  }

  Item eval(const Node& n) {
    switch (n.op) {
      case Op::Constant:
        return number_item(n.constant);
      case Op::Name:
        if (!env_[n.name]) fail("unknown name '" + names_[n.name] + "'");
        return *env_[n.name];
      case Op::List:
      case Op::Range:
      case Op::ListOf:
      case Op::Comprehension:
        return list_item(make_list(n));
      case Op::Len:
        return number_item(static_cast<std::int64_t>(list(eval(n.args[0]), "len()").size()));
      case Op::Subscript:
        return number_item(subscript(n));
      case Op::Min:
      case Op::Max:
        if (n.args.size() == 1) return number_item(reduce(n.op, list(eval(n.args[0]), "min()/max() of one argument")));
        return number_item(scalar(n));
      case Op::And:
      case Op::Or:
      case Op::Not:
        return number_item(logic(n));
      case Op::Compare:
        return number_item(compare_chain(n));
      case Op::Add:
      case Op::Mul:
        return add_or_repeat(n);
      default:
        return number_item(scalar(n));
    }
  }

  [[noreturn]] void fail(const std::string& what) const { throw SpecError(what + " in '" + text_ + "'"); }

  Value number(const Item& item, const char* where) const {
    if (item.is_list) {
      fail(std::string("expected a number in ") + where + ", got a list (nested lists are not supported)");
    }
    return item.number;
  }

  std::vector<Value> list(Item item, const char* where) const {
    if (!item.is_list) fail(std::string("expected a list in ") + where + ", got " + item.number.str());
    return std::move(item.list);
  }

 private:
  static bool truthy(const Item& item) { return item.is_list ? !item.list.empty() : item.number.truthy(); }

  // A list display, range(), list() or a comprehension.
  std::vector<Value> make_list(const Node& n) {
    if (n.op == Op::Range) return range(n);
    if (n.op == Op::ListOf) return list(eval(n.args[0]), "list()");
    std::vector<Value> values;
    if (n.op == Op::Comprehension) {
      run_clauses(n, 1, values);
      return values;
    }
    for (const Node& element : n.args) values.push_back(number(eval(element), "a list element"));
    return values;
  }

  // and, or (short-circuiting like the per-configuration evaluator) and not.
  Value logic(const Node& n) {
    const bool first = truthy(eval(n.args[0]));
    if (n.op == Op::Not) return first ? 0 : 1;
    if (n.op == Op::And) return first && truthy(eval(n.args[1])) ? 1 : 0;
    return first || truthy(eval(n.args[1])) ? 1 : 0;
  }

  Value compare_chain(const Node& n) {
    Value left = number(eval(n.args[0]), "a comparison");
    for (std::size_t i = 0; i < n.compares.size(); ++i) {
      const Value right = number(eval(n.args[i + 1]), "a comparison");
      if (!apply_scalar(Op::Compare, {left, right}, {n.compares[i]}, text_).truthy()) return 0;
      left = right;
    }
    return 1;
  }

  void check_length(std::size_t n) const {
    if (n > kMaxListLength) fail("a list of more than " + std::to_string(kMaxListLength) + " values");
  }

  // Every other operator of the scalar language, on numbers only.
  Value scalar(const Node& n) {
    std::vector<Value> operands;
    for (const Node& arg : n.args) operands.push_back(number(eval(arg), "an arithmetic operation"));
    return apply_scalar(n.op, operands, n.compares, text_);
  }

  std::int64_t integer(const Item& item, const char* where) const {
    const Value v = number(item, where);
    if (v.is_float()) fail(std::string(where) + " needs integers, got " + v.str());
    return v.as_int();
  }

  std::vector<Value> range(const Node& n) {
    std::int64_t start = 0, stop = 0, step = 1;
    if (n.args.size() == 1) {
      stop = integer(eval(n.args[0]), "range()");
    } else {
      start = integer(eval(n.args[0]), "range()");
      stop = integer(eval(n.args[1]), "range()");
      if (n.args.size() == 3) step = integer(eval(n.args[2]), "range()");
    }
    if (step == 0) fail("range() step must not be zero");
    // The length first, so that range(10**12) fails before it allocates. The distance between two int64 values
    // always fits in uint64 (two's complement wraps into place).
    const bool up = step > 0;
    if (up ? start >= stop : start <= stop) return {};
    const std::uint64_t span = up ? static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start)
                                  : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop);
    const std::uint64_t magnitude = up ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
    const std::uint64_t length = span / magnitude + (span % magnitude != 0);
    check_length(static_cast<std::size_t>(std::min<std::uint64_t>(length, kMaxListLength + 1)));
    std::vector<Value> values;
    values.reserve(static_cast<std::size_t>(length));
    for (std::uint64_t i = 0; i < length; ++i) values.emplace_back(start + static_cast<std::int64_t>(i) * step);
    return values;
  }

  Value subscript(const Node& n) {
    const std::vector<Value> sequence = list(eval(n.args[0]), "a subscript");
    std::int64_t index = integer(eval(n.args[1]), "a subscript");
    const auto size = static_cast<std::int64_t>(sequence.size());
    if (index < 0) index += size;  // Python's xs[-1] is the last element
    if (index < 0 || index >= size) {
      fail("index " + std::to_string(index < 0 ? index - size : index) + " out of range for a list of " +
           std::to_string(size));
    }
    return sequence[static_cast<std::size_t>(index)];
  }

  Value reduce(Op op, const std::vector<Value>& values) const {
    if (values.empty()) fail(std::string(op == Op::Min ? "min" : "max") + "() of an empty list");
    return apply_scalar(op, values, {}, text_);
  }

  // `+` joins two lists and `*` repeats one, as in Python; on two numbers they are arithmetic.
  Item add_or_repeat(const Node& n) {
    Item a = eval(n.args[0]);
    Item b = eval(n.args[1]);
    if (!a.is_list && !b.is_list) return number_item(apply_scalar(n.op, {a.number, b.number}, {}, text_));
    if (n.op == Op::Add) {
      if (!a.is_list || !b.is_list) fail("cannot add a list and a number");
      check_length(a.list.size() + b.list.size());
      a.list.insert(a.list.end(), b.list.begin(), b.list.end());
      return a;
    }
    if (a.is_list && b.is_list) fail("cannot multiply two lists");
    const Item& sequence = a.is_list ? a : b;
    const std::int64_t times = integer(a.is_list ? b : a, "repeating a list");
    std::vector<Value> out;
    const std::size_t size = sequence.list.size();
    if (times <= 0 || size == 0) return list_item(std::move(out));
    // The length first: [] * 10**11 looped 10^11 times to make nothing.
    check_length(static_cast<std::uint64_t>(times) > kMaxListLength ? kMaxListLength + 1
                                                                   : size * static_cast<std::size_t>(times));
    out.reserve(size * static_cast<std::size_t>(times));
    for (std::int64_t i = 0; i < times; ++i) out.insert(out.end(), sequence.list.begin(), sequence.list.end());
    return list_item(std::move(out));
  }

  // Clause k of a comprehension, then the ones after it; the element once all have passed.
  void run_clauses(const Node& comprehension, std::size_t k, std::vector<Value>& out) {
    if (k == comprehension.args.size()) {
      out.push_back(number(eval(comprehension.args[0]), "a list element"));
      check_length(out.size());
      return;
    }
    const Node& clause = comprehension.args[k];
    if (clause.op == Op::If) {
      if (truthy(eval(clause.args[0]))) run_clauses(comprehension, k + 1, out);
      return;
    }
    const std::vector<Value> values = list(eval(clause.args[0]), "a 'for' clause");
    // The loop variable is local to the comprehension, as in Python 3: restore what the name meant outside.
    std::optional<Item> outer = std::move(env_[clause.name]);
    for (const Value& v : values) {
      if (++iterations_ > kMaxIterations) {
        fail("a comprehension of more than " + std::to_string(kMaxIterations) + " iterations");
      }
      env_[clause.name] = number_item(v);
      run_clauses(comprehension, k + 1, out);
    }
    env_[clause.name] = std::move(outer);
  }

  std::string text_;
  const std::vector<std::string>& names_;
  std::vector<std::optional<Item>> env_;  // by name index: what each name stands for now
  std::uint64_t iterations_ = 0;          // of every comprehension's clauses so far
};

}  // namespace
}  // namespace detail

std::vector<Value> eval_list(std::string_view text, const ListBindings& lists) {
  std::vector<std::string> names;
  const detail::Node root = detail::parse_expression(text, names, detail::Syntax::WithLists);
  detail::OnceEvaluator evaluator(std::string(text), names, lists);
  return evaluator.list(evaluator.eval(root), "the result");
}

Value eval_number(std::string_view text, const ListBindings& lists) {
  std::vector<std::string> names;
  const detail::Node root = detail::parse_expression(text, names, detail::Syntax::WithLists);
  detail::OnceEvaluator evaluator(std::string(text), names, lists);
  return evaluator.number(evaluator.eval(root), "the result");
}

}  // namespace cutune
