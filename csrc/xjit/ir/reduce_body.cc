#include "xjit/ir/reduce_body.h"

namespace xjit {

std::optional<Opcode> RecogniseReduceBody(const Instruction& reduce) {
  if (reduce.operands().size() != 2 || reduce.called_computations().size() != 1) return std::nullopt;
  const Computation& body = *reduce.called_computations()[0];
  if (body.results().size() != 1 || body.parameters().size() != 2) return std::nullopt;
  const Instruction* r = body.results()[0];
  if (r->operands().size() != 2) return std::nullopt;
  const Instruction *a = r->operand(0), *b = r->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter || a == b) {
    return std::nullopt;
  }
  const DType t = reduce.operand(0)->shape().dtype;
  if (r->shape().dtype != t || reduce.shape().dtype != t) return std::nullopt;
  const Opcode op = r->opcode();
  if (op == Opcode::kAdd || op == Opcode::kMultiply || op == Opcode::kMaximum ||
      op == Opcode::kMinimum || op == Opcode::kAnd || op == Opcode::kOr) {
    return op;
  }
  return std::nullopt;
}

}  // namespace xjit
