// Generic-syntax StableHLO printer. Value numbering follows MLIR: one counter
// for %N and one for %argN per func.func, shared with the regions printed
// inline (reduce bodies). Ops with a tuple result (multi-result reduce, call
// with several results) print as %N:K and their get_tuple_element users
// become the aliases %N#i instead of ops, as in MLIR.
#include "xjit/text/printer.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xjit/text/pretty_printer.h"

namespace xjit {
namespace {

// array<i64: 1, 2>; an "i1" field prints array<i1: true, false>.
std::string ArrayAttr(absl::Span<const int64_t> values, absl::string_view int_type) {
  if (int_type == "i1") {
    if (values.empty()) return "array<i1>";
    std::vector<std::string> bools;
    for (int64_t v : values) bools.push_back(v != 0 ? "true" : "false");
    return absl::StrCat("array<i1: ", absl::StrJoin(bools, ", "), ">");
  }
  if (values.empty()) return "array<i64>";
  return absl::StrCat("array<i64: ", absl::StrJoin(values, ", "), ">");
}

// @name, or @"name" when the name is not an identifier (JAX's @"<lambda>").
std::string Symbol(absl::string_view name) {
  bool plain = !name.empty();
  for (char c : name) {
    plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
  }
  return plain ? absl::StrCat("@", name) : absl::StrCat("@\"", name, "\"");
}

// "text" with MLIR's escapes: \" \\ \n \t, other control bytes as \XX.
std::string QuotedString(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppend(&out, "\\", absl::Hex(u, absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

bool IsMultiResult(const Instruction& instr) {
  return instr.shape().is_tuple && HasMultipleResults(instr.opcode());
}

// A field's value as StableHLO text; `nested` inside a #struct<...>, where
// int lists print as [1, 2] (as MLIR prints #stablehlo.dot).
template <typename M>
std::string FieldText(const M& value, const char* int_type, bool nested);

// An f32 attribute as MLIR prints one: "%.6e" when that reads back to the same
// float, else the shortest decimal that does; NaN and infinities as hex bits.
std::string F32Text(float value) {
  if (!std::isfinite(value)) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return absl::StrFormat("0x%08X", bits);
  }
  std::string text = absl::StrFormat("%.6e", value);
  for (int digits = 7; std::strtof(text.c_str(), nullptr) != value && digits <= 9; ++digits) {
    text = absl::StrFormat("%.*e", digits, value);
  }
  return text;
}

// "name = value" for each field of `s`; a kOptional field at its default
// value is left out, as MLIR leaves out a default attribute.
template <typename S>
std::vector<std::string> FieldsText(const S& s, bool nested) {
  std::vector<std::string> parts;
  [[maybe_unused]] static const S kDefault{};
  ForEachField<S>([&](const auto& field) {
    const auto& value = s.*field.member;
    if (field.use == FieldUse::kOptional && value == kDefault.*field.member) return;
    parts.push_back(absl::StrCat(field.name, " = ", FieldText(value, field.int_type, nested)));
  });
  return parts;
}

template <typename M>
std::string FieldText(const M& value, const char* int_type, bool nested) {
  constexpr FieldKind kind = KindOfMember<M>();
  if constexpr (kind == FieldKind::kInt) {
    // Inside #stablehlo.gather<...> an integer has no type (index_vector_dim = 1).
    return nested ? absl::StrCat(value) : absl::StrCat(value, " : ", int_type);
  } else if constexpr (kind == FieldKind::kFloat) {
    return absl::StrCat(F32Text(value), " : f32");
  } else if constexpr (kind == FieldKind::kBool) {
    return value ? "true" : "false";
  } else if constexpr (kind == FieldKind::kIntList) {
    return nested ? absl::StrCat("[", absl::StrJoin(value, ", "), "]") : ArrayAttr(value, int_type);
  } else if constexpr (kind == FieldKind::kEnum) {
    return absl::StrCat("#stablehlo<", EnumTraits<M>::kTextKind, " ", EnumName(value), ">");
  } else if constexpr (kind == FieldKind::kString) {
    return QuotedString(value);
  } else if constexpr (kind == FieldKind::kText) {
    return value.text;
  } else if constexpr (kind == FieldKind::kLiteral) {
    return absl::StrCat(value.ToString(), " : ", value.shape().ToString());
  } else if constexpr (HasCustomText<M>::value) {
    return absl::StrCat("#", M::kTextName, "<", value.ToText(), ">");
  } else {
    return absl::StrCat("#", M::kTextName, "<", absl::StrJoin(FieldsText(value, true), ", "), ">");
  }
}

// The attribute dictionary of one op, without braces; empty when none.
std::string Attrs(const Instruction& instr) {
  std::vector<std::string> parts =
      instr.attributes().Visit([](const auto& s) { return FieldsText(s, false); });
  if (CallsFunction(instr.opcode()) && !instr.called_computations().empty()) {
    parts.push_back(absl::StrCat("callee = ", Symbol(instr.called_computations()[0]->name())));
  }
  return absl::StrJoin(parts, ", ");
}

class ModulePrinter {
 public:
  ModulePrinter(const Module& module, bool pretty) : module_(module), pretty_(pretty) {}

  std::string Print() {
    absl::StrAppend(&out_, "module @", module_.name(), " {\n");
    if (module_.entry() != nullptr) {
      PrintFunc(*module_.entry(), "main");
      printed_.insert(module_.entry());
    }
    while (!pending_.empty()) {
      const Computation* c = pending_.front();
      pending_.pop_front();
      PrintFunc(*c, c->name());
    }
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // Names and types of the values an instruction stands for (several for a
  // multi-result op used directly).
  std::vector<std::string> Refs(const Instruction* v) const {
    auto it = names_.find(v);
    std::string base = it == names_.end() ? "%<unknown>" : it->second;
    if (!IsMultiResult(*v)) return {base};
    std::vector<std::string> refs;
    for (size_t i = 0; i < v->shape().tuple_shapes.size(); ++i)
      refs.push_back(absl::StrCat(base, "#", i));
    return refs;
  }
  static std::vector<std::string> Types(const Instruction* v) {
    if (!IsMultiResult(*v)) return {v->shape().ToString()};
    std::vector<std::string> types;
    for (const Shape& s : v->shape().tuple_shapes) types.push_back(s.ToString());
    return types;
  }
  std::string OperandList(const std::vector<Instruction*>& values) const {
    std::vector<std::string> refs;
    for (const Instruction* v : values) {
      for (std::string& r : Refs(v)) refs.push_back(std::move(r));
    }
    return absl::StrJoin(refs, ", ");
  }
  static std::string TypeList(const std::vector<Instruction*>& values) {
    std::vector<std::string> types;
    for (const Instruction* v : values) {
      for (std::string& t : Types(v)) types.push_back(std::move(t));
    }
    return absl::StrJoin(types, ", ");
  }

  // Gives the computation's parameters their %argN names; returns the
  // "%arg0: tensor<...>" list.
  std::string NameParameters(const Computation& c) {
    std::vector<std::string> parts;
    for (const Instruction* p : c.parameters()) {
      if (p == nullptr) continue;
      std::string name = absl::StrCat("%arg", next_arg_++);
      parts.push_back(absl::StrCat(name, ": ", p->shape().ToString()));
      names_[p] = std::move(name);
    }
    return absl::StrJoin(parts, ", ");
  }

  void PrintFunc(const Computation& c, absl::string_view name) {
    next_value_ = 0;
    next_arg_ = 0;
    std::string params = NameParameters(c);
    std::vector<std::string> result_types;
    for (const Instruction* r : c.results()) {
      for (std::string& t : Types(r)) result_types.push_back(std::move(t));
    }
    absl::StrAppend(&out_, "  func.func ", Symbol(name), "(", params, ") -> (",
                    absl::StrJoin(result_types, ", "), ") {\n");
    PrintBody(c, 4);
    if (pretty_) {
      absl::StrAppend(&out_, "    return");
      if (!c.results().empty()) {
        absl::StrAppend(&out_, " ", OperandList(c.results()), " : ", TypeList(c.results()));
      }
      absl::StrAppend(&out_, "\n  }\n");
      return;
    }
    absl::StrAppend(&out_, "    \"func.return\"(", OperandList(c.results()), ") : (",
                    TypeList(c.results()), ") -> ()\n  }\n");
  }

  void PrintBody(const Computation& c, int indent) {
    for (const auto& instr : c.instructions()) {
      const size_t start = out_.size();
      PrintInstruction(*instr, indent);
      // An op with no results (a side-effecting custom_call) has no "%N:0 = ".
      const Shape& s = instr->shape();
      if (IsMultiResult(*instr) && s.tuple_shapes.empty()) {
        const std::string prefix = absl::StrCat(names_[instr.get()], ":0 = ");
        const size_t at = out_.find(prefix, start);
        if (at != std::string::npos) out_.erase(at, prefix.size());
      }
    }
  }

  void PrintInstruction(const Instruction& instr, int indent) {
    Opcode op = instr.opcode();
    if (op == Opcode::kParameter) return;
    if (op == Opcode::kGetTupleElement && IsMultiResult(*instr.operand(0))) {
      names_[&instr] = absl::StrCat(names_[instr.operand(0)], "#",
                                    instr.attrs<GetTupleElementAttrs>().index);
      return;
    }
    std::string name = absl::StrCat("%", next_value_++);
    names_[&instr] = name;
    std::string pad(indent, ' ');
    absl::StrAppend(&out_, pad, name);
    if (IsMultiResult(instr)) absl::StrAppend(&out_, ":", instr.shape().tuple_shapes.size());
    if (pretty_ && PrintPretty(instr)) return;
    // fusion is xjit's own op (no StableHLO counterpart): "xjit.fusion".
    std::string op_name = CallsFunction(op)        ? "func.call"
                          : op == Opcode::kFusion ? "xjit.fusion"
                                                  : absl::StrCat("stablehlo.", OpcodeName(op));
    absl::StrAppend(&out_, " = \"", op_name, "\"(", OperandList(instr.operands()), ")");
    if (NumRegions(op) > 0) {  // ({region}, {region})
      absl::StrAppend(&out_, " (");
      bool first = true;
      for (const Computation* region : instr.called_computations()) {
        if (!first) absl::StrAppend(&out_, ", ");
        first = false;
        PrintRegion(*region, indent);
      }
      absl::StrAppend(&out_, ")");
    }
    if (CallsFunction(op)) {
      for (const Computation* callee : instr.called_computations()) {
        if (printed_.insert(callee).second) pending_.push_back(callee);
      }
    }
    std::string attrs = Attrs(instr);
    if (!attrs.empty()) absl::StrAppend(&out_, " {", attrs, "}");
    std::string result_type;
    if (IsMultiResult(instr)) {
      result_type = absl::StrCat("(", absl::StrJoin(Types(&instr), ", "), ")");
    } else {
      result_type = instr.shape().ToString();
    }
    absl::StrAppend(&out_, " : (", TypeList(instr.operands()), ") -> ", result_type, "\n");
  }

  void PrintRegion(const Computation& body, int indent) {
    std::string pad(indent, ' ');
    absl::StrAppend(&out_, "{\n", pad, "^bb0(", NameParameters(body), "):\n");
    PrintBody(body, indent + 2);
    if (pretty_) {
      absl::StrAppend(&out_, pad, "  stablehlo.return ", OperandList(body.results()), " : ",
                      TypeList(body.results()), "\n", pad, "}");
      return;
    }
    absl::StrAppend(&out_, pad, "  \"stablehlo.return\"(", OperandList(body.results()), ") : (",
                    TypeList(body.results()), ") -> ()\n", pad, "}");
  }

  // " = <pretty form>\n" after the result name; false (nothing printed)
  // when the op has none.
  bool PrintPretty(const Instruction& instr) {
    std::vector<std::string> operands;
    for (const Instruction* o : instr.operands()) {
      std::vector<std::string> refs = Refs(o);
      if (refs.size() != 1) return false;
      operands.push_back(std::move(refs[0]));
    }
    if (CallsFunction(instr.opcode())) {
      if (instr.called_computations().size() != 1) return false;
      const Computation* callee = instr.called_computations()[0];
      if (printed_.insert(callee).second) pending_.push_back(callee);
      std::vector<std::string> types;
      for (const Instruction* o : instr.operands()) types.push_back(o->shape().ToString());
      const std::vector<std::string> results = Types(&instr);
      absl::StrAppend(&out_, " = call ", Symbol(callee->name()), "(",
                      absl::StrJoin(operands, ", "), ") : (", absl::StrJoin(types, ", "),
                      ") -> ",
                      results.size() == 1 ? results[0]
                                          : absl::StrCat("(", absl::StrJoin(results, ", "), ")"),
                      "\n");
      return true;
    }
    if (instr.opcode() == Opcode::kCustomCall) {
      // JAX's form: @target(%a) {attributes but the target} : (types) -> results.
      std::vector<std::string> parts = FieldsText(instr.attrs<CustomCallAttrs>(), false);
      parts.erase(parts.begin());  // call_target_name, written as the @target
      std::vector<std::string> types;
      for (const Instruction* o : instr.operands()) types.push_back(o->shape().ToString());
      const std::vector<std::string> results = Types(&instr);
      absl::StrAppend(&out_, " = stablehlo.custom_call ",
                      Symbol(instr.attrs<CustomCallAttrs>().call_target_name), "(",
                      absl::StrJoin(operands, ", "), ")",
                      parts.empty() ? "" : absl::StrCat(" {", absl::StrJoin(parts, ", "), "}"),
                      " : (", absl::StrJoin(types, ", "), ") -> ",
                      results.size() == 1 ? results[0]
                                          : absl::StrCat("(", absl::StrJoin(results, ", "), ")"),
                      "\n");
      return true;
    }
    std::optional<std::string> text = text::PrettyOpText(instr, operands);
    if (!text) return false;
    absl::StrAppend(&out_, " = ", *text, "\n");
    return true;
  }

  const Module& module_;
  const bool pretty_;
  std::string out_;
  absl::flat_hash_map<const Instruction*, std::string> names_;
  absl::flat_hash_set<const Computation*> printed_;
  std::deque<const Computation*> pending_;
  int64_t next_value_ = 0;
  int64_t next_arg_ = 0;
};

}  // namespace

std::string PrintModule(const Module& module, bool pretty) {
  return ModulePrinter(module, pretty).Print();
}

}  // namespace xjit
