#include "xjit/backends/cuda/indexing_source.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/scalar_source.h"

namespace xjit::cuda {
namespace {

bool Contains(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Beyond any dimension or window size (the reference's kFar).
constexpr int64_t kFar = int64_t{1} << 60;

absl::Status Malformed(const Instruction& instr, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(OpcodeName(instr.opcode()), ": ", why, " (", instr.shape().ToString(), ")"));
}

// Element `element` of an index array of type `t` as int64_t, as the
// reference's IndexValues: an unsigned index beyond int64 saturates.
std::string IndexValue(DType t, const std::string& element) {
  if (t == DType::kU64) {
    return absl::StrCat("(", element, " > 9223372036854775807ULL ? 9223372036854775807LL : (int64_t)",
                        element, ")");
  }
  return absl::StrCat("(int64_t)", element);
}

// The reference's IndexMap (gather.cc) as source text: the geometry gather
// and scatter share. Names: the reference's `index` is o0.. (a result or
// update index, split by SplitIndex), its start[d] is s<d>, window[d] is w<d>.
struct IndexMap {
  std::vector<int64_t> collapsed, operand_batching, indices_batching, start_map;
  int64_t index_vector_dim;
  std::vector<int64_t> indices_dims;
  DType index_type;
  std::string indices;               // the pointer holding the indices
  std::vector<int64_t> window_dims;  // offset_dims / update_window_dims

  // Statements defining `const int64_t s<d>, w<d>` for d < operand_rank,
  // from o0..o<index_rank-1>. The structure is known when generating, so
  // each reference loop is unrolled here into one expression per dimension.
  absl::StatusOr<std::string> Map(const Instruction& instr, int64_t index_rank,
                                  int64_t operand_rank) const {
    // batch_index / window_index: the index's dimensions outside / inside
    // window_dims, in ascending order.
    std::vector<std::string> batch_index, window_index;
    for (int64_t d = 0; d < index_rank; ++d) {
      (Contains(window_dims, d) ? window_index : batch_index).push_back(absl::StrCat("o", d));
    }
    const int64_t irank = static_cast<int64_t>(indices_dims.size());
    if (index_vector_dim < 0 || index_vector_dim > irank) {
      return Malformed(instr, "index_vector_dim out of range");
    }
    const bool explicit_vector = index_vector_dim < irank;  // else an implicit trailing 1
    if (static_cast<int64_t>(batch_index.size()) != irank - (explicit_vector ? 1 : 0)) {
      return Malformed(instr, "the batch dimensions do not match the indices");
    }
    if (explicit_vector
            ? indices_dims[index_vector_dim] != static_cast<int64_t>(start_map.size())
            : start_map.size() > 1) {
      return Malformed(instr, "the index vector does not match the start index map");
    }
    // start[start_map[k]] = indices[pos], pos = batch_index with k inserted
    // at index_vector_dim.
    std::vector<std::string> start(operand_rank, "0");
    std::vector<std::string> pos(irank);
    for (size_t k = 0; k < start_map.size(); ++k) {
      size_t b = 0;
      for (int64_t d = 0; d < irank; ++d) {
        pos[d] = d == index_vector_dim ? std::to_string(k) : batch_index[b++];
      }
      if (start_map[k] < 0 || start_map[k] >= operand_rank) {
        return Malformed(instr, "start index map out of range");
      }
      start[start_map[k]] =
          IndexValue(index_type, absl::StrCat(indices, "[", Offset(indices_dims, pos), "]"));
    }
    // A batching dimension starts at the index's own batch coordinate.
    if (operand_batching.size() != indices_batching.size()) {
      return Malformed(instr, "batching dimensions of different counts");
    }
    for (size_t i = 0; i < operand_batching.size(); ++i) {
      const int64_t ds = indices_batching[i];
      const int64_t b = ds - (ds < index_vector_dim ? 0 : 1);
      if (b < 0 || b >= static_cast<int64_t>(batch_index.size()) || operand_batching[i] < 0 ||
          operand_batching[i] >= operand_rank) {
        return Malformed(instr, "batching dimension out of range");
      }
      start[operand_batching[i]] = batch_index[b];
    }
    // window[d]: the next window coordinate, for d neither collapsed nor batching.
    std::vector<std::string> window(operand_rank, "0");
    size_t w = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      if (Contains(collapsed, d) || Contains(operand_batching, d)) continue;
      if (w >= window_index.size()) return Malformed(instr, "too few window dimensions");
      window[d] = window_index[w++];
    }
    if (w != window_index.size()) return Malformed(instr, "too many window dimensions");
    std::string code;
    for (int64_t d = 0; d < operand_rank; ++d) {
      absl::StrAppend(&code, "    const int64_t s", d, " = ", start[d], ";\n    const int64_t w", d,
                      " = ", window[d], ";\n");
    }
    return code;
  }
};

// The number of region parameter `x` is, or -1.
int64_t ParamNumber(const Instruction* x) {
  return x->opcode() == Opcode::kParameter ? x->attrs<ParameterAttrs>().number : -1;
}

// `x` combines parameters 0 and 1 (either order) with one op.
bool CombinesParams01(const Instruction* x) {
  if (x->operands().size() != 2) return false;
  const int64_t a = ParamNumber(x->operand(0)), b = ParamNumber(x->operand(1));
  return (a == 0 && b == 1) || (a == 1 && b == 0);
}

}  // namespace

absl::StatusOr<KernelLaunch> AppendGather(const Instruction& gather, const std::string& name,
                                          std::string* source) {
  if (absl::Status s = CheckArrays(gather); !s.ok()) return s;
  if (gather.operands().size() != 2 || !gather.shape().is_array()) {
    return Malformed(gather, "expected an operand and start indices");
  }
  const Shape& operand = gather.operand(0)->shape();
  const Shape& indices = gather.operand(1)->shape();
  const std::vector<int64_t>& odims = operand.dims;
  const int64_t rank = operand.rank();
  if (!IsInteger(indices.dtype)) return Unsupported(gather, "non-integer start indices");
  const GatherAttrs& attrs = gather.attrs<GatherAttrs>();
  const GatherDimensionNumbers& dn = attrs.dimension_numbers;
  if (static_cast<int64_t>(attrs.slice_sizes.size()) != rank) {
    return Malformed(gather, "slice_sizes do not match the operand's rank");
  }
  const IndexMap map{dn.collapsed_slice_dims, dn.operand_batching_dims,
                     dn.start_indices_batching_dims, dn.start_index_map, dn.index_vector_dim,
                     indices.dims, indices.dtype, "p1", dn.offset_dims};
  absl::StatusOr<std::string> mapping = map.Map(gather, gather.shape().rank(), rank);
  if (!mapping.ok()) return mapping.status();

  // One thread per result element `out` (the reference's ForEachIndex body).
  std::string body = SplitIndex(gather.shape().dims, "i", "o");
  const bool empty_slices =
      std::find(attrs.slice_sizes.begin(), attrs.slice_sizes.end(), 0) != attrs.slice_sizes.end();
  if (empty_slices) {
    // A collapsed or batching dimension of slice size 0: every slice is
    // empty and the result is zeros, as the reference's zero-filled result.
    body = "    memset(&r0[i], 0, sizeof(r0[0]));\n";
  } else {
    absl::StrAppend(&body, *mapping);
    // in[d] = Clamp(start[d], 0, odims[d] - slice_sizes[d]) + window[d]; the
    // clamp is max(0, min(s, hi)) as the reference's, batching coordinates
    // unclamped.
    std::vector<std::string> in;
    for (int64_t d = 0; d < rank; ++d) {
      if (Contains(dn.operand_batching_dims, d)) {
        in.push_back(absl::StrCat("s", d, " + w", d));
        continue;
      }
      const int64_t hi = odims[d] - attrs.slice_sizes[d];
      absl::StrAppend(&body, "    int64_t c", d, " = s", d, " > ", hi, "LL ? ", hi, "LL : s", d,
                      ";\n    c", d, " = c", d, " < 0 ? 0 : c", d, ";\n");
      in.push_back(absl::StrCat("c", d, " + w", d));
    }
    absl::StrAppend(&body, "    r0[i] = p0[", Offset(odims, in), "];\n");
  }
  absl::StatusOr<std::string> signature =
      Signature(name, OperandTypes(gather), ResultTypes(gather.shape()));
  if (!signature.ok()) return signature.status();
  absl::StrAppend(source, "\n", *signature, GridStrideLoop("i", "n"), body, "  }\n}\n");
  return KernelLaunch{name, gather.shape().num_elements(), kBlock};
}

ScatterStrategy ChooseScatterStrategy(const Instruction& scatter) {
  const int64_t n = static_cast<int64_t>(scatter.operands().size() - 1) / 2;
  if (scatter.called_computations().empty()) return ScatterStrategy::kSequential;
  const Computation& region = *scatter.called_computations()[0];
  if (static_cast<int64_t>(region.results().size()) != n) return ScatterStrategy::kSequential;
  // "replace": result k is the update parameter N + k.
  bool replace = true;
  for (int64_t k = 0; k < n; ++k) replace = replace && ParamNumber(region.results()[k]) == n + k;
  if (replace) {
    // Without unique indices the last update in order must win: sequential.
    return scatter.attrs<ScatterAttrs>().unique_indices ? ScatterStrategy::kStore
                                                        : ScatterStrategy::kSequential;
  }
  if (n != 1) return ScatterStrategy::kSequential;
  const Instruction* r = region.results()[0];
  const DType t = r->shape().dtype;
  if (t != scatter.operand(0)->shape().dtype || !CombinesParams01(r)) {
    return ScatterStrategy::kSequential;
  }
  const bool int_atomic =
      t == DType::kS32 || t == DType::kU32 || t == DType::kS64 || t == DType::kU64;
  if (r->opcode() == Opcode::kAdd &&
      (int_atomic || t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 || t == DType::kF64)) {
    return ScatterStrategy::kAtomicAdd;
  }
  // Float min/max stay sequential: NaN and signed-zero rules are not atomicMax's.
  if ((r->opcode() == Opcode::kMaximum || r->opcode() == Opcode::kMinimum) && int_atomic) {
    return ScatterStrategy::kAtomicMinMax;
  }
  return ScatterStrategy::kSequential;
}

absl::StatusOr<std::vector<KernelLaunch>> AppendScatter(const Instruction& scatter,
                                                        const std::string& name_prefix,
                                                        std::string* source) {
  if (absl::Status s = CheckArrays(scatter); !s.ok()) return s;
  const size_t count = scatter.operands().size();
  if (count < 3 || count % 2 == 0 || scatter.called_computations().size() != 1) {
    return Malformed(scatter, "expected N inputs, indices, N updates and a combiner");
  }
  const int64_t n = static_cast<int64_t>(count - 1) / 2;
  const Shape& input = scatter.operand(0)->shape();
  const Shape& indices = scatter.operand(n)->shape();
  const Shape& update = scatter.operand(n + 1)->shape();
  const std::vector<DType> result_types = ResultTypes(scatter.shape());
  if (static_cast<int64_t>(result_types.size()) != n) return Malformed(scatter, "wrong result count");
  for (int64_t k = 0; k < n; ++k) {
    if (scatter.operand(k)->shape().dims != input.dims ||
        scatter.operand(n + 1 + k)->shape().dims != update.dims ||
        result_types[k] != scatter.operand(k)->shape().dtype) {
      return Malformed(scatter, "inputs or updates of different shapes");
    }
  }
  if (!IsInteger(indices.dtype)) return Unsupported(scatter, "non-integer scatter indices");
  const Computation& region = *scatter.called_computations()[0];
  if (static_cast<int64_t>(region.results().size()) != n) {
    return Malformed(scatter, "the combiner returns the wrong count");
  }
  const ScatterDimensionNumbers& dn = scatter.attrs<ScatterAttrs>().scatter_dimension_numbers;
  const std::vector<int64_t>& idims = input.dims;
  const int64_t rank = input.rank();
  const IndexMap map{dn.inserted_window_dims, dn.input_batching_dims,
                     dn.scatter_indices_batching_dims, dn.scatter_dims_to_operand_dims,
                     dn.index_vector_dim, indices.dims, indices.dtype, absl::StrCat("p", n),
                     dn.update_window_dims};
  absl::StatusOr<std::string> mapping = map.Map(scatter, update.rank(), rank);
  if (!mapping.ok()) return mapping.status();
  absl::StatusOr<std::string> copy_signature =
      Signature(name_prefix + "_copy", OperandTypes(scatter), result_types);
  if (!copy_signature.ok()) return copy_signature.status();
  absl::StatusOr<std::string> update_signature =
      Signature(name_prefix + "_update", OperandTypes(scatter), result_types);
  if (!update_signature.ok()) return update_signature.status();

  // Kernel 1: results = inputs (the reference's `results` copies).
  std::string copy = absl::StrCat("\n", *copy_signature, GridStrideLoop("i", "n"));
  for (int64_t k = 0; k < n; ++k) absl::StrAppend(&copy, "    r", k, "[i] = p", k, "[i];\n");
  absl::StrAppend(&copy, "  }\n}\n");

  // Kernel 2, per update element u (row-major over the updates, so update
  // k's value is p<N+1+k>[u]): the reference's ForEachIndex(udims) body.
  std::string element = SplitIndex(update.dims, "u", "o");
  absl::StrAppend(&element, *mapping);
  // ri[d] = start[d] + window[d], skipping the element when a start is far
  // outside (no overflow) or ri is out of bounds: the reference's early returns.
  std::vector<std::string> ri;
  for (int64_t d = 0; d < rank; ++d) {
    absl::StrAppend(&element, "    if (s", d, " < -", kFar, "LL || s", d, " > ", kFar,
                    "LL) continue;\n    const int64_t ri", d, " = s", d, " + w", d, ";\n    if (ri",
                    d, " < 0 || ri", d, " >= ", idims[d], "LL) continue;\n");
    ri.push_back(absl::StrCat("ri", d));
  }
  absl::StrAppend(&element, "    const int64_t at = ", Offset(idims, ri), ";\n");

  const ScatterStrategy strategy = ChooseScatterStrategy(scatter);
  const std::string r0 = "r0[at]", u0 = absl::StrCat("p", n + 1, "[u]");
  std::string apply;
  switch (strategy) {
    case ScatterStrategy::kAtomicAdd: {
      // Concurrent adds land in any order: float sums may round differently
      // from the reference's in-order sum (integers wrap alike).
      const DType t = input.dtype;
      if (t == DType::kS64 || t == DType::kU64) {  // two's complement: one unsigned add
        apply = absl::StrCat("    atomicAdd((unsigned long long*)&", r0,
                             ", (unsigned long long)", u0, ");\n");
      } else {  // int, unsigned, float, double, __half (sm_70+), __nv_bfloat16 (sm_80+)
        apply = absl::StrCat("    atomicAdd(&", r0, ", ", u0, ");\n");
      }
      break;
    }
    case ScatterStrategy::kAtomicMinMax: {
      const bool max = region.results()[0]->opcode() == Opcode::kMaximum;
      apply = absl::StrCat("    ", max ? "atomicMax" : "atomicMin", "(&", r0, ", ", u0, ");\n");
      break;
    }
    case ScatterStrategy::kStore:
      // unique_indices: no two updates share a result element, so no race.
      for (int64_t k = 0; k < n; ++k) {
        absl::StrAppend(&apply, "    r", k, "[at] = p", n + 1 + k, "[u];\n");
      }
      break;
    case ScatterStrategy::kSequential: {
      // The combiner over (current values..., update values...), every
      // result computed before any is stored (a result may read another).
      std::vector<std::string> params;
      for (int64_t k = 0; k < n; ++k) params.push_back(absl::StrCat("r", k, "[at]"));
      for (int64_t k = 0; k < n; ++k) params.push_back(absl::StrCat("p", n + 1 + k, "[u]"));
      absl::StatusOr<RegionCode> code = EmitRegion(region, params, {}, "    ");
      if (!code.ok()) return code.status();
      apply = code->statements;
      for (int64_t k = 0; k < n; ++k) {
        absl::StatusOr<std::string> type = CudaTypeName(result_types[k]);
        if (!type.ok()) return type.status();
        absl::StrAppend(&apply, "    const ", *type, " t", k, " = ",
                        code->values.at(region.results()[k]), ";\n");
      }
      for (int64_t k = 0; k < n; ++k) absl::StrAppend(&apply, "    r", k, "[at] = t", k, ";\n");
      break;
    }
  }

  const int64_t updates = update.num_elements();
  std::string kernel = absl::StrCat("\n", *update_signature);
  int64_t threads = updates;
  if (strategy == ScatterStrategy::kSequential) {
    // One thread applies the updates in the reference's order, so the last
    // update of an element wins and a general combiner sees every earlier
    // result: correct but slow (no parallelism), and never a race.
    threads = updates == 0 ? 0 : 1;
    absl::StrAppend(&kernel, "  if (blockIdx.x != 0 || threadIdx.x != 0) return;\n",
                    "  for (int64_t u = 0; u < ", updates, "LL; ++u) {\n");
  } else {
    absl::StrAppend(&kernel, GridStrideLoop("u", "n"));
  }
  absl::StrAppend(&kernel, element, apply, "  }\n}\n");
  absl::StrAppend(source, copy, kernel);
  return std::vector<KernelLaunch>{{name_prefix + "_copy", input.num_elements(), kBlock},
                                   {name_prefix + "_update", threads, kBlock}};
}

}  // namespace xjit::cuda
