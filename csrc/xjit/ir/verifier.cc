// The verifier re-derives everything the builder checked, for graphs that come
// from elsewhere (the parser, transforms, passes): SSA order, operand
// ownership, inferred shapes, region types and the entry's signature.
#include "xjit/ir/verifier.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference.h"

namespace xjit {
namespace {

std::string Where(const Computation& c, const Instruction& instr) {
  std::string out = absl::StrCat(" (instruction %", instr.id(), " of ", c.name());
  if (!instr.source_location().empty()) absl::StrAppend(&out, ", at ", instr.source_location());
  return out + ")";
}

absl::Status Fail(absl::StatusCode code, absl::string_view message, const Computation& c,
                  const Instruction& instr) {
  return absl::Status(code, absl::StrCat(message, Where(c, instr)));
}

absl::Status VerifyInstruction(const Computation& c, const Instruction& instr, int64_t position,
                               const absl::flat_hash_set<const Computation*>& in_module) {
  absl::string_view name = OpcodeName(instr.opcode());
  if (instr.id() != position) {
    return Fail(absl::StatusCode::kInternal,
                absl::StrCat(name, ": id ", instr.id(), " does not match position ", position), c,
                instr);
  }
  std::vector<const Shape*> shapes;
  for (size_t i = 0; i < instr.operands().size(); ++i) {
    const Instruction* o = instr.operand(i);
    // An operand must be an earlier instruction of this same computation.
    bool ok =
        o != nullptr && o->id() >= 0 && o->id() < position && c.instructions()[o->id()].get() == o;
    if (!ok) {
      return Fail(absl::StatusCode::kInvalidArgument,
                  absl::StrCat(name, ": operand ", i,
                               " is not an earlier instruction of the same computation"),
                  c, instr);
    }
    shapes.push_back(&o->shape());
  }
  std::vector<const Computation*> called;
  for (const Computation* callee : instr.called_computations()) {
    if (!in_module.contains(callee)) {
      return Fail(absl::StatusCode::kInvalidArgument,
                  absl::StrCat(name, ": called computation is not part of the module"), c, instr);
    }
    if (callee == &c) {
      return Fail(absl::StatusCode::kInvalidArgument,
                  absl::StrCat(name, ": computation ", c.name(), " calls itself"), c, instr);
    }
    called.push_back(callee);
  }
  // An op that declares its result type declared the one it has.
  // So does an op computing on quantized values whose result is quantized
  // (shape_inference.h).
  const bool quantized_result = instr.shape().is_array() && instr.shape().is_quantized();
  const Shape* declared =
      DeclaresResultType(instr.opcode()) ||
              (quantized_result && ComputesOnQuantizedTypes(instr.opcode(), shapes, &instr.shape()))
          ? &instr.shape()
          : nullptr;
  absl::StatusOr<Shape> want =
      InferShape(instr.opcode(), shapes, instr.attributes(), called, declared);
  if (!want.ok()) return Fail(want.status().code(), want.status().message(), c, instr);
  if (*want != instr.shape()) {
    return Fail(absl::StatusCode::kInvalidArgument,
                absl::StrCat(name, ": recorded shape ", instr.shape().ToString(),
                             " differs from inferred shape ", want->ToString()),
                c, instr);
  }
  return absl::OkStatus();
}

// Parameters and results first, for every computation, so that inference on
// an op calling a computation never meets a null parameter or result.
absl::Status VerifySignature(const Computation& c) {
  const auto& instrs = c.instructions();
  for (size_t i = 0; i < c.parameters().size(); ++i) {
    if (c.parameters()[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("computation ", c.name(), ": parameter ", i, " is missing"));
    }
  }
  for (size_t i = 0; i < c.results().size(); ++i) {
    const Instruction* r = c.results()[i];
    bool ok = r != nullptr && r->id() >= 0 && r->id() < static_cast<int64_t>(instrs.size()) &&
              instrs[r->id()].get() == r;
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("computation ", c.name(), ": result ", i,
                                                     " is not an instruction of the computation"));
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyComputation(const Computation& c,
                               const absl::flat_hash_set<const Computation*>& in_module) {
  const auto& instrs = c.instructions();
  for (size_t i = 0; i < instrs.size(); ++i) {
    if (absl::Status s = VerifyInstruction(c, *instrs[i], static_cast<int64_t>(i), in_module);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Calls must not form a cycle, or interpreters would recurse forever.
absl::Status CheckAcyclic(const Computation* c, absl::flat_hash_set<const Computation*>& active,
                          absl::flat_hash_set<const Computation*>& done) {
  if (done.contains(c)) return absl::OkStatus();
  if (!active.insert(c).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("module: computation ", c->name(), " is reached recursively"));
  }
  for (const auto& instr : c->instructions()) {
    for (const Computation* callee : instr->called_computations()) {
      if (absl::Status s = CheckAcyclic(callee, active, done); !s.ok()) return s;
    }
  }
  active.erase(c);
  done.insert(c);
  return absl::OkStatus();
}

// The calls of every instruction name computations of the module, other
// than its own (the structure part of VerifyInstruction).
absl::Status VerifyCalls(const Computation& c,
                         const absl::flat_hash_set<const Computation*>& in_module) {
  for (const auto& instr : c.instructions()) {
    for (const Computation* callee : instr->called_computations()) {
      if (!in_module.contains(callee) || callee == &c) {
        return Fail(absl::StatusCode::kInvalidArgument,
                    absl::StrCat(OpcodeName(instr->opcode()),
                                 ": called computation is not part of the module or is ",
                                 c.name(), " itself"),
                    c, *instr);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Verify(const Module& module, bool infer) {
  absl::flat_hash_set<const Computation*> in_module;
  for (const auto& c : module.computations()) in_module.insert(c.get());
  const Computation* entry = module.entry();
  if (entry == nullptr || !in_module.contains(entry)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "module ", module.name(), ": entry computation is missing or not part of the module"));
  }
  absl::flat_hash_set<const Computation*> active, done;
  for (const auto& c : module.computations()) {
    if (absl::Status s = CheckAcyclic(c.get(), active, done); !s.ok()) return s;
  }
  for (const auto& c : module.computations()) {
    if (absl::Status s = VerifySignature(*c); !s.ok()) return s;
  }
  for (const auto& c : module.computations()) {
    if (absl::Status s = infer ? VerifyComputation(*c, in_module) : VerifyCalls(*c, in_module);
        !s.ok()) {
      return s;
    }
  }
  for (const Instruction* r : entry->results()) {
    if (r->shape().is_tuple) {
      return absl::InvalidArgumentError(
          absl::StrCat("module ", module.name(), ": entry results must be arrays, got ",
                       r->shape().ToString(), "; unpack it with get_tuple_element"));
    }
  }
  for (const Instruction* p : entry->parameters()) {
    if (p->shape().is_tuple) {
      return absl::InvalidArgumentError(absl::StrCat("module ", module.name(),
                                                     ": entry parameters must be arrays, got ",
                                                     p->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyModule(const Module& module) { return Verify(module, /*infer=*/true); }

absl::Status VerifyModuleStructure(const Module& module) {
  return Verify(module, /*infer=*/false);
}

}  // namespace xjit
