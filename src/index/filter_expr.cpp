// Recursive-descent parser for filter expressions (the evaluator is in filter_eval.cpp).
// Precedence, lowest first: or; and; not; comparison (== != < > <= >= in,
// not in, like, not like); + -; * / %; unary -; **; indexing; primary.
#include "bioagent/filter_expr.h"

#include "index/filter_node.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace bioagent {

namespace {

using Node = FilterExpr::Node;
using Kind = Node::Kind;
using filter_internal::error_at;

struct Token {
  enum Type { kNum, kStr, kIdent, kOp, kEnd } type;
  std::string text;
  size_t pos;
  FilterValue value;
};

// A number from s[start] (an integer, or a real with '.' or an exponent); i ends after it.
Result<Token> number_token(std::string_view s, size_t start, size_t& i) {
  bool real = false;
  i = start;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
                          ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
    real = real || !std::isdigit(static_cast<unsigned char>(s[i]));
    ++i;
  }
  std::string num(s.substr(start, i - start));
  Token t{Token::kNum, num, start, {}};
  try {
    if (real)
      t.value.v = std::stod(num);
    else
      t.value.v = static_cast<int64_t>(std::stoll(num));
  } catch (...) {
    return error_at(start, "invalid number '" + num + "'");
  }
  return t;
}

// A quoted string from its opening quote at s[start] (\x is x); i ends after the closing quote.
Result<Token> string_token(std::string_view s, size_t start, size_t& i) {
  const char quote = s[start];
  std::string text;
  i = start + 1;
  while (i < s.size()) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (s[i] == quote) {
      ++i;
      Token t{Token::kStr, text, start, {}};
      t.value.v = text;
      return t;
    }
    text += s[i++];
  }
  return error_at(start, "unterminated string");
}

// A name or keyword from s[start]; i ends after it.
Token word_token(std::string_view s, size_t start, size_t& i) {
  i = start;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  std::string word(s.substr(start, i - start));
  // Milvus spells its keywords in lower or upper case: AND, OR, NOT, IN, LIKE, TRUE, FALSE.
  for (const char* upper : {"AND", "OR", "NOT", "IN", "LIKE", "TRUE", "FALSE"})
    if (word == upper)
      for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return {Token::kIdent, word, start, {}};
}

// An operator at s[i] (Milvus's && || ! read as and, or, not); i ends after it.
Result<Token> operator_token(std::string_view s, size_t& i) {
  const char c = s[i];
  const size_t at = i;
  std::string two(s.substr(i, 2));
  if (two == "&&" || two == "||") {  // Milvus: && is and, || is or
    i += 2;
    return Token{Token::kIdent, two == "&&" ? "and" : "or", at, {}};
  }
  if (c == '!' && two != "!=") {  // Milvus: ! is not
    ++i;
    return Token{Token::kIdent, "not", at, {}};
  }
  if (two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "**") {
    i += 2;
    return Token{Token::kOp, two, at, {}};
  }
  if (std::string("<>+-*/%()[],").find(c) != std::string::npos) {
    ++i;
    return Token{Token::kOp, std::string(1, c), at, {}};
  }
  if (c == '=') return error_at(i, "use == to compare, not =");
  return error_at(i, std::string("unexpected character '") + c + "'");
}

