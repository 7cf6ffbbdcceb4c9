// The op graph: a Module owns Computations; a Computation owns Instructions in
// SSA form, in topological order. Ops with regions (reduce, call) point to
// other computations of the same module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/opcode.h"
#include "xjit/ir/shape.h"

namespace xjit {

class Computation;

class Instruction {
 public:
  Instruction(Opcode opcode, Shape shape, std::vector<Instruction*> operands,
              Attributes attrs, std::vector<Computation*> called)
      : opcode_(opcode), shape_(std::move(shape)), operands_(std::move(operands)),
        attrs_(std::move(attrs)), called_(std::move(called)) {}

  Opcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  // The op's typed attributes: attrs<SliceAttrs>() on a slice. Asking for
  // another struct than the op's (OpcodeAttrsKind) aborts.
  template <typename T>
  const T& attrs() const {
    return attrs_.get<T>();
  }
  const Attributes& attributes() const { return attrs_; }
  // reduce: [body]; call: [callee].
  const std::vector<Computation*>& called_computations() const { return called_; }

  // Position in the owning computation (SSA number), set when appended.
  int64_t id() const { return id_; }
  // Where the user created this op ("file.py:12"), for error messages.
  const std::string& source_location() const { return source_location_; }
  void set_source_location(std::string loc) { source_location_ = std::move(loc); }

 private:
  friend class Computation;
  Opcode opcode_;
  Shape shape_;
  std::vector<Instruction*> operands_;
  Attributes attrs_;
  std::vector<Computation*> called_;
  int64_t id_ = -1;
  std::string source_location_;
};

// Whether the instruction must run even when unused and may not be merged or
// reordered: its op's kSideEffects, or a custom_call with has_side_effect.
bool HasSideEffects(const Instruction& instr);

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  const std::vector<std::unique_ptr<Instruction>>& instructions() const { return instructions_; }
  // Parameters in parameter-number order.
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  // Values returned by the computation (variadic, like func.return).
  const std::vector<Instruction*>& results() const { return results_; }
  void set_results(std::vector<Instruction*> results) { results_ = std::move(results); }

  // Appends; operands must already belong to this computation.
  Instruction* AddInstruction(std::unique_ptr<Instruction> instr);
  // Deletes the instructions not marked in `keep` (indexed by id) and numbers
  // the rest in order again. Parameters, results and the operands of what is
  // kept must be kept (LiveInstructions' answer, parameters added).
  void RemoveInstructions(const std::vector<bool>& keep);

 private:
  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::vector<Instruction*> parameters_;
  std::vector<Instruction*> results_;
};

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  // The entry computation is printed as @main.
  Computation* entry() const { return entry_; }
  void set_entry(Computation* c) { entry_ = c; }
  const std::vector<std::unique_ptr<Computation>>& computations() const { return computations_; }
  Computation* AddComputation(std::unique_ptr<Computation> c);

  // Shapes of the entry's parameters and results.
  std::vector<Shape> ParameterShapes() const;
  std::vector<Shape> ResultShapes() const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
};

}  // namespace xjit
