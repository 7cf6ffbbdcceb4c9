// The field list that describes an attribute struct. Each struct in
// attributes.h declares its fields once,
//
//   static constexpr auto Fields() {
//     return std::make_tuple(MakeField("dimension", &ConcatenateAttrs::dimension));
//   }
//
// and everything generic is driven by that list: equality and hashing (here),
// the Python binding, the StableHLO printer and parser, and the op schema
// Python and docs/ops.md read (DescribeFields). A field's kind follows from
// its C++ type: int64_t, bool, float (an f32 attribute), std::vector<int64_t>, an enum with EnumTraits, a
// Literal, std::string (a "string" attribute), AttrText (an attribute kept as
// its source text), or a nested struct with its own Fields().
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/literal.h"

namespace xjit {

// How a field may be left out: kRequired must be given in StableHLO text;
// kOptional may be left out and is not printed while it has its default
// value; kDefaulted may be left out of the text but is always printed.
enum class FieldUse : uint8_t { kRequired, kOptional, kDefaulted };

enum class FieldKind : uint8_t {
  kInt, kIntList, kEnum, kLiteral, kStruct, kBool, kFloat, kString, kText
};

// An attribute xjit keeps as the text it was written in (custom_call's
// backend_config dictionary, operand layouts): printed back verbatim, read by
// the code that gives it meaning (ir/custom_call_config.h). Empty: absent.
struct AttrText {
  std::string text;
  bool operator==(const AttrText& o) const { return text == o.text; }
  bool operator!=(const AttrText& o) const { return text != o.text; }
  template <typename H>
  friend H AbslHashValue(H h, const AttrText& t) {
    return H::combine(std::move(h), t.text);
  }
};

template <typename S, typename M>
struct Field {
  using Struct = S;
  using Member = M;
  const char* name;  // the StableHLO attribute name
  M S::*member;
  FieldUse use;
  const char* int_type;  // text type of an int field: "i64" or "i32"
};

template <typename S, typename M>
constexpr Field<S, M> MakeField(const char* name, M S::*member,
                                FieldUse use = FieldUse::kRequired, const char* int_type = "i64") {
  return Field<S, M>{name, member, use, int_type};
}

// Specialised for each enum an attribute uses: its C++ name (kTypeName), its
// StableHLO spelling (#stablehlo<kTextKind NAME>), words for messages
// (kDescription) and the names of its values, in enum order (kNames).
template <typename E>
struct EnumTraits;

template <typename T, typename = void>
struct HasFields : std::false_type {};
template <typename T>
struct HasFields<T, std::void_t<decltype(T::Fields())>> : std::true_type {};

// A struct field with its own text syntax inside #kTextName<...> (the
// compact #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>):
// `std::string ToText() const` and `static absl::StatusOr<T> FromText(body)`.
template <typename T, typename = void>
struct HasCustomText : std::false_type {};
template <typename T>
struct HasCustomText<T, std::void_t<decltype(T::FromText(absl::string_view()))>>
    : std::true_type {};

template <typename T, typename = void>
struct HasEnumTraits : std::false_type {};
template <typename T>
struct HasEnumTraits<T, std::void_t<decltype(EnumTraits<T>::kNames)>> : std::true_type {};

template <typename M>
constexpr FieldKind KindOfMember() {
  if constexpr (std::is_same_v<M, int64_t>) {
    return FieldKind::kInt;
  } else if constexpr (std::is_same_v<M, bool>) {
    return FieldKind::kBool;
  } else if constexpr (std::is_same_v<M, float>) {
    return FieldKind::kFloat;
  } else if constexpr (std::is_same_v<M, std::vector<int64_t>>) {
    return FieldKind::kIntList;
  } else if constexpr (std::is_same_v<M, Literal>) {
    return FieldKind::kLiteral;
  } else if constexpr (std::is_same_v<M, std::string>) {
    return FieldKind::kString;
  } else if constexpr (std::is_same_v<M, AttrText>) {
    return FieldKind::kText;
  } else if constexpr (HasEnumTraits<M>::value) {
    return FieldKind::kEnum;
  } else {
    static_assert(HasFields<M>::value, "attribute field of an unsupported type");
    return FieldKind::kStruct;
  }
}

// Calls f(field) for each field of S, in declaration order.
template <typename S, typename F>
void ForEachField(F&& f) {
  std::apply([&f](const auto&... field) { (f(field), ...); }, S::Fields());
}

template <typename E>
absl::string_view EnumName(E value) {
  return EnumTraits<E>::kNames[static_cast<int>(value)];
}

template <typename E>
absl::StatusOr<E> ParseEnum(absl::string_view name) {
  constexpr int n = static_cast<int>(std::size(EnumTraits<E>::kNames));
  for (int i = 0; i < n; ++i) {
    if (name == EnumTraits<E>::kNames[i]) return static_cast<E>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", EnumTraits<E>::kDescription, " '", name, "'"));
}

// Equality and hashing of every attribute struct, field by field.
template <typename S, std::enable_if_t<HasFields<S>::value, int> = 0>
bool operator==(const S& a, const S& b) {
  bool equal = true;
  ForEachField<S>([&](const auto& field) { equal = equal && a.*field.member == b.*field.member; });
  return equal;
}
template <typename S, std::enable_if_t<HasFields<S>::value, int> = 0>
bool operator!=(const S& a, const S& b) {
  return !(a == b);
}
template <typename H, typename S, std::enable_if_t<HasFields<S>::value, int> = 0>
H AbslHashValue(H h, const S& s) {
  ForEachField<S>([&](const auto& field) { h = H::combine(std::move(h), s.*field.member); });
  return h;
}

// A field described at run time (for Python's op schema and docs/ops.md).
struct FieldInfo {
  std::string name;
  FieldKind kind;
  FieldUse use;
  std::string type;                      // "int64", "int64[]", "Literal", enum or struct name
  std::vector<std::string> enum_values;  // kEnum
  std::vector<FieldInfo> fields;         // kStruct
};

// "int", "int_list", "enum", "literal", "struct", "bool", "float", "string", "text"
absl::string_view FieldKindName(FieldKind kind);

template <typename S>
std::vector<FieldInfo> DescribeFields() {
  std::vector<FieldInfo> out;
  ForEachField<S>([&out](const auto& field) {
    using M = typename std::decay_t<decltype(field)>::Member;
    FieldInfo info{field.name, KindOfMember<M>(), field.use, "", {}, {}};
    if constexpr (KindOfMember<M>() == FieldKind::kInt) {
      info.type = "int64";
    } else if constexpr (KindOfMember<M>() == FieldKind::kBool) {
      info.type = "bool";
    } else if constexpr (KindOfMember<M>() == FieldKind::kFloat) {
      info.type = "float32";
    } else if constexpr (KindOfMember<M>() == FieldKind::kIntList) {
      info.type = "int64[]";
    } else if constexpr (KindOfMember<M>() == FieldKind::kLiteral) {
      info.type = "Literal";
    } else if constexpr (KindOfMember<M>() == FieldKind::kString) {
      info.type = "string";
    } else if constexpr (KindOfMember<M>() == FieldKind::kText) {
      info.type = "attribute text";
    } else if constexpr (KindOfMember<M>() == FieldKind::kEnum) {
      info.type = EnumTraits<M>::kTypeName;
      for (const char* n : EnumTraits<M>::kNames) info.enum_values.push_back(n);
    } else {
      info.type = M::kTypeName;
      info.fields = DescribeFields<M>();
    }
    out.push_back(std::move(info));
  });
  return out;
}

}  // namespace xjit
