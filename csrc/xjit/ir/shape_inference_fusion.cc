// fusion: a cluster of element-wise ops moved into one region (as XLA's fusion
// instruction), made by passes/elementwise_fusion.cc. The region may hold only
// what a backend can run as one pass over the elements: element-wise ops,
// reshapes (the row-major order of elements is unchanged), bitcast_converts
// between types of one width (each element's bytes read as another type) and broadcasts of
// one element or of a region parameter (read in place, never materialised),
// all of one element count. A region with reduces (a row fusion,
// ir/row_geometry.h) holds reduces of the trailing dims of its rows and
// broadcasts of per-row values over their rows too, and each value covers
// whole rows or is one element per row.
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/ir/row_geometry.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

absl::Status BodyError(const Computation& region, const Instruction& instr, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("fusion: ", OpcodeName(instr.opcode()),
                                                 " (instruction %", instr.id(), " of ",
                                                 region.name(), ") ", why));
}

// (rows, row size) of the region's reduces, which must all agree; (0, 0) for
// a region without one.
absl::StatusOr<std::pair<int64_t, int64_t>> RegionRows(const Computation& region) {
  std::pair<int64_t, int64_t> rows{0, 0};
  for (const auto& instr : region.instructions()) {
    if (instr->opcode() != Opcode::kReduce) continue;
    std::optional<std::pair<int64_t, int64_t>> shape = RowReduceShape(*instr);
    if (!shape) {
      return BodyError(region, *instr,
                       "in a fusion region must reduce the trailing dims of one input by one "
                       "add, multiply, maximum, minimum, and or or");
    }
    if (rows.first != 0 && *shape != rows) {
      return BodyError(region, *instr,
                       absl::StrCat("reduces ", shape->first, " rows of ", shape->second,
                                    " elements; the region's rows are ", rows.first, " of ",
                                    rows.second));
    }
    rows = *shape;
  }
  return rows;
}

absl::Status CheckBody(const Computation& region) {
  absl::StatusOr<std::pair<int64_t, int64_t>> rows = RegionRows(region);
  if (!rows.ok()) return rows.status();
  const auto [num_rows, row_size] = *rows;
  int64_t elements = -1;
  for (const auto& instr : region.instructions()) {
    const Opcode op = instr->opcode();
    if (op == Opcode::kParameter) continue;
    const bool allowed =
        IsElementwise(op) || op == Opcode::kReshape || op == Opcode::kReduce ||
        (op == Opcode::kBitcastConvert && !instr->operands().empty() &&
         instr->operand(0)->shape().dims == instr->shape().dims) ||
        (op == Opcode::kBroadcastInDim && !instr->operands().empty() &&
         (instr->operand(0)->shape().num_elements() == 1 ||
          instr->operand(0)->opcode() == Opcode::kParameter ||
          (num_rows > 0 && IsRowBroadcast(*instr, num_rows, num_rows * row_size))));
    if (!allowed) {
      return BodyError(region, *instr,
                       "may not be in a fusion region (element-wise ops, reshapes, same-width "
                       "bitcast_converts, broadcasts of one element and broadcasts of a region "
                       "parameter; with reduces of rows, broadcasts of a value per row)");
    }
    if (instr->shape().is_tuple) return BodyError(region, *instr, "has a tuple result");
    const int64_t n = instr->shape().num_elements();
    if (num_rows > 0) {
      if (n != num_rows * row_size && n != num_rows) {
        return BodyError(region, *instr,
                         absl::StrCat("has ", n, " elements; the region's values have ",
                                      num_rows * row_size, " (rows of ", row_size, ") or ",
                                      num_rows, " (one per row)"));
      }
      continue;
    }
    if (elements < 0) elements = n;
    if (n != elements) {
      return BodyError(region, *instr,
                       absl::StrCat("has ", n, " elements; the region's ops have ", elements));
    }
  }
  if (region.results().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("fusion: region ", region.name(), " returns nothing"));
  }
  for (const Instruction* r : region.results()) {
    if (r == nullptr || r->opcode() == Opcode::kParameter) {
      return absl::InvalidArgumentError(
          absl::StrCat("fusion: region ", region.name(), " returns a parameter or null"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferFusion(Operands operands, Called called) {
  if (called.size() != 1 || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("fusion: expected one region, got ", called.size()));
  }
  const Computation& region = *called[0];
  if (absl::Status s = CheckBody(region); !s.ok()) return s;
  // The region's signature and results are checked as a call's are.
  absl::StatusOr<Shape> shape = InferCall(operands, called);
  if (!shape.ok()) {
    return absl::Status(shape.status().code(),
                        absl::StrCat("fusion", shape.status().message().substr(4)));
  }
  return shape;
}

}  // namespace shape_inference
}  // namespace xjit
