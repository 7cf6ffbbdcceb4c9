// Tokens of the StableHLO text syntax. The lexer is a cursor the parser
// drives: it can be saved and restored (to parse a callee defined later in the
// module) and can hand out raw text (tensor<2x3xf32> does not split into
// ordinary tokens: "2x3xf32" would lex as one identifier).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xjit::text {

enum class TokenKind {
  kEof,
  kError,       // text holds the message
  kValueId,     // %name or %name#3 (text without '%')
  kSymbol,      // @name (text without '@')
  kBlockLabel,  // ^bb0 (text without '^')
  kHashIdent,   // #stablehlo or #stablehlo.dot (text without '#')
  kBangIdent,   // !stablehlo.token (text without '!')
  kIdent,       // func.func, tensor, dense, i64, true, LT, ...
  kNumber,      // 12, 1.5, 1e-3, 0x7FC00000 (sign is a separate kMinus)
  kString,      // "..." with escapes resolved
  kLParen, kRParen, kLBrace, kRBrace, kLSquare, kRSquare,
  kLess, kGreater, kComma, kColon, kEqual, kArrow, kMinus, kPlus, kQuestion,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;
  size_t offset = 0;  // byte offset of the token's first character
};

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  const Token& Peek();
  Token Next();
  // Consumes the next token; an error "expected <what>, got ..." unless it is `kind`.
  absl::Status Expect(TokenKind kind, absl::string_view what);
  // Consumes the next token when it is `kind`.
  bool Accept(TokenKind kind);
  // True when the next token is the identifier `word` (nothing is consumed).
  bool PeekIdent(absl::string_view word);
  // Byte offset where the next token (or raw scan) starts looking.
  size_t position() const { return pos_; }
  void Seek(size_t offset);

  // Skips blanks and comments, then expects '<' and returns everything up to
  // the matching '>' (exclusive), consuming both. '->' and quoted strings
  // inside do not count as brackets. With `is_type`, a ')' or a line break
  // before the match is an error there: a type never spans them, and
  // "(tensor<7xf64) -> ..." should fail at the ')', not at the end of input.
  absl::StatusOr<absl::string_view> TakeAngleBody(bool is_type = false);
  // Skips a '{ ... }' group (the next token must be its '{') by scanning
  // characters, not tokens: strings and comments are passed over, braces
  // counted. The parser's first pass over a module's functions uses it.
  absl::Status SkipBraces();
  // True when the next non-blank character is c (no token is consumed).
  bool NextCharIs(char c);

  // "line:column" (1-based) of a byte offset.
  std::string Location(size_t offset) const;
  // InvalidArgument "line:col: message".
  absl::Status Error(size_t offset, absl::string_view message) const;
  absl::string_view text() const { return text_; }

 private:
  // Blanks, '//' comments and source locations, which carry no meaning for
  // xjit: loc(...) suffixes and '#loc3 = loc(...)' alias definitions.
  void SkipBlanksAndComments();
  // Skips one location form at pos_; false when there is none.
  bool SkipLocation();
  Token Lex();

  absl::string_view text_;
  size_t pos_ = 0;
  bool has_peeked_ = false;
  Token peeked_;
  size_t peeked_end_ = 0;
};

// Human-readable token for "expected X, got Y" messages.
std::string Describe(const Token& t);

}  // namespace xjit::text
