// Tokenizer and recursive-descent parser of the expression language, following Python's precedence.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "cutune/error.hpp"
#include "expr_node.hpp"

namespace cutune::detail {
namespace {

enum class Tok { Int, Float, Name, Op, LParen, RParen, LBracket, RBracket, Comma, End };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  std::size_t pos = 0;
  Value number;
};

struct Function {
  std::string_view name;
  Op op;
  std::size_t min_args;
  std::size_t max_args;
  bool lists_only = false;  // only in expressions evaluated once (Syntax::WithLists)
};

constexpr std::size_t kUnlimited = static_cast<std::size_t>(-1);

// Parsing, evaluating and destroying a tree recurse once per level; an expression nested deeper than any real one
// (a 2000-term sum, 20000 parentheses) would run out of stack instead of getting an error.
constexpr std::size_t kMaxNesting = 500;

constexpr Function kFunctions[] = {
    {"min", Op::Min, 2, kUnlimited}, {"max", Op::Max, 2, kUnlimited}, {"ceil_div", Op::CeilDiv, 2, 2},
    {"abs", Op::Abs, 1, 1},          {"int", Op::Int, 1, 1},          {"float", Op::Float, 1, 1},
    {"ceil", Op::Ceil, 1, 1},        {"floor", Op::Floor, 1, 1},      {"range", Op::Range, 1, 3, true},
    {"list", Op::ListOf, 1, 1, true}, {"len", Op::Len, 1, 1, true},
};

// Python keywords of the list forms; in scalar expressions they are ordinary names.
constexpr std::string_view kListKeywords[] = {"for", "in", "if", "else"};

bool is_name_start(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; }
bool is_name_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }
bool is_digit(char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; }

class Parser {
 public:
  Parser(std::string_view text, std::vector<std::string>& names, Syntax syntax)
      : text_(text), names_(names), lists_(syntax == Syntax::WithLists) {
    tokenize();
  }

  Node parse() {
    if (tokens_.size() == 1) fail_at(0, "empty expression");
    Node root = parse_or();
    if (peek().kind != Tok::End) fail_unexpected();
    return root;
  }

