#include "xjit/text/op_attributes.h"

#include <functional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"

namespace xjit::text {
namespace {

using Handler = std::function<absl::Status(const AttrValue&)>;

struct Spec {
  std::string name;
  bool required;
  Handler handle;
};

absl::Status ExpectEnum(const AttrValue& v, const Lexer& lex, absl::string_view name,
                        absl::string_view enum_kind) {
  if (v.kind == AttrValue::Kind::kEnum && v.enum_kind == enum_kind) return absl::OkStatus();
  return lex.Error(v.offset, absl::StrCat(name, ": expected #stablehlo<", enum_kind,
                                          " ...>, got ", v.KindName()));
}

// Reads one field's value, whatever its kind (attribute_fields.h).
template <typename M>
absl::Status ReadField(const AttrValue& v, const Lexer& lex, absl::string_view name, M& out) {
  constexpr FieldKind kind = KindOfMember<M>();
  if constexpr (kind == FieldKind::kInt) {
    absl::StatusOr<int64_t> x = v.AsInt(lex, name);
    if (!x.ok()) return x.status();
    out = *x;
  } else if constexpr (kind == FieldKind::kFloat) {
    absl::StatusOr<float> x = v.AsF32(lex, name);
    if (!x.ok()) return x.status();
    out = *x;
  } else if constexpr (kind == FieldKind::kBool) {
    if (v.kind != AttrValue::Kind::kBool) {
      return lex.Error(v.offset, absl::StrCat(name, ": expected true or false, got ", v.KindName()));
    }
    out = v.text == "true";
  } else if constexpr (kind == FieldKind::kIntList) {
    absl::StatusOr<std::vector<int64_t>> ints = v.AsInts(lex, name);
    if (!ints.ok()) return ints.status();
    out = *std::move(ints);
  } else if constexpr (kind == FieldKind::kEnum) {
    // #stablehlo<enum_kind VALUE>
    if (absl::Status s = ExpectEnum(v, lex, name, EnumTraits<M>::kTextKind); !s.ok()) return s;
    absl::StatusOr<M> e = ParseEnum<M>(v.text);
    if (!e.ok()) return lex.Error(v.offset, e.status().message());
    out = *e;
  } else if constexpr (kind == FieldKind::kString) {
    if (v.kind != AttrValue::Kind::kString) {
      return lex.Error(v.offset, absl::StrCat(name, ": expected a string, got ", v.KindName()));
    }
    out = v.text;
  } else if constexpr (kind == FieldKind::kText) {
    if (v.source.empty()) {
      return lex.Error(v.offset, absl::StrCat(name, ": expected a value"));
    }
    out.text = v.source;
  } else if constexpr (kind == FieldKind::kLiteral) {
    if (v.kind != AttrValue::Kind::kDense || !v.literal) {
      return lex.Error(v.offset, absl::StrCat(name, ": expected dense<...> : tensor<...>, got ",
                                              v.KindName()));
    }
    out = *v.literal;
  } else {
    if constexpr (HasCustomText<M>::value) {
      // #text_name<custom syntax>, kept by the attribute parser as opaque text.
      const std::string prefix = absl::StrCat(M::kTextName, "<");
      if (v.kind == AttrValue::Kind::kOpaque && absl::StartsWith(v.text, prefix) &&
          absl::EndsWith(v.text, ">")) {
        absl::string_view body(v.text);
        body = body.substr(prefix.size(), body.size() - prefix.size() - 1);
        absl::StatusOr<M> parsed = M::FromText(body);
        if (!parsed.ok()) return lex.Error(v.offset, absl::StrCat(name, ": ", parsed.status().message()));
        out = *std::move(parsed);
        return absl::OkStatus();
      }
    }
    // #text_name<field = value, ...>, every field optional.
    if (v.kind != AttrValue::Kind::kStruct || v.text != M::kTextName) {
      return lex.Error(v.offset, absl::StrCat(name, ": expected #", M::kTextName, "<...>, got ",
                                              v.KindName()));
    }
    for (const NamedAttr& f : v.fields) {
      bool known = false;
      absl::Status status;
      ForEachField<M>([&](const auto& field) {
        if (known || f.name != field.name) return;
        known = true;
        status = ReadField(f.value[0], lex, f.name, out.*field.member);
      });
      if (!known) {
        return lex.Error(f.offset, absl::StrCat("#", M::kTextName, " has no field '", f.name, "'"));
      }
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

// Specs for the fields of the struct `attrs` holds.
std::vector<Spec> FieldSpecs(const Lexer& lex, Attributes& attrs) {
  std::vector<Spec> specs;
  attrs.Visit([&](auto& s) {
    using S = std::decay_t<decltype(s)>;
    ForEachField<S>([&](const auto& field) {
      auto* target = &(s.*field.member);
      std::string name = field.name;
      specs.push_back({name, field.use == FieldUse::kRequired,
                       [&lex, name, target](const AttrValue& v) {
                         return ReadField(v, lex, name, *target);
                       }});
    });
  });
  return specs;
}

// Precision is a floor: xjit always computes at the operands' full
// precision, which every setting allows.
absl::Status AcceptPrecisionConfig(const Lexer& lex, const AttrValue& v) {
  if (v.kind != AttrValue::Kind::kList) {
    return lex.Error(v.offset,
                     absl::StrCat("precision_config: expected a list, got ", v.KindName()));
  }
  for (const AttrValue& p : v.list) {
    if (absl::Status s = ExpectEnum(p, lex, "precision_config", "precision"); !s.ok()) return s;
    if (p.text != "DEFAULT" && p.text != "HIGH" && p.text != "HIGHEST") {
      return lex.Error(p.offset,
                       absl::StrCat("precision_config: unknown precision '", p.text, "'"));
    }
  }
  return absl::OkStatus();
}

// Same reasoning: an algorithm names the least precision and accumulation the
// result may use; full precision satisfies it.
absl::Status AcceptAlgorithm(const Lexer& lex, const AttrValue& v) {
  if (v.kind != AttrValue::Kind::kStruct || v.text != "stablehlo.dot_algorithm") {
    return lex.Error(v.offset, absl::StrCat("algorithm: expected #stablehlo.dot_algorithm<...>, got ",
                                            v.KindName()));
  }
  return absl::OkStatus();
}

// Attributes of the text that are not fields: the callee of a call, and the
// dot_general settings xjit accepts and has no use for.
std::vector<Spec> TextOnlySpecs(Opcode op, const Lexer& lex, std::string& callee) {
  std::vector<Spec> specs;
  if (CallsFunction(op)) {
    specs.push_back({"callee", true, [&lex, &callee](const AttrValue& v) -> absl::Status {
                       if (v.kind != AttrValue::Kind::kSymbol) {
                         return lex.Error(v.offset, absl::StrCat("callee: expected a symbol @name, got ",
                                                                 v.KindName()));
                       }
                       callee = v.text;
                       return absl::OkStatus();
                     }});
  }
  if (op == Opcode::kDotGeneral || op == Opcode::kConvolution) {
    specs.push_back({"precision_config", false,
                     [&lex](const AttrValue& v) { return AcceptPrecisionConfig(lex, v); }});
  }
  if (op == Opcode::kDotGeneral) {
    specs.push_back(
        {"algorithm", false, [&lex](const AttrValue& v) { return AcceptAlgorithm(lex, v); }});
  }
  return specs;
}

}  // namespace

absl::Status ApplyOpAttributes(Opcode op, absl::string_view op_name,
                               const std::vector<NamedAttr>& attrs, size_t op_offset,
                               const Lexer& lex, Attributes& out, std::string& callee) {
  out = Attributes::Default(OpcodeAttrsKind(op));
  std::vector<Spec> specs = FieldSpecs(lex, out);
  for (Spec& s : TextOnlySpecs(op, lex, callee)) specs.push_back(std::move(s));
  std::vector<bool> seen(specs.size(), false);
  for (const NamedAttr& attr : attrs) {
    size_t i = 0;
    while (i < specs.size() && specs[i].name != attr.name) ++i;
    if (i == specs.size()) {
      if (attr.name.find('.') != std::string::npos) continue;  // discardable
      std::vector<std::string> known;
      for (const Spec& s : specs) known.push_back(s.name);
      return lex.Error(attr.offset,
                       absl::StrCat("'", op_name, "' has no attribute '", attr.name, "'",
                                    known.empty() ? " (it takes none)"
                                                  : absl::StrCat(" (expected one of: ",
                                                                 absl::StrJoin(known, ", "), ")")));
    }
    seen[i] = true;
    if (absl::Status s = specs[i].handle(attr.value[0]); !s.ok()) return s;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].required && !seen[i]) {
      return lex.Error(op_offset, absl::StrCat("'", op_name, "' is missing the attribute '",
                                               specs[i].name, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace xjit::text