Result<std::vector<Token>> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Result<Token> t = Token{};
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))))
      t = number_token(s, i, i);
    else if (c == '\'' || c == '"')
      t = string_token(s, i, i);
    else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
      t = word_token(s, i, i);
    else
      t = operator_token(s, i);
    if (!t) return t.status();
    out.push_back(std::move(*t));
  }
  out.push_back({Token::kEnd, "", s.size(), {}});
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> t, const std::set<std::string>& known, std::set<std::string>* used)
      : t_(std::move(t)), known_(known), used_(used) {}

  Result<std::unique_ptr<Node>> parse() {
    auto n = or_expr();
    if (!n) return n;
    if (peek().type != Token::kEnd) return error_at(peek().pos, "unexpected '" + peek().text + "'");
    return n;
  }

 private:
  const Token& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool is(const char* text, Token::Type type = Token::kOp, size_t k = 0) const {
    return peek(k).type == type && peek(k).text == text;
  }
  bool word(const char* w, size_t k = 0) const { return is(w, Token::kIdent, k); }
  static std::unique_ptr<Node> make(Kind k, size_t pos, std::string op = "") {
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->pos = pos;
    n->op = std::move(op);
    return n;
  }
  Status deeper(size_t pos) { return ++depth_ > 100 ? error_at(pos, "the expression nests too deeply") : Status{}; }

  Result<std::unique_ptr<Node>> binary_chain(Result<std::unique_ptr<Node>> (Parser::*next)(),
                                             std::initializer_list<const char*> ops, Token::Type type) {
    auto left = (this->*next)();
    if (!left) return left;
    for (;;) {
      const char* hit = nullptr;
      for (const char* o : ops) {
        if (is(o, type)) hit = o;
      }
      if (!hit) return left;
      size_t pos = peek().pos;
      ++p_;
      auto right = (this->*next)();
      if (!right) return right;
      auto n = make(Kind::kBinary, pos, hit);
      n->kids.push_back(std::move(*left));
      n->kids.push_back(std::move(*right));
      left = std::move(n);
    }
  }

  Result<std::unique_ptr<Node>> or_expr() { return binary_chain(&Parser::and_expr, {"or"}, Token::kIdent); }
  Result<std::unique_ptr<Node>> and_expr() { return binary_chain(&Parser::not_expr, {"and"}, Token::kIdent); }

  Result<std::unique_ptr<Node>> not_expr() {
    if (word("not") && !word("in", 1) && !word("like", 1)) {
      size_t pos = peek().pos;
      ++p_;
      BIOAGENT_RETURN_IF_ERROR(deeper(pos));
      auto inner = not_expr();
      --depth_;
      if (!inner) return inner;
      auto n = make(Kind::kNot, pos);
      n->kids.push_back(std::move(*inner));
      return n;
    }
    return comparison();
  }

  Result<std::unique_ptr<Node>> comparison() {
    auto left = additive();
    if (!left) return left;
    std::string op;
    size_t pos = peek().pos;
    for (const char* o : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (is(o)) op = o;
    }
    if (!op.empty())
      ++p_;
    else if (word("in"))
      op = "in", ++p_;
    else if (word("like"))
      op = "like", ++p_;
    else if (word("not") && word("in", 1))
      op = "not in", p_ += 2;
    else if (word("not") && word("like", 1))
      op = "not like", p_ += 2;
    else
      return left;
    auto right = additive();
    if (!right) return right;
    auto n = make(Kind::kBinary, pos, op);
    n->kids.push_back(std::move(*left));
    n->kids.push_back(std::move(*right));
    return n;
  }

  Result<std::unique_ptr<Node>> additive() { return binary_chain(&Parser::term, {"+", "-"}, Token::kOp); }
  Result<std::unique_ptr<Node>> term() { return binary_chain(&Parser::unary, {"*", "/", "%"}, Token::kOp); }

  Result<std::unique_ptr<Node>> unary() {
    if (is("-")) {
      size_t pos = peek().pos;
      ++p_;
      BIOAGENT_RETURN_IF_ERROR(deeper(pos));
      auto inner = unary();
      --depth_;
      if (!inner) return inner;
      auto n = make(Kind::kNeg, pos);
      n->kids.push_back(std::move(*inner));
      return n;
    }
    return power();
  }

  Result<std::unique_ptr<Node>> power() {
    auto base = postfix();
    if (!base || !is("**")) return base;
    size_t pos = peek().pos;
    ++p_;
    BIOAGENT_RETURN_IF_ERROR(deeper(pos));
    auto exp = unary();
    --depth_;
    if (!exp) return exp;
    auto n = make(Kind::kBinary, pos, "**");
    n->kids.push_back(std::move(*base));
    n->kids.push_back(std::move(*exp));
    return n;
  }

  Result<std::unique_ptr<Node>> postfix() {
    auto n = primary();
    while (n && is("[")) {
      size_t pos = peek().pos;
      ++p_;
      auto index = or_expr();
      if (!index) return index;
      if (!is("]")) return error_at(peek().pos, "expected ']'");
      ++p_;
      auto idx = make(Kind::kIndex, pos);
      idx->kids.push_back(std::move(*n));
      idx->kids.push_back(std::move(*index));
      n = std::move(idx);
    }
    return n;
  }

  Result<std::vector<std::unique_ptr<Node>>> items(const char* close) {
    std::vector<std::unique_ptr<Node>> out;
    while (!is(close)) {
      auto item = or_expr();
      if (!item) return item.status();
      out.push_back(std::move(*item));
      if (out.size() > 10000) return error_at(peek().pos, "too many items");
      if (is(",")) {
        ++p_;
        continue;
      }
      if (!is(close)) return error_at(peek().pos, std::string("expected ',' or '") + close + "'");
    }
    ++p_;
    return out;
  }

  Result<std::unique_ptr<Node>> primary() {
    const Token t = peek();
    BIOAGENT_RETURN_IF_ERROR(deeper(t.pos));
    struct Undepth {
      int& d;
      ~Undepth() { --d; }
    } undepth{depth_};
    if (t.type == Token::kNum || t.type == Token::kStr) {
      ++p_;
      auto n = make(Kind::kLiteral, t.pos);
      n->value = t.value;
      return n;
    }
    if (t.type == Token::kIdent) {
      ++p_;
      if (t.text == "true" || t.text == "false" || t.text == "True" || t.text == "False") {
        auto n = make(Kind::kLiteral, t.pos);
        n->value.v = t.text == "true" || t.text == "True";
        return n;
      }
      if (t.text == "null" || t.text == "None") return make(Kind::kLiteral, t.pos);
      if (is("(")) {
        if (t.text != "array_contains" && t.text != "array_length")
          return error_at(t.pos, "unknown function '" + t.text + "' (array_contains, array_length)");
        ++p_;
        auto args = items(")");
        if (!args) return args.status();
        size_t want = t.text == "array_contains" ? 2 : 1;
        if (args->size() != want) return error_at(t.pos, t.text + "() takes " + std::to_string(want) + " argument(s)");
        auto n = make(Kind::kCall, t.pos, t.text);
        n->kids = std::move(*args);
        return n;
      }
      if (t.text == "and" || t.text == "or" || t.text == "not" || t.text == "in" || t.text == "like")
        return error_at(t.pos, "'" + t.text + "' needs an operand before it");
      if (!known_.count(t.text)) {
        std::string list;
        for (auto& f : known_) list += (list.empty() ? "" : ", ") + f;
        Status s = error_at(t.pos, "unknown field '" + t.text + "' (fields: " + list + ")");
        s.with("rule", "unknown_field");
        return s;
      }
      used_->insert(t.text);
      return make(Kind::kField, t.pos, t.text);
    }
    if (is("(")) {
      ++p_;
      auto inner = or_expr();
      if (!inner) return inner;
      if (!is(")")) return error_at(peek().pos, "expected ')'");
      ++p_;
      return inner;
    }
    if (is("[")) {
      ++p_;
      auto list = items("]");
      if (!list) return list.status();
      auto n = make(Kind::kList, t.pos);
      n->kids = std::move(*list);
      return n;
    }
    if (t.type == Token::kEnd) return error_at(t.pos, "unexpected end of the filter");
    return error_at(t.pos, "unexpected '" + t.text + "'");
  }

  std::vector<Token> t_;
  size_t p_ = 0;
  int depth_ = 0;
  const std::set<std::string>& known_;
  std::set<std::string>* used_;
};

}  // namespace

