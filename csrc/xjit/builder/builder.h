// XlaBuilder-like construction: validate operands, infer the shape, append.
// A ModuleBuilder owns the module under construction; each computation
// (the entry or a region such as a reduce body) gets a ComputationBuilder.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"

namespace xjit {

class ComputationBuilder;

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string name);
  ~ModuleBuilder();

  // Starts a new computation; the builder stays owned by this ModuleBuilder.
  ComputationBuilder* NewComputation(std::string name);
  // Verifies and hands over the module; `entry` must have been finished.
  absl::StatusOr<std::unique_ptr<Module>> Build(Computation* entry);

 private:
  std::unique_ptr<Module> module_;
  std::vector<std::unique_ptr<ComputationBuilder>> builders_;
};

class ComputationBuilder {
 public:
  ComputationBuilder(Module* module, std::string name);

  // Parameters are numbered in call order.
  Instruction* Parameter(Shape shape);
  Instruction* Constant(Literal literal);
  // Generic append: infers the shape and rejects bad operands/attributes with
  // a message that starts with the op name. `attrs` holds the op's struct
  // (OpcodeAttrsKind), or nothing (NoAttrs) for that struct's defaults.
  absl::StatusOr<Instruction*> Add(Opcode op, std::vector<Instruction*> operands,
                                   Attributes attrs = {},
                                   std::vector<Computation*> called = {},
                                   std::string source_location = "");
  // Add for an op that declares its result type (DeclaresResultType: iota,
  // reshape, broadcast_in_dim, convert). Reshape and broadcast_in_dim take
  // the operand's element type whatever `result_type` says; convert with
  // empty dims takes the operand's dims.
  absl::StatusOr<Instruction*> AddWithResultType(Opcode op, Shape result_type,
                                                 std::vector<Instruction*> operands,
                                                 Attributes attrs = {},
                                                 std::vector<Computation*> called = {},
                                                 std::string source_location = "");
  // A copy of `old` (an instruction of a built module) over `operands`, whose
  // shapes equal those of old's operands, calling computations with old's
  // callees' signatures: its shape is old's, so it is not inferred again.
  // The caller vouches for the shapes (rewriter.cc checks them); ownership
  // of the operands is still checked.
  absl::StatusOr<Instruction*> AddCopyOf(const Instruction& old, std::vector<Instruction*> operands,
                                         std::vector<Computation*> called);
  // Sets the results and moves the computation into the module.
  absl::StatusOr<Computation*> Finish(std::vector<Instruction*> results);

  bool finished() const { return finished_ != nullptr; }
  Computation* computation() const { return computation_.get() ? computation_.get() : finished_; }

 private:
  // True when `instr` is an instruction of the computation being built (not
  // null, and not one of another computation).
  bool Owns(const Instruction* instr) const;
  // InvalidArgument naming the first operand that is null or another
  // computation's, for op `name`.
  absl::Status CheckOperandsOwned(absl::string_view name,
                                  const std::vector<Instruction*>& operands) const;
  absl::StatusOr<Instruction*> Append(Opcode op, std::optional<Shape> result_type,
                                      std::vector<Instruction*> operands, Attributes attrs,
                                      std::vector<Computation*> called,
                                      std::string source_location);

  Module* module_;
  std::unique_ptr<Computation> computation_;
  Computation* finished_ = nullptr;
  int64_t next_parameter_ = 0;
};

}  // namespace xjit