 private:
  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
    throw SpecError("invalid expression '" + std::string(text_) + "': " + what + " at column " +
                    std::to_string(pos + 1));
  }

  [[noreturn]] void fail_unexpected() const {
    const Token& t = peek();
    if (t.kind == Tok::End) fail_at(t.pos, "unexpected end");
    fail_at(t.pos, "unexpected '" + std::string(t.text) + "'");
  }

  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char ch = text_[i];
      if (std::isspace(static_cast<unsigned char>(ch))) {
        ++i;
      } else if (is_digit(ch) || (ch == '.' && i + 1 < text_.size() && is_digit(text_[i + 1]))) {
        i = lex_number(i);
      } else if (is_name_start(ch)) {
        std::size_t end = i;
        while (end < text_.size() && is_name_char(text_[end])) ++end;
        push(Tok::Name, i, end);
        i = end;
      } else if (ch == '(' || ch == ')' || ch == ',' || ch == '[' || ch == ']') {
        static constexpr std::pair<char, Tok> kPunctuation[] = {
            {'(', Tok::LParen}, {')', Tok::RParen}, {',', Tok::Comma}, {'[', Tok::LBracket}, {']', Tok::RBracket}};
        for (const auto& [c, kind] : kPunctuation)
          if (c == ch) push(kind, i, i + 1);
        ++i;
      } else {
        i = lex_operator(i);
      }
    }
    tokens_.push_back(Token{Tok::End, {}, text_.size(), {}});
  }

  void push(Tok kind, std::size_t begin, std::size_t end, Value number = {}) {
    tokens_.push_back(Token{kind, text_.substr(begin, end - begin), begin, number});
  }

  std::size_t lex_number(std::size_t begin) {
    std::size_t end = begin;
    bool is_float = false;
    while (end < text_.size() && is_digit(text_[end])) ++end;
    if (end < text_.size() && text_[end] == '.') {
      is_float = true;
      ++end;
      while (end < text_.size() && is_digit(text_[end])) ++end;
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      std::size_t exp = end + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
      if (exp >= text_.size() || !is_digit(text_[exp])) fail_at(end, "malformed number exponent");
      while (exp < text_.size() && is_digit(text_[exp])) ++exp;
      is_float = true;
      end = exp;
    }
    if (end < text_.size() && is_name_char(text_[end])) fail_at(end, "malformed number");
    const char* first = text_.data() + begin;
    const char* last = text_.data() + end;
    if (is_float) {
      double f = 0;
      const auto r = std::from_chars(first, last, f);
      if (r.ec != std::errc{} || r.ptr != last || !std::isfinite(f)) fail_at(begin, "number out of range");
      push(Tok::Float, begin, end, f);
    } else {
      std::int64_t v = 0;
      const auto r = std::from_chars(first, last, v);
      if (r.ec != std::errc{} || r.ptr != last) fail_at(begin, "integer does not fit 64 bits");
      push(Tok::Int, begin, end, v);
    }
    return end;
  }

  std::size_t lex_operator(std::size_t begin) {
    static constexpr std::string_view kOperators[] = {"**", "//", "==", "!=", "<=", ">=", "+",
                                                      "-",  "*",  "/",  "%",  "<",  ">"};
    for (const auto op : kOperators) {
      if (text_.substr(begin, op.size()) == op) {
        push(Tok::Op, begin, begin + op.size());
        return begin + op.size();
      }
    }
    fail_at(begin, "unexpected character '" + std::string(1, text_[begin]) + "'");
  }

  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_++]; }
  bool at_op(std::string_view op) const { return peek().kind == Tok::Op && peek().text == op; }
  bool at_keyword(std::string_view word) const { return peek().kind == Tok::Name && peek().text == word; }

  [[noreturn]] void fail_nesting() const {
    fail_at(peek().pos, "nested more than " + std::to_string(kMaxNesting) + " levels deep");
  }

  // Counts the parser's own recursion (parentheses, calls, `not not ...`) while a rule is active.
  class Nested {
   public:
    explicit Nested(Parser& p) : p_(p) {
      if (++p_.nesting_ > kMaxNesting) p_.fail_nesting();
    }
    ~Nested() { --p_.nesting_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& p_;
  };

  // Every inner node is finished here, so that chains built by loops (1 + 1 + ...) are bounded like recursion.
  Node finish(Node n) const {
    std::size_t below = 0;
    for (const Node& a : n.args) below = std::max(below, a.height);
    // A comprehension's clauses run nested, one level each.
    n.height = below + 1 + (n.op == Op::Comprehension ? n.args.size() - 1 : 0);
    if (n.height > kMaxNesting) fail_nesting();
    return n;
  }

  // Operands are moved in (an initializer list would copy the whole left-hand tree at every step of a chain).
  template <typename... Operands>
  Node make(Op op, Operands&&... operands) const {
    Node n;
    n.op = op;
    n.args.reserve(sizeof...(operands));
    (n.args.push_back(std::forward<Operands>(operands)), ...);
    return finish(std::move(n));
  }

  Node parse_or() {
    const Nested nested(*this);
    Node left = parse_and();
    while (at_keyword("or")) {
      take();
      left = make(Op::Or, std::move(left), parse_and());
    }
    return left;
  }

  Node parse_and() {
    Node left = parse_not();
    while (at_keyword("and")) {
      take();
      left = make(Op::And, std::move(left), parse_not());
    }
    return left;
  }

  Node parse_not() {
    if (at_keyword("not")) {
      const Nested nested(*this);
      take();
      return make(Op::Not, parse_not());
    }
    return parse_comparison();
  }

  bool take_compare_op(CompareOp& op) {
    static constexpr std::pair<std::string_view, CompareOp> kCompares[] = {
        {"==", CompareOp::Eq}, {"!=", CompareOp::Ne}, {"<", CompareOp::Lt},
        {"<=", CompareOp::Le}, {">", CompareOp::Gt},  {">=", CompareOp::Ge}};
    for (const auto& [text, value] : kCompares) {
      if (at_op(text)) {
        take();
        op = value;
        return true;
      }
    }
    return false;
  }

  Node parse_comparison() {
    Node first = parse_sum();
    CompareOp op{};
    if (!take_compare_op(op)) return first;
    Node chain = make(Op::Compare);
    chain.args.push_back(std::move(first));
    do {
      chain.compares.push_back(op);
      chain.args.push_back(parse_sum());
    } while (take_compare_op(op));
    return finish(std::move(chain));
  }

  Node parse_sum() {
    Node left = parse_product();
    while (at_op("+") || at_op("-")) {
      const Op op = take().text == "+" ? Op::Add : Op::Sub;
      left = make(op, std::move(left), parse_product());
    }
    return left;
  }

  Node parse_product() {
    Node left = parse_unary();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
      const auto text = take().text;
      const Op op = text == "*" ? Op::Mul : text == "/" ? Op::Div : text == "//" ? Op::FloorDiv : Op::Mod;
      left = make(op, std::move(left), parse_unary());
    }
    return left;
  }

  // Unary minus binds looser than **, so -2 ** 2 is -4, while 2 ** -1 is 0.5.
  Node parse_unary() {
    if (at_op("-") || at_op("+")) {
      const Nested nested(*this);
      const Op op = take().text == "-" ? Op::Neg : Op::Pos;
      return make(op, parse_unary());
    }
    return parse_power();
  }

  Node parse_power() {
    Node base = parse_atom();
    while (peek().kind == Tok::LBracket) base = parse_subscript(std::move(base));
    if (!at_op("**")) return base;
    const Nested nested(*this);
    take();
    return make(Op::Pow, std::move(base), parse_unary());  // recursion makes ** right-associative
  }

  Node parse_atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int:
      case Tok::Float: {
        take();
        Node n;
        n.constant = t.number;
        return n;
      }
      case Tok::LParen: {
        take();
        Node inner = parse_or();
        expect(Tok::RParen, "')'");
        return inner;
      }
      case Tok::Name:
        return parse_name();
      case Tok::LBracket:
        return parse_list();
      default:
        fail_unexpected();
    }
  }

  void require_lists(const Token& t) const {
    if (!lists_) {
      fail_at(t.pos, "'" + std::string(t.text) + "' is not allowed here: lists and subscripts are read only where "
                                                  "a list of values is expected");
    }
  }

  Node parse_subscript(Node sequence) {
    require_lists(peek());
    take();  // [
    Node index = parse_or();
    expect(Tok::RBracket, "']' (slices are not supported)");
    return make(Op::Subscript, std::move(sequence), std::move(index));
  }

  // [a, b, ...] or a comprehension [e for x in xs if c ...], with Python's clause order.
  Node parse_list() {
    require_lists(peek());
    take();  // [
    Node list = make(Op::List);
    if (peek().kind == Tok::RBracket) {
      take();
      return list;
    }
    list.args.push_back(parse_or());
    if (at_keyword("for")) {
      Node comprehension = make(Op::Comprehension);
      comprehension.args.push_back(std::move(list.args.front()));
      while (at_keyword("for") || at_keyword("if")) comprehension.args.push_back(parse_clause());
      expect(Tok::RBracket, "']'");
      return finish(std::move(comprehension));
    }
    while (peek().kind == Tok::Comma) {
      take();
      if (peek().kind == Tok::RBracket) break;  // a trailing comma, as Python allows
      list.args.push_back(parse_or());
    }
    expect(Tok::RBracket, "',' or ']'");
    return finish(std::move(list));
  }

  Node parse_clause() {
    if (take().text == "if") return make(Op::If, parse_or());
    const Token& variable = peek();
    if (variable.kind != Tok::Name || is_keyword(variable.text)) fail_at(variable.pos, "expected a name after 'for'");
    Node clause = make(Op::For);
    clause.name = name_index(take().text);
    if (!at_keyword("in")) fail_at(peek().pos, "expected 'in'");
    take();
    clause.args.push_back(parse_or());
    return finish(std::move(clause));
  }

  bool is_keyword(std::string_view word) const {
    if (word == "and" || word == "or" || word == "not") return true;
    return lists_ && std::find(std::begin(kListKeywords), std::end(kListKeywords), word) != std::end(kListKeywords);
  }

  std::size_t name_index(std::string_view name) {
    std::size_t index = 0;
    while (index < names_.size() && names_[index] != name) ++index;
    if (index == names_.size()) names_.emplace_back(name);
    return index;
  }

  void expect(Tok kind, std::string_view what) {
    if (peek().kind != kind) {
      const Token& t = peek();
      std::string found = "the end";
      if (t.kind != Tok::End) found = std::string("'").append(t.text).append("'");
      fail_at(t.pos, "expected " + std::string(what) + ", found " + found);
    }
    take();
  }

  Node parse_name() {
    const Token& t = take();
    if (t.text == "True" || t.text == "False") {
      Node n;
      n.constant = t.text == "True" ? 1 : 0;
      return n;
    }
    if (is_keyword(t.text)) fail_at(t.pos, "unexpected '" + std::string(t.text) + "'");
    if (peek().kind == Tok::LParen) return parse_call(t);
    Node n;
    n.op = Op::Name;
    n.name = name_index(t.text);
    return n;
  }

  Node parse_call(const Token& name) {
    const Function* function = nullptr;
    for (const auto& f : kFunctions) {
      if (f.name == name.text) function = &f;
    }
    if (function == nullptr || (function->lists_only && !lists_)) {
      fail_at(name.pos, "unknown function '" + std::string(name.text) + "'");
    }
    take();  // (
    Node call = make(function->op);
    if (peek().kind != Tok::RParen) {
      call.args.push_back(parse_or());
      while (peek().kind == Tok::Comma) {
        take();
        call.args.push_back(parse_or());
      }
    }
    expect(Tok::RParen, "',' or ')'");
    const auto n = call.args.size();
    // With lists, min(xs) and max(xs) reduce one list, as in Python.
    const bool reduces = lists_ && (function->op == Op::Min || function->op == Op::Max);
    const std::size_t min_args = reduces ? 1 : function->min_args;
    if (n < min_args || n > function->max_args) {
      std::string need = min_args == function->max_args ? std::to_string(min_args)
                         : function->max_args == kUnlimited
                             ? "at least " + std::to_string(min_args)
                             : std::to_string(min_args) + " to " + std::to_string(function->max_args);
      fail_at(name.pos, std::string(name.text) + "() takes " + need + " argument" +
                            (min_args == 1 && function->max_args == 1 ? "" : "s") + ", got " + std::to_string(n));
    }
    return finish(std::move(call));
  }

  std::string_view text_;
  std::vector<std::string>& names_;
  bool lists_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  std::size_t nesting_ = 0;  // active Nested guards
};

}  // namespace

Node parse_expression(std::string_view text, std::vector<std::string>& names, Syntax syntax) {
  return Parser(text, names, syntax).parse();
}

}  // namespace cutune::detail
