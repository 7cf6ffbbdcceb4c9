#include "xjit/backends/cuda/kernel_source.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "xjit/backends/common/reduction_geometry.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/indexing_source.h"
#include "xjit/backends/cuda/scalar_source.h"
#include "xjit/backends/cuda/sort_source.h"
#include "xjit/backends/cuda/window_source.h"
#include "xjit/ir/shape.h"

namespace xjit::cuda {
namespace {

// Reduces of at least this many elements per result use a block each.
constexpr int64_t kBlockReduceMin = 512;

// The value `index` (int64_t) as element type `dtype` (iota).
absl::StatusOr<std::string> FromIndex(DType dtype, absl::string_view index) {
  switch (dtype) {
    case DType::kF16:
      return absl::StrCat("__ll2half_rn(", index, ")");
    case DType::kBF16:
      return absl::StrCat("__ll2bfloat16_rn(", index, ")");
    case DType::kC64:
      return absl::StrCat("xjit_c64{(float)(", index, "), 0.0f}");
    case DType::kC128:
      return absl::StrCat("xjit_c128{(double)(", index, "), 0.0}");
    case DType::kPred:
      return absl::StrCat("((", index, ") != 0)");
    default: {
      absl::StatusOr<std::string> type = CudaTypeName(dtype);
      if (!type.ok()) return type.status();
      return absl::StrCat("(", *type, ")(", index, ")");
    }
  }
}

}  // namespace

KernelSource::KernelSource() : source_(ScalarPrelude()) {}

absl::StatusOr<KernelLaunch> KernelSource::AddElementwise(const Instruction& instr) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  const bool fusion = instr.opcode() == Opcode::kFusion;
  const Shape& first = instr.shape().is_tuple ? instr.shape().tuple_shapes[0] : instr.shape();
  const int64_t n = first.num_elements();
  // Operand k as the kernel reads it at element i: a one-element operand
  // is a splat.
  std::vector<std::string> reads;
  for (size_t k = 0; k < instr.operands().size(); ++k) {
    bool splat = instr.operand(k)->shape().num_elements() == 1 && n != 1;
    reads.push_back(absl::StrCat("p", k, splat ? "[0]" : "[i]"));
  }
  KernelLaunch launch{NewName(), n, kBlock};
  absl::StatusOr<std::string> signature =
      Signature(launch.name, OperandTypes(instr), ResultTypes(instr.shape()));
  if (!signature.ok()) return signature.status();
  std::string body;
  if (fusion) {
    const Computation& region = *instr.called_computations()[0];
    std::vector<std::string> pointers;
    for (size_t k = 0; k < instr.operands().size(); ++k) pointers.push_back(absl::StrCat("p", k));
    absl::StatusOr<RegionCode> code = EmitRegion(region, reads, pointers, "    ");
    if (!code.ok()) return code.status();
    body = code->statements;
    for (size_t r = 0; r < region.results().size(); ++r) {
      absl::StrAppend(&body, "    r", r, "[i] = ", code->values.at(region.results()[r]), ";\n");
    }
  } else {
    if (instr.shape().is_tuple) return Unsupported(instr, "a tuple result");
    absl::StatusOr<std::string> expression = ElementwiseExpression(instr, reads);
    if (!expression.ok()) return expression.status();
    body = absl::StrCat("    r0[i] = ", *expression, ";\n");
  }
  absl::StrAppend(&source_, "\n", *signature, GridStrideLoop("i", "n"), body, "  }\n}\n");
  return launch;
}

