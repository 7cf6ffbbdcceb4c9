#include "xjit/ir/custom_call_config.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit {
namespace {

absl::Status Error(absl::string_view what, absl::string_view text, size_t pos) {
  return absl::InvalidArgumentError(absl::StrCat("custom_call: ", what, " at offset ", pos,
                                                 " of '", text, "'"));
}

// A character scanner over attribute text, enough for the values a backend
// config holds (MLIR's full attribute grammar lives in the text layer).
class Scanner {
 public:
  explicit Scanner(absl::string_view text) : text_(text) {}

  void SkipBlanks() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(absl::string_view token) {
    SkipBlanks();
    if (!absl::StartsWith(text_.substr(pos_), token)) return false;
    pos_ += token.size();
    return true;
  }
  absl::Status Expect(absl::string_view token) {
    if (Accept(token)) return absl::OkStatus();
    return Err(absl::StrCat("expected '", token, "'"));
  }
  bool AtEnd() {
    SkipBlanks();
    return pos_ >= text_.size();
  }
  char Peek() {
    SkipBlanks();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  absl::Status Err(absl::string_view what) const { return Error(what, text_, pos_); }

  // [A-Za-z_][A-Za-z0-9_.$]* or a quoted string.
  absl::StatusOr<std::string> Name() {
    if (Peek() == '"') return String();
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '.' || text_[pos_] == '$')) {
      ++pos_;
    }
    if (pos_ == start) return Err("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::StatusOr<std::string> String() {
    if (absl::Status s = Expect("\""); !s.ok()) return s;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == '"' || e == '\\') {
        out += e;
      } else if (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(e)) &&
                 std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        out += static_cast<char>(std::strtol(std::string(text_.substr(pos_ - 1, 2)).c_str(),
                                             nullptr, 16));
        ++pos_;
      } else {
        return Err("unknown escape in string");
      }
    }
    if (pos_ >= text_.size()) return Err("unterminated string");
    ++pos_;
    return out;
  }

  // A number's characters: sign, digits, '.', exponent, hex.
  absl::string_view NumberText() {
    SkipBlanks();
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool sign_after_e =
          (c == '-' || c == '+') && pos_ > start && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || sign_after_e ||
          ((c == '-' || c == '+') && pos_ == start)) {
        ++pos_;
      } else {
        break;
      }
    }
    return text_.substr(start, pos_ - start);
  }

  // An MLIR type name after ':' (i64, ui8, f32, bf16, index).
  std::string TypeName() {
    SkipBlanks();
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // Moves past the next `c`.
  absl::Status SkipPast(char c) {
    const size_t at = text_.find(c, pos_);
    if (at == absl::string_view::npos) return Err(absl::StrCat("expected '", std::string(1, c), "'"));
    pos_ = at + 1;
    return absl::OkStatus();
  }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

bool IsFloatType(absl::string_view type) {
  return absl::StartsWith(type, "f") || absl::StartsWith(type, "bf");
}

// `digits` as a float of `type`: decimal, or the bits in hex (0x7FC00000 : f32).
absl::StatusOr<double> FloatOf(Scanner& s, absl::string_view digits, absl::string_view type) {
  if (absl::StartsWith(digits, "0x") || absl::StartsWith(digits, "0X")) {
    uint64_t bits = 0;
    if (!absl::SimpleHexAtoi(digits.substr(2), &bits)) return s.Err("bad hexadecimal float");
    if (type == "f32") {
      const uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  double d = 0;
  if (!absl::SimpleAtod(digits, &d)) return s.Err(absl::StrCat("bad number '", digits, "'"));
  return d;
}

absl::StatusOr<int64_t> IntOf(Scanner& s, absl::string_view digits) {
  int64_t v = 0;
  if (absl::StartsWith(digits, "0x") || absl::StartsWith(digits, "0X")) {
    uint64_t u = 0;
    if (!absl::SimpleHexAtoi(digits.substr(2), &u)) return s.Err("bad hexadecimal integer");
    return static_cast<int64_t>(u);
  }
  if (absl::SimpleAtoi(digits, &v)) return v;
  uint64_t u = 0;  // ui64 values above INT64_MAX keep their bits
  if (absl::SimpleAtoi(digits, &u)) return static_cast<int64_t>(u);
  return s.Err(absl::StrCat("bad integer '", digits, "'"));
}

absl::StatusOr<CustomCallValue> Value(Scanner& s) {
  CustomCallValue out;
  if (s.Peek() == '"') {
    absl::StatusOr<std::string> str = s.String();
    if (!str.ok()) return str.status();
    out.value = *std::move(str);
    return out;
  }
  if (s.Accept("array<")) {
    const std::string type = s.TypeName();
    out.type = type;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    if (s.Accept(":")) {
      do {
        absl::string_view digits = s.NumberText();
        if (IsFloatType(type)) {
          absl::StatusOr<double> d = FloatOf(s, digits, type);
          if (!d.ok()) return d.status();
          floats.push_back(*d);
        } else {
          absl::StatusOr<int64_t> i = digits == "true" ? 1 : digits == "false" ? 0 : IntOf(s, digits);
          if (!i.ok()) return i.status();
          ints.push_back(*i);
        }
      } while (s.Accept(","));
    }
    if (absl::Status st = s.Expect(">"); !st.ok()) return st;
    if (IsFloatType(type)) {
      out.value = std::move(floats);
    } else {
      out.value = std::move(ints);
    }
    return out;
  }
  absl::string_view digits = s.NumberText();
  if (digits.empty()) return s.Err("expected a number, string, bool or array<...>");
  std::string type;
  if (s.Accept(":")) type = s.TypeName();
  const bool is_float = IsFloatType(type) ||
                        (type.empty() && !absl::StartsWith(digits, "0x") &&
                         (absl::StrContains(digits, ".") || absl::StrContains(digits, "e") ||
                          absl::StrContains(digits, "E") || digits == "inf" || digits == "nan"));
  if (is_float) {
    absl::StatusOr<double> d = FloatOf(s, digits, type);
    if (!d.ok()) return d.status();
    out.value = *d;
    out.type = type.empty() ? "f64" : type;
    return out;
  }
  if (type == "i1") {  // MLIR's bool written as an integer
    absl::StatusOr<int64_t> i = IntOf(s, digits);
    if (!i.ok()) return i.status();
    out.value = *i != 0;
    return out;
  }
  absl::StatusOr<int64_t> i = IntOf(s, digits);
  if (!i.ok()) return i.status();
  out.value = *i;
  out.type = type.empty() ? "i64" : type;
  return out;
}

absl::Status WrongKind(absl::string_view name, absl::string_view wanted) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom_call: backend_config attribute '", name, "' is not ", wanted));
}

}  // namespace

absl::StatusOr<CustomCallConfig> CustomCallConfig::FromDictionary(absl::string_view text) {
  CustomCallConfig config;
  Scanner s(text);
  if (absl::Status st = s.Expect("{"); !st.ok()) return st;
  if (!s.Accept("}")) {
    do {
      absl::StatusOr<std::string> name = s.Name();
      if (!name.ok()) return name.status();
      CustomCallValue value;
      if (!s.Accept("=")) {
        value.value = true;  // a unit attribute: present
      } else if (s.Accept("true")) {
        value.value = true;
      } else if (s.Accept("false")) {
        value.value = false;
      } else {
        absl::StatusOr<CustomCallValue> v = Value(s);
        if (!v.ok()) return v.status();
        value = *std::move(v);
      }
      for (const auto& [other, unused] : config.entries_) {
        if (other == *name) return s.Err(absl::StrCat("duplicate attribute '", *name, "'"));
      }
      config.entries_.emplace_back(*std::move(name), std::move(value));
    } while (s.Accept(","));
    if (absl::Status st = s.Expect("}"); !st.ok()) return st;
  }
  if (!s.AtEnd()) return s.Err("unexpected text after the dictionary");
  return config;
}

absl::StatusOr<CustomCallConfig> CustomCallConfig::FromAttrs(const CustomCallAttrs& attrs) {
  absl::string_view dict = absl::StripAsciiWhitespace(attrs.mhlo_backend_config.text);
  absl::string_view config = absl::StripAsciiWhitespace(attrs.backend_config.text);
  CustomCallConfig out;
  if (absl::StartsWith(config, "{")) {
    if (!dict.empty()) {
      return absl::InvalidArgumentError(
          "custom_call: give the attribute dictionary as backend_config or as "
          "mhlo.backend_config, not both");
    }
    dict = config;
  } else if (!config.empty()) {
    Scanner s(config);
    absl::StatusOr<std::string> str = s.String();
    if (!str.ok() || !s.AtEnd()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "custom_call: backend_config must be a string or a dictionary, got ", config));
    }
    out.text_ = *std::move(str);
  }
  if (!dict.empty()) {
    absl::StatusOr<CustomCallConfig> parsed = FromDictionary(dict);
    if (!parsed.ok()) return parsed.status();
    out.entries_ = std::move(parsed->entries_);
  }
  return out;
}

