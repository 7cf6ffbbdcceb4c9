// while, if and case: ops whose regions are whole computations run on the
// op's operands. After the operands the spec names (while: the carried
// values; if: the predicate; case: the branch index) come the values the
// regions capture; every region takes them as its trailing parameters.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

std::string TypeList(const std::vector<Shape>& shapes) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : shapes) ptrs.push_back(&s);
  return ShapesToString(ptrs);
}

// The region's parameter and result types, or an error naming the op.
absl::Status Signature(absl::string_view op, absl::string_view role, const Computation* region,
                       std::vector<Shape>& params, std::vector<Shape>& results) {
  if (region == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", role, " region is null"));
  }
  for (const Instruction* p : region->parameters()) {
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": ", role, " ", region->name(),
                                                     " has a gap in its parameter numbers"));
    }
    params.push_back(p->shape());
  }
  for (const Instruction* r : region->results()) {
    if (r == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", role, " ", region->name(), " has a null result"));
    }
    results.push_back(r->shape());
  }
  return absl::OkStatus();
}

std::vector<Shape> Types(Operands operands, size_t begin, size_t end) {
  std::vector<Shape> out;
  for (size_t i = begin; i < end; ++i) out.push_back(*operands[i]);
  return out;
}

// One result is the array itself; any other count is a tuple.
Shape Results(std::vector<Shape> types) {
  if (types.size() == 1) return types[0];
  return Shape::Tuple(std::move(types));
}

absl::Status CheckScalar(absl::string_view op, absl::string_view what, const Shape& s,
                         DType dtype, absl::string_view want) {
  if (s.is_tuple || s.rank() != 0 || s.dtype != dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", what, " must be ", want, ", got ", s.ToString()));
  }
  return absl::OkStatus();
}

// The branches of if/case: each takes the captured values and all return the
// same types.
absl::StatusOr<Shape> InferBranches(absl::string_view op, Operands operands, Called called) {
  const std::vector<Shape> captured = Types(operands, 1, operands.size());
  std::vector<Shape> first_results;
  for (size_t b = 0; b < called.size(); ++b) {
    std::vector<Shape> params, results;
    const std::string role = absl::StrCat("branch ", b);
    if (absl::Status s = Signature(op, role, called[b], params, results); !s.ok()) return s;
    if (params != captured) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": ", role, " (", called[b]->name(), ") must take the captured operands (",
          TypeList(captured), "), got (", TypeList(params), ")"));
    }
    if (b == 0) {
      first_results = results;
    } else if (results != first_results) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": branches must return the same types, but branch 0 returns (",
          TypeList(first_results), ") and ", role, " returns (", TypeList(results), ")"));
    }
  }
  return Results(first_results);
}

}  // namespace

absl::StatusOr<Shape> InferWhile(Operands operands, Called called) {
  if (called.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("while: expected a cond and a body region, got ", called.size(),
                     " region(s)"));
  }
  std::vector<Shape> cond_params, cond_results, body_params, body_results;
  if (absl::Status s = Signature("while", "cond", called[0], cond_params, cond_results); !s.ok()) {
    return s;
  }
  if (absl::Status s = Signature("while", "body", called[1], body_params, body_results); !s.ok()) {
    return s;
  }
  const std::vector<Shape> all = Types(operands, 0, operands.size());
  const size_t n = body_results.size();  // the carried values; the rest are captured
  if (n > operands.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "while: body returns ", n, " value(s) but the op has only ", operands.size(),
        " operand(s)"));
  }
  const std::vector<Shape> carried = Types(operands, 0, n);
  if (body_results != carried) {  // C3 / C4
    return absl::InvalidArgumentError(absl::StrCat(
        "while: body ", called[1]->name(), " must return the carried types (",
        TypeList(carried), "), got (", TypeList(body_results), ")"));
  }
  if (body_params != all) {
    return absl::InvalidArgumentError(absl::StrCat(
        "while: body ", called[1]->name(), " must take the operand types (", TypeList(all),
        "), got (", TypeList(body_params), ")"));
  }
  if (cond_params != all) {  // C1
    return absl::InvalidArgumentError(absl::StrCat(
        "while: cond ", called[0]->name(), " must take the operand types (", TypeList(all),
        "), got (", TypeList(cond_params), ")"));
  }
  if (cond_results.size() != 1 || cond_results[0] != Shape(DType::kPred, {})) {  // C2
    return absl::InvalidArgumentError(absl::StrCat("while: cond ", called[0]->name(),
                                                   " must return one tensor<i1>, got (",
                                                   TypeList(cond_results), ")"));
  }
  return Results(carried);  // C5
}

absl::StatusOr<Shape> InferIf(Operands operands, Called called) {
  if (operands.empty()) return absl::InvalidArgumentError("if: expected a pred operand");
  if (absl::Status s = CheckScalar("if", "pred", *operands[0], DType::kPred, "tensor<i1>");
      !s.ok()) {
    return s;
  }
  if (called.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "if: expected a true and a false branch, got ", called.size(), " region(s)"));
  }
  return InferBranches("if", operands, called);
}

absl::StatusOr<Shape> InferCase(Operands operands, Called called) {
  if (operands.empty()) return absl::InvalidArgumentError("case: expected an index operand");
  if (absl::Status s = CheckScalar("case", "index", *operands[0], DType::kS32, "tensor<i32>");
      !s.ok()) {
    return s;
  }
  if (called.empty()) {  // C1
    return absl::InvalidArgumentError("case: expected at least one branch");
  }
  return InferBranches("case", operands, called);
}

}  // namespace shape_inference
}  // namespace xjit