absl::StatusOr<KernelLaunch> KernelSource::AddDataMovement(const Instruction& instr) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  if (instr.shape().is_tuple) return Unsupported(instr, "a tuple result");
  const std::vector<int64_t>& out_dims = instr.shape().dims;
  const size_t rank = out_dims.size();
  const std::vector<std::string> o = IndexNames("o", rank);
  const std::vector<int64_t>& in_dims = instr.operand(0)->shape().dims;
  std::string body = SplitIndex(out_dims, "i", "o");
  switch (instr.opcode()) {
    case Opcode::kBroadcastInDim: {
      const auto& map = instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
      std::vector<std::string> index;
      for (size_t j = 0; j < in_dims.size(); ++j) index.push_back(in_dims[j] == 1 ? "0" : o[map[j]]);
      absl::StrAppend(&body, "    r0[i] = p0[", Offset(in_dims, index), "];\n");
      break;
    }
    case Opcode::kTranspose: {
      const auto& perm = instr.attrs<TransposeAttrs>().permutation;
      std::vector<std::string> index(in_dims.size());
      for (size_t d = 0; d < rank; ++d) index[perm[d]] = o[d];
      absl::StrAppend(&body, "    r0[i] = p0[", Offset(in_dims, index), "];\n");
      break;
    }
    case Opcode::kSlice: {
      const SliceAttrs& a = instr.attrs<SliceAttrs>();
      std::vector<std::string> index;
      for (size_t d = 0; d < rank; ++d) {
        int64_t stride = a.strides.empty() ? 1 : a.strides[d];
        index.push_back(absl::StrCat(a.start_indices[d], "LL + ", o[d], " * ", stride, "LL"));
      }
      absl::StrAppend(&body, "    r0[i] = p0[", Offset(in_dims, index), "];\n");
      break;
    }
    case Opcode::kReverse: {
      std::vector<std::string> index = o;
      for (int64_t d : instr.attrs<ReverseAttrs>().dimensions) {
        index[d] = absl::StrCat(in_dims[d] - 1, "LL - ", o[d]);
      }
      absl::StrAppend(&body, "    r0[i] = p0[", Offset(in_dims, index), "];\n");
      break;
    }
    case Opcode::kPad: {
      const PadAttrs& a = instr.attrs<PadAttrs>();
      // t = o - low must be a multiple of (interior + 1) and land in range.
      std::vector<std::string> index;
      std::string inside = "true";
      for (size_t d = 0; d < rank; ++d) {
        const int64_t step = a.interior_padding[d] + 1;
        absl::StrAppend(&body, "    const int64_t t", d, " = ", o[d], " - (", a.edge_padding_low[d],
                        "LL);\n");
        absl::StrAppend(&inside, " && t", d, " >= 0 && t", d, " % ", step, "LL == 0 && t", d, " / ",
                        step, "LL < ", in_dims[d], "LL");
        index.push_back(absl::StrCat("t", d, " / ", step, "LL"));
      }
      absl::StrAppend(&body, "    r0[i] = (", inside, ") ? p0[", Offset(in_dims, index),
                      "] : p1[0];\n");
      break;
    }
    case Opcode::kConcatenate: {
      const int64_t axis = instr.attrs<ConcatenateAttrs>().dimension;
      absl::StrAppend(&body, "    int64_t c = ", o[axis], ";\n");
      for (size_t k = 0; k < instr.operands().size(); ++k) {
        const std::vector<int64_t>& dims = instr.operand(k)->shape().dims;
        std::vector<std::string> index = o;
        index[axis] = "c";
        absl::StrAppend(&body, "    if (c < ", dims[axis], "LL) { r0[i] = p", k, "[",
                        Offset(dims, index), "]; continue; }\n    c -= ", dims[axis], "LL;\n");
      }
      break;
    }
    default:
      return Unsupported(instr, "this data movement op");
  }
  return AddPerElementKernel(instr, body);
}

absl::StatusOr<KernelLaunch> KernelSource::AddPerElementKernel(const Instruction& instr,
                                                              absl::string_view body) {
  KernelLaunch launch{NewName(), instr.shape().num_elements(), kBlock};
  absl::StatusOr<std::string> signature =
      Signature(launch.name, OperandTypes(instr), ResultTypes(instr.shape()));
  if (!signature.ok()) return signature.status();
  absl::StrAppend(&source_, "\n", *signature, GridStrideLoop("i", "n"), body, "  }\n}\n");
  return launch;
}

