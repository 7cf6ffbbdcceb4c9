// fusion: a cluster of element-wise ops moved into one region (as XLA's fusion
// instruction), made by passes/elementwise_fusion.cc. The region may hold only
// what a backend can run as one pass over the elements: element-wise ops,
// reshapes (the row-major order of elements is unchanged), bitcast_converts
// between types of one width (each element's bytes read as another type) and broadcasts of
// one element or of a region parameter (read in place, never materialised),
// all of one element count. A region with reduces (a row fusion,
// ir/row_geometry.h) holds reduces of the trailing dims of its rows and
// broadcasts of per-row values over their rows too, and each value covers
// whole rows or is one element per row. A region with reduces of the leading
// dims (a column fusion) holds reduces of its rows into one value per column,
// and every other value covers all rows and columns.
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

// The rows of a region with reduces, which must all agree: (rows, row size)
// of row reduces, or (rows, columns) of column reduces; (0, 0) for a region
// without one.
struct RegionRows {
  int64_t rows = 0, row_size = 0;
  bool columns = false;  // reduces of the leading dims
};

absl::StatusOr<RegionRows> FindRegionRows(const Computation& region) {
  RegionRows rows;
  for (const auto& instr : region.instructions()) {
    if (instr->opcode() != Opcode::kReduce) continue;
    std::optional<std::pair<int64_t, int64_t>> shape = RowReduceShape(*instr);
    bool columns = false;
    if (!shape) {
      shape = ColumnReduceShape(*instr);
      columns = true;
    }
    if (!shape) {
      return BodyError(region, *instr,
                       "in a fusion region must reduce the trailing or the leading dims of one "
                       "input by one add, multiply, maximum, minimum, and or or");
    }
    if (rows.rows != 0 && (shape->first != rows.rows || shape->second != rows.row_size ||
                           columns != rows.columns)) {
      return BodyError(region, *instr,
                       absl::StrCat("reduces ", shape->first, " rows of ", shape->second,
                                    " elements", columns ? " by columns" : "",
                                    "; the region's rows are ", rows.rows, " of ", rows.row_size,
                                    rows.columns ? " reduced by columns" : ""));
    }
    rows = RegionRows{shape->first, shape->second, columns};
  }
  return rows;
}

// A value of a column fusion with one element per column: a reduce, or an
// alias of one.
bool IsPerColumn(const Instruction* v) {
  while (v->opcode() == Opcode::kReshape || v->opcode() == Opcode::kBitcastConvert) {
    v = v->operand(0);
  }
  return v->opcode() == Opcode::kReduce;
}

absl::Status CheckBody(const Computation& region) {
  absl::StatusOr<RegionRows> rows = FindRegionRows(region);
  if (!rows.ok()) return rows.status();
  const int64_t num_rows = rows->columns ? 0 : rows->rows, row_size = rows->row_size;
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
    if (rows->columns) {
      const int64_t whole = rows->rows * rows->row_size;
      if (n != whole && !(n == row_size && IsPerColumn(instr.get()))) {
        return BodyError(region, *instr,
                         absl::StrCat("has ", n, " elements; the region's values have ", whole,
                                      " (rows of ", row_size, "), its column reduces ", row_size));
      }
      continue;
    }
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