const CustomCallValue* CustomCallConfig::Find(absl::string_view name) const {
  for (const auto& [n, v] : entries_) {
    if (n == name) return &v;
  }
  return nullptr;
}

namespace {
absl::Status Missing(absl::string_view name) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom_call: backend_config has no attribute '", name, "'"));
}
}  // namespace

absl::StatusOr<int64_t> CustomCallConfig::GetInt(absl::string_view name) const {
  const CustomCallValue* v = Find(name);
  if (v == nullptr) return Missing(name);
  if (const int64_t* i = std::get_if<int64_t>(&v->value)) return *i;
  if (const bool* b = std::get_if<bool>(&v->value)) return *b ? 1 : 0;
  return WrongKind(name, "an integer");
}

absl::StatusOr<double> CustomCallConfig::GetFloat(absl::string_view name) const {
  const CustomCallValue* v = Find(name);
  if (v == nullptr) return Missing(name);
  if (const double* d = std::get_if<double>(&v->value)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v->value)) return static_cast<double>(*i);
  return WrongKind(name, "a number");
}

absl::StatusOr<bool> CustomCallConfig::GetBool(absl::string_view name) const {
  const CustomCallValue* v = Find(name);
  if (v == nullptr) return Missing(name);
  if (const bool* b = std::get_if<bool>(&v->value)) return *b;
  if (const int64_t* i = std::get_if<int64_t>(&v->value)) return *i != 0;
  return WrongKind(name, "a bool");
}

