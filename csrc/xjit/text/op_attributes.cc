#include "xjit/text/op_attributes.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit::text {
namespace {

using Handler = std::function<absl::Status(const AttrValue&)>;

struct Spec {
  std::string name;
  bool required;
  Handler handle;
};

Handler Ints(const Lexer& lex, std::string name, std::vector<int64_t>& field) {
  return [&lex, name, &field](const AttrValue& v) -> absl::Status {
    absl::StatusOr<std::vector<int64_t>> ints = v.AsInts(lex, name);
    if (!ints.ok()) return ints.status();
    field = *std::move(ints);
    return absl::OkStatus();
  };
}

Handler Int(const Lexer& lex, std::string name, int64_t& field) {
  return [&lex, name, &field](const AttrValue& v) -> absl::Status {
    absl::StatusOr<int64_t> x = v.AsInt(lex, name);
    if (!x.ok()) return x.status();
    field = *x;
    return absl::OkStatus();
  };
}

absl::Status ExpectEnum(const AttrValue& v, const Lexer& lex, absl::string_view name,
                        absl::string_view enum_kind) {
  if (v.kind == AttrValue::Kind::kEnum && v.enum_kind == enum_kind) return absl::OkStatus();
  return lex.Error(v.offset, absl::StrCat(name, ": expected #stablehlo<", enum_kind,
                                          " ...>, got ", v.KindName()));
}

// #stablehlo<enum_kind VALUE>, VALUE read by `parse`.
template <typename E>
Handler Enum(const Lexer& lex, std::string name, std::string enum_kind,
             absl::StatusOr<E> (*parse)(absl::string_view), E& field) {
  return [&lex, name, enum_kind, parse, &field](const AttrValue& v) -> absl::Status {
    if (absl::Status s = ExpectEnum(v, lex, name, enum_kind); !s.ok()) return s;
    absl::StatusOr<E> e = parse(v.text);
    if (!e.ok()) return lex.Error(v.offset, e.status().message());
    field = *e;
    return absl::OkStatus();
  };
}

absl::Status ParseDotDimensionNumbers(const AttrValue& v, const Lexer& lex,
                                      DotDimensionNumbers& dn) {
  if (v.kind != AttrValue::Kind::kStruct || v.text != "stablehlo.dot") {
    return lex.Error(v.offset, absl::StrCat("dot_dimension_numbers: expected #stablehlo.dot<...>, "
                                            "got ",
                                            v.KindName()));
  }
  for (const NamedAttr& f : v.fields) {
    std::vector<int64_t>* target = f.name == "lhs_batching_dimensions"      ? &dn.lhs_batching_dimensions
                                   : f.name == "rhs_batching_dimensions"    ? &dn.rhs_batching_dimensions
                                   : f.name == "lhs_contracting_dimensions" ? &dn.lhs_contracting_dimensions
                                   : f.name == "rhs_contracting_dimensions" ? &dn.rhs_contracting_dimensions
                                                                            : nullptr;
    if (target == nullptr) {
      return lex.Error(f.offset, absl::StrCat("#stablehlo.dot has no field '", f.name, "'"));
    }
    absl::StatusOr<std::vector<int64_t>> ints = f.value[0].AsInts(lex, f.name);
    if (!ints.ok()) return ints.status();
    *target = *std::move(ints);
  }
  return absl::OkStatus();
}

std::vector<Spec> SpecsFor(Opcode op, const Lexer& lex, Attributes& a, std::string& callee) {
  switch (op) {
    case Opcode::kConstant:
      return {{"value", true, [&lex, &a](const AttrValue& v) -> absl::Status {
                 if (v.kind != AttrValue::Kind::kDense) {
                   return lex.Error(v.offset, absl::StrCat("value: expected dense<...> : tensor<...>, got ",
                                                           v.KindName()));
                 }
                 a.literal = v.literal;
                 return absl::OkStatus();
               }}};
    case Opcode::kIota:
      return {{"iota_dimension", true, Int(lex, "iota_dimension", a.dimension)}};
    case Opcode::kBroadcastInDim:
      return {{"broadcast_dimensions", true, Ints(lex, "broadcast_dimensions", a.dimensions)}};
    case Opcode::kTranspose:
      return {{"permutation", true, Ints(lex, "permutation", a.dimensions)}};
    case Opcode::kReverse:
    case Opcode::kReduce:
      return {{"dimensions", true, Ints(lex, "dimensions", a.dimensions)}};
    case Opcode::kSlice:
      return {{"start_indices", true, Ints(lex, "start_indices", a.start_indices)},
              {"limit_indices", true, Ints(lex, "limit_indices", a.limit_indices)},
              {"strides", false, Ints(lex, "strides", a.strides)}};
    case Opcode::kPad:
      return {{"edge_padding_low", true, Ints(lex, "edge_padding_low", a.edge_padding_low)},
              {"edge_padding_high", true, Ints(lex, "edge_padding_high", a.edge_padding_high)},
              {"interior_padding", true, Ints(lex, "interior_padding", a.interior_padding)}};
    case Opcode::kConcatenate:
      return {{"dimension", true, Int(lex, "dimension", a.dimension)}};
    case Opcode::kGetTupleElement:
      return {{"index", true, Int(lex, "index", a.dimension)}};
    case Opcode::kCompare:
      return {{"comparison_direction", true,
               Enum(lex, "comparison_direction", "comparison_direction",
                    &ParseComparisonDirection, a.comparison_direction)},
              {"compare_type", false,
               Enum(lex, "compare_type", "comparison_type", &ParseComparisonType, a.compare_type)}};
    case Opcode::kDotGeneral:
      return {{"dot_dimension_numbers", true,
               [&lex, &a](const AttrValue& v) { return ParseDotDimensionNumbers(v, lex, a.dot); }},
              // Precision is a floor: xjit always computes at the operands'
              // full precision, which every setting allows.
              {"precision_config", false, [&lex](const AttrValue& v) -> absl::Status {
                 if (v.kind != AttrValue::Kind::kList) {
                   return lex.Error(v.offset, absl::StrCat("precision_config: expected a list, got ",
                                                           v.KindName()));
                 }
                 for (const AttrValue& p : v.list) {
                   if (absl::Status s = ExpectEnum(p, lex, "precision_config", "precision");
                       !s.ok()) {
                     return s;
                   }
                   if (p.text != "DEFAULT" && p.text != "HIGH" && p.text != "HIGHEST") {
                     return lex.Error(p.offset, absl::StrCat("precision_config: unknown precision '",
                                                             p.text, "'"));
                   }
                 }
                 return absl::OkStatus();
               }},
              // Same reasoning: an algorithm names the least precision and
              // accumulation the result may use; full precision satisfies it.
              {"algorithm", false, [&lex](const AttrValue& v) -> absl::Status {
                 if (v.kind != AttrValue::Kind::kStruct || v.text != "stablehlo.dot_algorithm") {
                   return lex.Error(v.offset, absl::StrCat("algorithm: expected "
                                                           "#stablehlo.dot_algorithm<...>, got ",
                                                           v.KindName()));
                 }
                 return absl::OkStatus();
               }}};
    case Opcode::kCall:
      return {{"callee", true, [&lex, &callee](const AttrValue& v) -> absl::Status {
                 if (v.kind != AttrValue::Kind::kSymbol) {
                   return lex.Error(v.offset,
                                    absl::StrCat("callee: expected a symbol @name, got ", v.KindName()));
                 }
                 callee = v.text;
                 return absl::OkStatus();
               }}};
    default:
      return {};
  }
}

}  // namespace

absl::Status ApplyOpAttributes(Opcode op, absl::string_view op_name,
                               const std::vector<NamedAttr>& attrs, size_t op_offset,
                               const Lexer& lex, Attributes& out, std::string& callee) {
  std::vector<Spec> specs = SpecsFor(op, lex, out, callee);
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
