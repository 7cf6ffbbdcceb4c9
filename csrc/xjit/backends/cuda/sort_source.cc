#include "xjit/backends/cuda/sort_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/scalar_source.h"

namespace xjit::cuda {
namespace {

// Where the rows of a sort lie: `length` elements `inner` apart, rows
// numbered outer-major.
struct SortGeometry {
  int64_t length = 1, inner = 1, rows = 1, padded = 1;
};

absl::StatusOr<SortGeometry> Geometry(const Instruction& sort) {
  const std::vector<int64_t>& dims = sort.operand(0)->shape().dims;
  int64_t d = sort.attrs<SortAttrs>().dimension;
  if (d < 0) d += static_cast<int64_t>(dims.size());
  if (d < 0 || d >= static_cast<int64_t>(dims.size())) {
    return Unsupported(sort, "a sort dimension out of range");
  }
  SortGeometry g;
  g.length = dims[d];
  for (size_t k = d + 1; k < dims.size(); ++k) g.inner *= dims[k];
  int64_t outer = 1;
  for (int64_t k = 0; k < d; ++k) outer *= dims[k];
  g.rows = outer * g.inner;
  while (g.padded < g.length) g.padded *= 2;
  if (g.padded > (int64_t{1} << 30)) return Unsupported(sort, "a sort of more than 2^30 elements a row");
  return g;
}

// The offset of element `i` (an expression) of row `r` (an expression).
std::string ElementOffset(const SortGeometry& g, absl::string_view r, absl::string_view i) {
  return absl::StrCat("((", r, ") / ", g.inner, "LL) * ", g.length * g.inner, "LL + ((", r, ") % ",
                      g.inner, "LL) + (int64_t)(", i, ") * ", g.inner, "LL");
}

}  // namespace

int64_t SortScratchBytes(const Instruction& sort) {
  absl::StatusOr<SortGeometry> g = Geometry(sort);
  return g.ok() ? g->rows * g->padded * 4 : 0;
}

absl::StatusOr<std::vector<KernelLaunch>> AppendSort(const Instruction& sort, const std::string& name,
                                                     std::string* source) {
  if (absl::Status s = CheckArrays(sort); !s.ok()) return s;
  absl::StatusOr<SortGeometry> geometry = Geometry(sort);
  if (!geometry.ok()) return geometry.status();
  const SortGeometry& g = *geometry;
  const size_t n = sort.operands().size();
  std::vector<std::string> types;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<std::string> type = CudaTypeName(sort.operand(k)->shape().dtype);
    if (!type.ok()) return type.status();
    types.push_back(*type);
  }
  // The comparator as a device function of (lhs0, rhs0, lhs1, rhs1, ...).
  const Computation& comparator = *sort.called_computations()[0];
  if (comparator.results().size() != 1) return Unsupported(sort, "a comparator with several results");
  std::vector<std::string> params, decl;
  for (size_t k = 0; k < n; ++k) {
    params.push_back(absl::StrCat("l", k));
    params.push_back(absl::StrCat("r", k));
    decl.push_back(absl::StrCat(types[k], " l", k));
    decl.push_back(absl::StrCat(types[k], " r", k));
  }
  absl::StatusOr<RegionCode> code = EmitRegion(comparator, params, {}, "  ");
  if (!code.ok()) return code.status();
  std::vector<DType> inputs, outputs;
  for (size_t k = 0; k < n; ++k) inputs.push_back(sort.operand(k)->shape().dtype);
  outputs = inputs;
  outputs.push_back(DType::kS32);  // the permutation
  const std::string perm = absl::StrCat("r", n);
  // before(row, x, y): the element at position x of the row goes before the
  // one at y: the comparator says so, or neither goes first and x < y.
  // Positions past the row's end (padding) go after every element.
  std::vector<std::string> lhs_args, rhs_args;
  for (size_t k = 0; k < n; ++k) {
    lhs_args.push_back(absl::StrCat("p", k, "[", ElementOffset(g, "row", "x"), "]"));
    lhs_args.push_back(absl::StrCat("p", k, "[", ElementOffset(g, "row", "y"), "]"));
    rhs_args.push_back(absl::StrCat("p", k, "[", ElementOffset(g, "row", "y"), "]"));
    rhs_args.push_back(absl::StrCat("p", k, "[", ElementOffset(g, "row", "x"), "]"));
  }
  std::vector<std::string> pointer_params;
  for (size_t k = 0; k < n; ++k) pointer_params.push_back(absl::StrCat("const ", types[k], "* p", k));
  std::string functions = absl::StrCat(
      "\n__device__ __forceinline__ bool ", name, "_cmp(", absl::StrJoin(decl, ", "), ") {\n",
      code->statements, "  return ", code->values.at(comparator.results()[0]), ";\n}\n",
      "__device__ __forceinline__ bool ", name, "_before(", absl::StrJoin(pointer_params, ", "),
      ", int64_t row, int32_t x, int32_t y) {\n", "  if (x >= ", g.length, " || y >= ", g.length,
      ") return x < y && (x < ", g.length, " || y >= ", g.length, ");\n", "  if (", name, "_cmp(",
      absl::StrJoin(lhs_args, ", "), ")) return true;\n", "  if (", name, "_cmp(",
      absl::StrJoin(rhs_args, ", "), ")) return false;\n", "  return x < y;\n}\n");
  std::vector<std::string> pointer_args;
  for (size_t k = 0; k < n; ++k) pointer_args.push_back(absl::StrCat("p", k));
  const int64_t slots = g.rows * g.padded;
  std::vector<KernelLaunch> launches;
  // init: the identity permutation.
  absl::StatusOr<std::string> init = Signature(absl::StrCat(name, "_init"), inputs, outputs);
  if (!init.ok()) return init.status();
  absl::StrAppend(&functions, "\n", *init, GridStrideLoop("i", absl::StrCat(slots, "LL")), "    ", perm,
                  "[i] = (int32_t)(i % ", g.padded, "LL);\n  }\n}\n");
  launches.push_back({absl::StrCat(name, "_init"), slots, kBlock, -1});
  // step (k, j) of the network, n = k << 32 | j: each pair (i, i ^ j) put
  // in order, ascending where i & k == 0.
  absl::StatusOr<std::string> step = Signature(absl::StrCat(name, "_step"), inputs, outputs);
  if (!step.ok()) return step.status();
  absl::StrAppend(
      &functions, "\n", *step, "  const int64_t k = n >> 32, j = n & 0xffffffffLL;\n",
      GridStrideLoop("i", absl::StrCat(slots, "LL")), "    const int64_t row = i / ", g.padded,
      "LL, at = i % ", g.padded, "LL, other = at ^ j;\n", "    if (other <= at) continue;\n",
      "    int32_t* q = ", perm, " + row * ", g.padded, "LL;\n",
      "    const int32_t a = q[at], b = q[other];\n",
      "    const bool swap = (at & k) == 0 ? ", name, "_before(", absl::StrJoin(pointer_args, ", "),
      ", row, b, a) : ", name, "_before(", absl::StrJoin(pointer_args, ", "), ", row, a, b);\n",
      "    if (swap) { q[at] = b; q[other] = a; }\n  }\n}\n");
  for (int64_t k = 2; k <= g.padded; k <<= 1) {
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      launches.push_back({absl::StrCat(name, "_step"), slots, kBlock, (k << 32) | j});
    }
  }
  // gather: every result k takes operand k at the sorted positions.
  absl::StatusOr<std::string> gather = Signature(absl::StrCat(name, "_gather"), inputs, outputs);
  if (!gather.ok()) return gather.status();
  absl::StrAppend(&functions, "\n", *gather,
                  GridStrideLoop("i", absl::StrCat(g.rows * g.length, "LL")), "    const int64_t row = i / ",
                  g.length, "LL, at = i % ", g.length, "LL;\n", "    const int32_t from = ", perm,
                  "[row * ", g.padded, "LL + at];\n");
  for (size_t k = 0; k < n; ++k) {
    absl::StrAppend(&functions, "    r", k, "[", ElementOffset(g, "row", "at"), "] = p", k, "[",
                    ElementOffset(g, "row", "from"), "];\n");
  }
  absl::StrAppend(&functions, "  }\n}\n");
  launches.push_back({absl::StrCat(name, "_gather"), g.rows * g.length, kBlock, -1});
  absl::StrAppend(source, functions);
  return launches;
}

}  // namespace xjit::cuda
