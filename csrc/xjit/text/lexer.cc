#include "xjit/text/lexer.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace xjit::text {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
// ASCII tests, not <cctype>'s locale-aware calls: the lexer asks for every
// character of a 10,000-op module.
bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$';
}
bool IsBlank(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

void Lexer::Seek(size_t offset) {
  pos_ = offset;
  has_peeked_ = false;
}

absl::Status Lexer::Expect(TokenKind kind, absl::string_view what) {
  Token t = Next();
  if (t.kind == kind) return absl::OkStatus();
  return Error(t.offset, absl::StrCat("expected ", what, ", got ", Describe(t)));
}

bool Lexer::Accept(TokenKind kind) {
  if (Peek().kind != kind) return false;
  Next();
  return true;
}

bool Lexer::PeekIdent(absl::string_view word) {
  return Peek().kind == TokenKind::kIdent && Peek().text == word;
}

bool Lexer::SkipLocation() {
  absl::string_view rest = text_.substr(pos_);
  if (absl::StartsWith(rest, "#loc")) {
    // #loc3 = loc(...): an alias; the loc(...) after '=' is skipped next.
    size_t end = 4;
    while (end < rest.size() && IsIdentChar(rest[end])) ++end;
    size_t eq = end;
    while (eq < rest.size() && (rest[eq] == ' ' || rest[eq] == '\t')) ++eq;
    if (eq >= rest.size() || rest[eq] != '=') return false;
    pos_ += eq + 1;
    return true;
  }
  if (!absl::StartsWith(rest, "loc(")) return false;
  if (pos_ > 0 && IsIdentChar(text_[pos_ - 1])) return false;
  size_t i = 4;
  int depth = 1;
  while (i < rest.size() && depth > 0) {
    char c = rest[i];
    if (c == '"') {
      for (++i; i < rest.size() && rest[i] != '"'; ++i) {
        if (rest[i] == '\\') ++i;
      }
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    }
    ++i;
  }
  pos_ += i;
  return true;
}

void Lexer::SkipBlanksAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (IsBlank(c)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if ((c == '#' || c == 'l') && SkipLocation()) {
    } else {
      break;
    }
  }
}

const Token& Lexer::Peek() {
  if (!has_peeked_) {
    size_t saved = pos_;
    peeked_ = Lex();
    peeked_end_ = pos_;
    pos_ = saved;
    has_peeked_ = true;
  }
  return peeked_;
}

Token Lexer::Next() {
  if (has_peeked_) {
    has_peeked_ = false;
    pos_ = peeked_end_;
    return std::move(peeked_);
  }
  return Lex();
}

absl::Status Lexer::SkipBraces() {
  has_peeked_ = false;
  SkipBlanksAndComments();
  if (pos_ >= text_.size() || text_[pos_] != '{') {
    return Error(pos_, absl::StrCat("expected '{', got ", Describe(Peek())));
  }
  const size_t open = pos_++;
  int depth = 1;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
        if (text_[pos_] == '\\') ++pos_;
      }
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      continue;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      ++pos_;
      return absl::OkStatus();
    }
    ++pos_;
  }
  return Error(open, "unterminated '{': expected '}'");
}

bool Lexer::NextCharIs(char c) {
  has_peeked_ = false;
  SkipBlanksAndComments();
  return pos_ < text_.size() && text_[pos_] == c;
}

absl::StatusOr<absl::string_view> Lexer::TakeAngleBody(bool is_type) {
  has_peeked_ = false;
  SkipBlanksAndComments();
  if (pos_ >= text_.size() || text_[pos_] != '<') {
    return Error(pos_, "expected '<'");
  }
  size_t open = pos_++;
  int depth = 1;
  size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (is_type && (c == ')' || c == '\n')) {
      return Error(pos_, "expected '>' closing the type's '<'");
    }
    if (is_type && static_cast<unsigned char>(c) >= 0x80) {
      return Error(pos_, absl::StrCat("unexpected non-ASCII byte 0x",
                                      absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2),
                                      " (outside strings the text must be ASCII)"));
    }
    if (c == '"') {
      for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
        if (text_[pos_] == '\\') ++pos_;
      }
    } else if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      ++pos_;
    } else if (c == '<') {
      ++depth;
    } else if (c == '>' && --depth == 0) {
      absl::string_view body = text_.substr(start, pos_ - start);
      ++pos_;
      return body;
    }
    ++pos_;
  }
  return Error(open, "unterminated '<': expected a matching '>'");
}