absl::StatusOr<KernelLaunch> KernelSource::AddIota(const Instruction& instr) {
  const Shape& shape = instr.shape();
  const int64_t dim = instr.attrs<IotaAttrs>().iota_dimension;
  if (dim < 0 || dim >= shape.rank()) return Unsupported(instr, "an iota_dimension out of range");
  const int64_t stride = RowMajorStrides(shape.dims)[dim];
  absl::StatusOr<std::string> value =
      FromIndex(shape.dtype, absl::StrCat("(i / ", stride, "LL) % ", shape.dims[dim], "LL"));
  if (!value.ok()) return value.status();
  KernelLaunch launch{NewName(), shape.num_elements(), kBlock};
  absl::StatusOr<std::string> signature = Signature(launch.name, {}, {shape.dtype});
  if (!signature.ok()) return signature.status();
  absl::StrAppend(&source_, "\n", *signature, GridStrideLoop("i", "n"), "    r0[i] = ", *value,
                  ";\n  }\n}\n");
  return launch;
}

absl::StatusOr<KernelLaunch> KernelSource::AddDynamicSlice(const Instruction& instr) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  const bool update = instr.opcode() == Opcode::kDynamicUpdateSlice;
  const std::vector<int64_t>& dims = instr.operand(0)->shape().dims;
  const size_t rank = dims.size();
  const size_t first_start = update ? 2 : 1;
  if (instr.operands().size() != first_start + rank) {
    return Unsupported(instr, "start indices given as one array");
  }
  const std::vector<int64_t> window =
      update ? instr.operand(1)->shape().dims : instr.attrs<DynamicSliceAttrs>().slice_sizes;
  // Each start clamped into [0, dim - window]; unsigned starts compare
  // unsigned, so a huge one clamps high rather than wrapping negative.
  std::string body;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t high = dims[d] - window[d];
    const std::string start = absl::StrCat("p", first_start + d, "[0]");
    if (IsUnsignedInt(instr.operand(first_start + d)->shape().dtype)) {
      absl::StrAppend(&body, "    const int64_t s", d, " = (unsigned long long)", start, " > ", high,
                      "ULL ? ", high, "LL : (int64_t)", start, ";\n");
    } else {
      absl::StrAppend(&body, "    const int64_t s", d, " = (int64_t)", start, " < 0 ? 0 : ((int64_t)",
                      start, " > ", high, "LL ? ", high, "LL : (int64_t)", start, ");\n");
    }
  }
  const std::vector<std::string> o = IndexNames("o", rank);
  if (!update) {
    std::vector<std::string> index;
    for (size_t d = 0; d < rank; ++d) index.push_back(absl::StrCat("s", d, " + ", o[d]));
    absl::StrAppend(&body, SplitIndex(window, "i", "o"), "    r0[i] = p0[", Offset(dims, index), "];\n");
  } else {
    // Every result element: the update's where the window covers it, else
    // the operand's (the same element, so the result may be the operand).
    std::vector<std::string> index;
    std::string inside = "true";
    for (size_t d = 0; d < rank; ++d) {
      absl::StrAppend(&inside, " && ", o[d], " >= s", d, " && ", o[d], " - s", d, " < ", window[d], "LL");
      index.push_back(absl::StrCat(o[d], " - s", d));
    }
    absl::StrAppend(&body, SplitIndex(dims, "i", "o"), "    r0[i] = (", inside, ") ? p1[",
                    Offset(window, index), "] : p0[i];\n");
  }
  return AddPerElementKernel(instr, body);
}

absl::StatusOr<KernelLaunch> KernelSource::AddGather(const Instruction& instr) {
  return AppendGather(instr, NewName(), &source_);
}

absl::StatusOr<std::vector<KernelLaunch>> KernelSource::AddScatter(const Instruction& instr) {
  return AppendScatter(instr, NewName(), &source_);
}

absl::StatusOr<std::vector<KernelLaunch>> KernelSource::AddSort(const Instruction& instr) {
  return AppendSort(instr, NewName(), &source_);
}