std::string FilterValue::repr() const {
  switch (v.index()) {
    case 0:
      return "null";
    case 1:
      return std::get<bool>(v) ? "true" : "false";
    case 2:
      return std::to_string(std::get<int64_t>(v));
    case 3:
      return std::to_string(std::get<double>(v));
    case 4:
      return "'" + std::get<std::string>(v) + "'";
    default: {
      std::string s = "[";
      for (auto& x : std::get<std::vector<FilterValue>>(v)) s += (s.size() > 1 ? ", " : "") + x.repr();
      return s + "]";
    }
  }
}

FilterExpr::FilterExpr() = default;
FilterExpr::FilterExpr(FilterExpr&&) noexcept = default;
FilterExpr& FilterExpr::operator=(FilterExpr&&) noexcept = default;
FilterExpr::~FilterExpr() = default;

Result<FilterExpr> FilterExpr::parse(std::string_view text, const std::set<std::string>& known_fields) {
  FilterExpr f;
  if (text.size() > 10000) return invalid_argument("filter: longer than 10,000 characters");
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return f;
  auto tokens = tokenize(text);
  if (!tokens) return tokens.status();
  Parser p(std::move(*tokens), known_fields, &f.fields_);
  auto root = p.parse();
  if (!root) return root.status();
  f.root_ = std::move(*root);
  return f;
}

Result<bool> FilterExpr::matches(const FieldLookup& record) const {
  if (!root_) return true;
  return filter_internal::truth(*root_, record);
}

}  // namespace bioagent