absl::StatusOr<std::string> CustomCallConfig::GetString(absl::string_view name) const {
  const CustomCallValue* v = Find(name);
  if (v == nullptr) return Missing(name);
  if (const std::string* s = std::get_if<std::string>(&v->value)) return *s;
  return WrongKind(name, "a string");
}

absl::StatusOr<std::vector<int64_t>> CustomCallConfig::GetInts(absl::string_view name) const {
  const CustomCallValue* v = Find(name);
  if (v == nullptr) return Missing(name);
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&v->value)) return *ints;
  return WrongKind(name, "an array of integers");
}

bool IsRowMajorLayout(absl::Span<const int64_t> minor_to_major) {
  const int64_t rank = static_cast<int64_t>(minor_to_major.size());
  for (int64_t i = 0; i < rank; ++i) {
    if (minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ParseCustomCallLayouts(
    const AttrText& layouts_text, absl::Span<const Shape> shapes, absl::string_view what) {
  std::vector<std::vector<int64_t>> layouts;
  if (absl::StripAsciiWhitespace(layouts_text.text).empty()) {
    for (const Shape& shape : shapes) {
      std::vector<int64_t> l;
      for (int64_t d = shape.rank() - 1; d >= 0; --d) l.push_back(d);
      layouts.push_back(std::move(l));
    }
    return layouts;
  }
  Scanner s(layouts_text.text);
  if (absl::Status st = s.Expect("["); !st.ok()) return st;
  if (!s.Accept("]")) {
    do {
      if (absl::Status st = s.Expect("dense<"); !st.ok()) return st;
      std::vector<int64_t> layout;
      const bool bracketed = s.Accept("[");
      if (s.Peek() != '>' && s.Peek() != ']') {
        do {
          absl::StatusOr<int64_t> d = IntOf(s, s.NumberText());
          if (!d.ok()) return d.status();
          layout.push_back(*d);
        } while (s.Accept(","));
      }
      if (bracketed) {
        if (absl::Status st = s.Expect("]"); !st.ok()) return st;
      }
      if (absl::Status st = s.Expect(">"); !st.ok()) return st;
      if (s.Accept(":")) {  // : tensor<Nxindex>
        if (absl::Status st = s.Expect("tensor<"); !st.ok()) return st;
        if (absl::Status st = s.SkipPast('>'); !st.ok()) return st;
      }
      layouts.push_back(std::move(layout));
    } while (s.Accept(","));
    if (absl::Status st = s.Expect("]"); !st.ok()) return st;
  }
  if (!s.AtEnd()) return s.Err("unexpected text after the layouts");
  if (layouts.size() != shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("custom_call: ", what, " lists ", layouts.size(),
                                                   " layouts for ", shapes.size(), " values"));
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int64_t rank = shapes[i].rank();
    std::vector<bool> seen(rank, false);
    bool ok = static_cast<int64_t>(layouts[i].size()) == rank;
    for (int64_t d : layouts[i]) {
      ok = ok && d >= 0 && d < rank && !seen[d];
      if (ok) seen[d] = true;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "custom_call: ", what, "[", i, "] = [", absl::StrJoin(layouts[i], ", "),
          "] is not a permutation of the dimensions of ", shapes[i].ToString()));
    }
  }
  return layouts;
}

}  // namespace xjit