Token Lexer::Lex() {
  SkipBlanksAndComments();
  Token t;
  t.offset = pos_;
  if (pos_ >= text_.size()) return t;
  const char c = text_[pos_];
  auto single = [&](TokenKind k) {
    ++pos_;
    t.kind = k;
    t.text = std::string(1, c);
    return t;
  };
  auto take_ident_chars = [&](size_t from) {
    size_t end = from;
    while (end < text_.size() && IsIdentChar(text_[end])) ++end;
    std::string s(text_.substr(from, end - from));
    pos_ = end;
    return s;
  };
  switch (c) {
    case '(': return single(TokenKind::kLParen);
    case ')': return single(TokenKind::kRParen);
    case '{': return single(TokenKind::kLBrace);
    case '}': return single(TokenKind::kRBrace);
    case '[': return single(TokenKind::kLSquare);
    case ']': return single(TokenKind::kRSquare);
    case '<': return single(TokenKind::kLess);
    case '>': return single(TokenKind::kGreater);
    case ',': return single(TokenKind::kComma);
    case ':': return single(TokenKind::kColon);
    case '=': return single(TokenKind::kEqual);
    case '+': return single(TokenKind::kPlus);
    case '?': return single(TokenKind::kQuestion);
    case '-':
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
        pos_ += 2;
        t.kind = TokenKind::kArrow;
        t.text = "->";
        return t;
      }
      return single(TokenKind::kMinus);
    case '"': {
      std::string s;
      size_t i = pos_ + 1;
      for (; i < text_.size() && text_[i] != '"'; ++i) {
        if (text_[i] == '\n') break;
        if (text_[i] != '\\') {
          s += text_[i];
          continue;
        }
        if (++i >= text_.size()) break;
        char e = text_[i];
        if (e == 'n') {
          s += '\n';
        } else if (e == 't') {
          s += '\t';
        } else if (e == '"' || e == '\\') {
          s += e;
        } else if (i + 1 < text_.size() && IsHexDigit(e) && IsHexDigit(text_[i + 1])) {
          s += static_cast<char>(std::stoi(std::string(text_.substr(i, 2)), nullptr, 16));
          ++i;
        } else {
          t.kind = TokenKind::kError;
          t.text = absl::StrCat("unknown escape '\\", std::string(1, e), "' in string");
          return t;
        }
      }
      if (i >= text_.size() || text_[i] != '"') {
        t.kind = TokenKind::kError;
        t.text = "unterminated string: expected a closing '\"' on the same line";
        pos_ = i;
        return t;
      }
      pos_ = i + 1;
      t.kind = TokenKind::kString;
      t.text = std::move(s);
      return t;
    }
    case '%':
    case '@':
    case '^':
    case '#':
    case '!': {
      if (c == '@' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
        // A quoted symbol, @"<lambda>", as MLIR writes names that are not
        // identifiers.
        size_t end = pos_ + 2;
        while (end < text_.size() && text_[end] != '"' && text_[end] != '\n') ++end;
        if (end >= text_.size() || text_[end] != '"') {
          t.kind = TokenKind::kError;
          t.text = "unterminated quoted symbol @\"...";
          ++pos_;
          return t;
        }
        t.kind = TokenKind::kSymbol;
        t.text = std::string(text_.substr(pos_ + 2, end - pos_ - 2));
        pos_ = end + 1;
        return t;
      }
      // %0 and %arg0 both appear, so names may start with a digit.
      size_t end = pos_ + 1;
      while (end < text_.size() && IsIdentChar(text_[end])) ++end;
      if (end == pos_ + 1) {
        t.kind = TokenKind::kError;
        t.text = absl::StrCat("expected a name after '", std::string(1, c), "'");
        ++pos_;
        return t;
      }
      t.text = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end;
      if (c == '%') {
        t.kind = TokenKind::kValueId;
        // %3#1 names result 1 of a multi-result op.
        if (pos_ + 1 < text_.size() && text_[pos_] == '#' && IsDigit(text_[pos_ + 1])) {
          size_t e = pos_ + 1;
          while (e < text_.size() && IsDigit(text_[e])) ++e;
          t.text += std::string(text_.substr(pos_, e - pos_));
          pos_ = e;
        }
      } else {
        t.kind = c == '@' ? TokenKind::kSymbol
                 : c == '^' ? TokenKind::kBlockLabel
                 : c == '#' ? TokenKind::kHashIdent
                            : TokenKind::kBangIdent;
      }
      return t;
    }
    default:
      break;
  }
  if (IsDigit(c)) {
    size_t end = pos_;
    if (c == '0' && end + 1 < text_.size() && (text_[end + 1] == 'x' || text_[end + 1] == 'X')) {
      end += 2;
      while (end < text_.size() && IsHexDigit(text_[end])) ++end;
    } else {
      while (end < text_.size() && IsDigit(text_[end])) ++end;
      if (end < text_.size() && text_[end] == '.') {
        ++end;
        while (end < text_.size() && IsDigit(text_[end])) ++end;
      }
      if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
        size_t e = end + 1;
        if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
        if (e < text_.size() && IsDigit(text_[e])) {
          while (e < text_.size() && IsDigit(text_[e])) ++e;
          end = e;
        }
      }
    }
    t.kind = TokenKind::kNumber;
    t.text = std::string(text_.substr(pos_, end - pos_));
    pos_ = end;
    return t;
  }
  if (IsIdentStart(c)) {
    t.kind = TokenKind::kIdent;
    t.text = take_ident_chars(pos_);
    return t;
  }
  t.kind = TokenKind::kError;
  if (static_cast<unsigned char>(c) >= 0x80) {
    // Quoting a lone byte of a UTF-8 sequence would make the message invalid UTF-8.
    t.text = absl::StrCat("unexpected non-ASCII byte 0x",
                          absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2),
                          " (outside strings the text must be ASCII)");
  } else {
    t.text = absl::StrCat("unexpected character '", std::string(1, c), "'");
  }
  ++pos_;
  return t;
}

std::string Lexer::Location(size_t offset) const {
  int64_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return absl::StrCat(line, ":", col);
}

absl::Status Lexer::Error(size_t offset, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(Location(offset), ": ", message));
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEof: return "end of input";
    case TokenKind::kError: return t.text;
    case TokenKind::kValueId: return absl::StrCat("'%", t.text, "'");
    case TokenKind::kSymbol: return absl::StrCat("'@", t.text, "'");
    case TokenKind::kBlockLabel: return absl::StrCat("'^", t.text, "'");
    case TokenKind::kHashIdent: return absl::StrCat("'#", t.text, "'");
    case TokenKind::kBangIdent: return absl::StrCat("'!", t.text, "'");
    case TokenKind::kString: return absl::StrCat("string \"", t.text, "\"");
    default: return absl::StrCat("'", t.text, "'");
  }
}

}  // namespace xjit::text