absl::StatusOr<KernelLaunch> KernelSource::AddWindowOp(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kReduceWindow:
      return AppendReduceWindow(instr, NewName(), &source_);
    case Opcode::kSelectAndScatter:
      return AppendSelectAndScatter(instr, NewName(), &source_);
    case Opcode::kConvolution:
      return AppendConvolution(instr, NewName(), &source_);
    default:
      return Unsupported(instr, "this window op");
  }
}

bool ReduceUsesBlocks(const Instruction& reduce) {
  const Shape& input = reduce.operand(0)->shape();
  const int64_t outputs = reduce.shape().is_tuple ? reduce.shape().tuple_shapes[0].num_elements()
                                                  : reduce.shape().num_elements();
  return outputs > 0 && input.num_elements() / outputs >= kBlockReduceMin;
}

absl::StatusOr<KernelLaunch> KernelSource::AddReduce(const Instruction& instr) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  // N inputs then N initial values; N results (a tuple when N > 1: argmax
  // reduces values and indices together).
  const size_t n = instr.operands().size() / 2;
  const Shape& input = instr.operand(0)->shape();
  std::vector<std::string> types;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<std::string> type = CudaTypeName(instr.operand(k)->shape().dtype);
    if (!type.ok()) return type.status();
    types.push_back(*type);
  }
  // The body as a device function folding (b0..) into the accumulators (a0..).
  const Computation& body = *instr.called_computations()[0];
  if (body.results().size() != n) return Unsupported(instr, "a reduce body of the wrong arity");
  std::vector<std::string> params, accumulators, elements;
  for (size_t k = 0; k < n; ++k) accumulators.push_back(absl::StrCat("a", k));
  for (size_t k = 0; k < n; ++k) elements.push_back(absl::StrCat("b", k));
  params = accumulators;
  params.insert(params.end(), elements.begin(), elements.end());
  absl::StatusOr<RegionCode> code = EmitRegion(body, params, {}, "  ");
  if (!code.ok()) return code.status();
  const std::string name = NewName();
  std::vector<std::string> decl;
  for (size_t k = 0; k < n; ++k) decl.push_back(absl::StrCat(types[k], "& a", k));
  for (size_t k = 0; k < n; ++k) decl.push_back(absl::StrCat(types[k], " b", k));
  std::string fold = absl::StrCat("\n__device__ __forceinline__ void ", name, "_body(",
                                  absl::StrJoin(decl, ", "), ") {\n", code->statements);
  // Results into temporaries first: a result may read an accumulator.
  for (size_t k = 0; k < n; ++k) {
    absl::StrAppend(&fold, "  const ", types[k], " t", k, " = ", code->values.at(body.results()[k]), ";\n");
  }
  for (size_t k = 0; k < n; ++k) absl::StrAppend(&fold, "  a", k, " = t", k, ";\n");
  absl::StrAppend(&fold, "}\n");
  absl::StrAppend(&source_, fold);
  auto each = [&](absl::string_view pattern) {  // pattern with "$" for k
    std::string out;
    for (size_t k = 0; k < n; ++k) {
      absl::StrAppend(&out, absl::StrReplaceAll(pattern, {{"$", std::to_string(k)},
                                                          {"@", std::to_string(n + k)},
                                                          {"%T", types[k]}}));
    }
    return out;
  };
  auto call = [&](absl::string_view acc, absl::string_view element) {
    std::vector<std::string> args;
    for (size_t k = 0; k < n; ++k) args.push_back(absl::StrReplaceAll(acc, {{"$", std::to_string(k)}}));
    for (size_t k = 0; k < n; ++k) args.push_back(absl::StrReplaceAll(element, {{"$", std::to_string(k)}}));
    return absl::StrCat(name, "_body(", absl::StrJoin(args, ", "), ");\n");
  };

  const common::ReductionGeometry g =
      common::MakeReductionGeometry(input, instr.attrs<ReduceAttrs>().dimensions);
  std::vector<int64_t> kept_sizes, reduced_sizes;
  std::vector<std::string> kept_terms, reduced_terms;
  for (size_t d = 0; d < g.kept.size(); ++d) {
    kept_sizes.push_back(g.kept[d].size);
    kept_terms.push_back(absl::StrCat("o", d, " * ", g.kept[d].stride, "LL"));
  }
  for (size_t d = 0; d < g.reduced.size(); ++d) {
    reduced_sizes.push_back(g.reduced[d].size);
    reduced_terms.push_back(absl::StrCat("e", d, " * ", g.reduced[d].stride, "LL"));
  }
  const std::string base = kept_terms.empty() ? "0" : absl::StrJoin(kept_terms, " + ");
  const std::string step = reduced_terms.empty() ? "0" : absl::StrJoin(reduced_terms, " + ");
  const Shape& first = instr.shape().is_tuple ? instr.shape().tuple_shapes[0] : instr.shape();
  const int64_t outputs = first.num_elements();
  std::vector<DType> inputs_and_inits = OperandTypes(instr);
  absl::StatusOr<std::string> signature =
      Signature(name, inputs_and_inits, ResultTypes(instr.shape()));
  if (!signature.ok()) return signature.status();
  std::string kernel = absl::StrCat("\n", *signature);
  const int64_t reduced = outputs == 0 ? 0 : g.num_reduced;
  const std::string element = absl::StrCat("p$[base + ", step, "]");
  if (!ReduceUsesBlocks(instr)) {
    // One thread per result: the elements in row-major order, folded into
    // the initial values (each applied once).
    absl::StrAppend(&kernel, GridStrideLoop("i", absl::StrCat(outputs, "LL")),
                    SplitIndex(kept_sizes, "i", "o"), "    const int64_t base = ", base, ";\n",
                    each("    %T acc$ = p@[0];\n"), "    for (int64_t j = 0; j < ", reduced,
                    "LL; ++j) {\n", SplitIndex(reduced_sizes, "j", "e"), "      ",
                    call("acc$", element), "    }\n", each("    r$[i] = acc$;\n"), "  }\n}\n");
    absl::StrAppend(&source_, kernel);
    return KernelLaunch{name, outputs, kBlock};
  }
  // One block per result: each thread folds a strided share, the shares are
  // combined in a tree in shared memory (only threads that saw elements
  // count), and the initial values are folded with the total once, last.
  absl::StrAppend(
      &kernel,
      each(absl::StrCat("  __shared__ alignas(16) unsigned char storage$[", kBlock,
                        " * sizeof(%T)];\n  %T* partial$ = reinterpret_cast<%T*>(storage$);\n")),
      "  __shared__ bool valid[", kBlock, "];\n  const int t = threadIdx.x;\n",
      "  for (int64_t i = blockIdx.x; i < ", outputs, "LL; i += gridDim.x) {\n",
      SplitIndex(kept_sizes, "i", "o"), "    const int64_t base = ", base, ";\n",
      "    bool any = false;\n", each("    %T acc$;\n"), "    for (int64_t j = t; j < ", reduced,
      "LL; j += blockDim.x) {\n", SplitIndex(reduced_sizes, "j", "e"),
      "      if (any) {\n        ", call("acc$", element), "      } else {\n",
      each(absl::StrCat("        acc$ = ", element, ";\n")), "        any = true;\n      }\n    }\n",
      "    if (any) {\n", each("      partial$[t] = acc$;\n"), "    }\n    valid[t] = any;\n",
      "    __syncthreads();\n", "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n",
      "      if (t < s && valid[t + s]) {\n        if (valid[t]) {\n",
      each("          %T x$ = partial$[t];\n"), "          ", call("x$", "partial$[t + s]"),
      each("          partial$[t] = x$;\n"), "        } else {\n",
      each("          partial$[t] = partial$[t + s];\n"),
      "        }\n        valid[t] = true;\n      }\n      __syncthreads();\n    }\n",
      "    if (t == 0) {\n", each("      %T total$ = p@[0];\n"), "      if (valid[0]) {\n        ",
      call("total$", "partial$[0]"), "      }\n", each("      r$[i] = total$;\n"), "    }\n",
      "    __syncthreads();\n  }\n}\n");
  absl::StrAppend(&source_, kernel);
  return KernelLaunch{name, outputs * kBlock, kBlock};
}

}  // namespace xjit::cuda
