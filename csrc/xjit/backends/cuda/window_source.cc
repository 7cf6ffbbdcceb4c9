// reduce_window and select_and_scatter kernels, translated from
// reference/window.cc's loops (convolution is convolution_source.cc).
#include "xjit/backends/cuda/window_source.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/scalar_source.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cuda {
namespace {

std::string Ll(int64_t v) { return absl::StrCat("(", v, "LL)"); }

// `fn`(a0.., b0..) folding the elements b into the accumulators a with
// the body (a reduce body of n results); results go through temporaries
// first, since one may read an accumulator another overwrites.
absl::StatusOr<std::string> FoldFunction(const Instruction& instr, const Computation& body,
                                         const std::string& fn,
                                         const std::vector<std::string>& types) {
  const size_t n = types.size();
  if (body.results().size() != n || body.parameters().size() != 2 * n) {
    return Unsupported(instr, "a body of the wrong arity");
  }
  std::vector<std::string> params, decl;
  for (size_t k = 0; k < n; ++k) params.push_back(absl::StrCat("a", k));
  for (size_t k = 0; k < n; ++k) params.push_back(absl::StrCat("b", k));
  for (size_t k = 0; k < n; ++k) decl.push_back(absl::StrCat(types[k], "& a", k));
  for (size_t k = 0; k < n; ++k) decl.push_back(absl::StrCat(types[k], " b", k));
  absl::StatusOr<RegionCode> code = EmitRegion(body, params, {}, "  ");
  if (!code.ok()) return code.status();
  std::string out = absl::StrCat("\n__device__ __forceinline__ void ", fn, "(",
                                 absl::StrJoin(decl, ", "), ") {\n", code->statements);
  for (size_t k = 0; k < n; ++k) {
    absl::StrAppend(&out, "  const ", types[k], " t", k, " = ", code->values.at(body.results()[k]),
                    ";\n");
  }
  for (size_t k = 0; k < n; ++k) absl::StrAppend(&out, "  a", k, " = t", k, ";\n");
  absl::StrAppend(&out, "}\n");
  return out;
}

// `fn`(a, b) returning the one result of a two-parameter region.
absl::StatusOr<std::string> BinaryFunction(const Instruction& instr, const Computation& region,
                                           const std::string& fn, const std::string& type,
                                           const std::string& result_type) {
  if (region.results().size() != 1 || region.parameters().size() != 2) {
    return Unsupported(instr, "a region of the wrong arity");
  }
  absl::StatusOr<RegionCode> code = EmitRegion(region, {"a", "b"}, {}, "  ");
  if (!code.ok()) return code.status();
  return absl::StrCat("\n__device__ __forceinline__ ", result_type, " ", fn, "(", type, " a, ",
                      type, " b) {\n", code->statements, "  return ",
                      code->values.at(region.results()[0]), ";\n}\n");
}

// The padding of a window op as (low, high) pairs, checked (the window
// helpers of window_attrs.h read bad padding as zeros).
absl::Status CheckPadding(const Instruction& instr, const Literal& padding, size_t rank) {
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs =
      PaddingPairs(padding, static_cast<int64_t>(rank));
  if (!pairs.ok()) return Unsupported(instr, pairs.status().message());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<KernelLaunch> AppendReduceWindow(const Instruction& instr, const std::string& name,
                                                std::string* source) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  const size_t n = instr.operands().size() / 2;
  if (n == 0 || instr.operands().size() != 2 * n || instr.called_computations().size() != 1) {
    return Unsupported(instr, "a reduce_window without N inputs, N initial values and a body");
  }
  const ReduceWindowAttrs& attrs = instr.attrs<ReduceWindowAttrs>();
  const std::vector<int64_t>& in_dims = instr.operand(0)->shape().dims;
  const size_t rank = in_dims.size();
  const std::vector<WindowDimension> window = ReduceWindowWindow(attrs);
  if (window.size() != rank) return Unsupported(instr, "a window of another rank than the input");
  if (absl::Status s = CheckPadding(instr, attrs.padding, rank); !s.ok()) return s;
  const std::vector<DType> results = ResultTypes(instr.shape());
  if (results.size() != n) return Unsupported(instr, "a result count other than the inputs'");
  std::vector<int64_t> out_dims(rank);
  for (size_t d = 0; d < rank; ++d) out_dims[d] = window[d].NumWindows(in_dims[d]);
  std::vector<std::string> types;
  for (size_t k = 0; k < n; ++k) {
    const DType t = instr.operand(k)->shape().dtype;
    if (instr.operand(k)->shape().dims != in_dims || instr.operand(n + k)->shape().dtype != t ||
        instr.operand(n + k)->shape().num_elements() != 1 || results[k] != t) {
      return Unsupported(instr, "inputs, initial values and results of differing shapes or types");
    }
    absl::StatusOr<std::string> type = CudaTypeName(t);
    if (!type.ok()) return type.status();
    types.push_back(*type);
  }
  const Shape& first = instr.shape().is_tuple ? instr.shape().tuple_shapes[0] : instr.shape();
  if (first.dims != out_dims) return Unsupported(instr, "a result shape other than the windows'");

  absl::StatusOr<std::string> fold =
      FoldFunction(instr, *instr.called_computations()[0], name + "_body", types);
  if (!fold.ok()) return fold.status();
  absl::StatusOr<std::string> signature = Signature(name, OperandTypes(instr), results);
  if (!signature.ok()) return signature.status();
  const int64_t outputs = first.num_elements();
  std::string kernel = absl::StrCat(*fold, "\n", *signature,
                                    GridStrideLoop("i", absl::StrCat(outputs, "LL")),
                                    SplitIndex(out_dims, "i", "o"));
  for (size_t k = 0; k < n; ++k) {
    absl::StrAppend(&kernel, "    ", types[k], " acc", k, " = p", n + k, "[0];\n");
  }
  // One loop per dimension, outermost first: the reference's row-major
  // window order. Position q of the padded, dilated base is an element when
  // it is not padding and falls on a multiple of the base dilation
  // (WindowDimension::BaseIndex).
  std::string indent = "    ";
  std::vector<std::string> inside, x;
  for (size_t d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    absl::StrAppend(&kernel, indent, "for (int64_t k", d, " = 0; k", d, " < ", Ll(w.size), "; ++k",
                    d, ") {\n");
    indent += "  ";
    absl::StrAppend(&kernel, indent, "const int64_t q", d, " = o", d, " * ", Ll(w.stride), " + k",
                    d, " * ", Ll(w.window_dilation), " - ", Ll(w.padding_low), ";\n");
    const std::string b = Ll(w.base_dilation);
    if (w.base_dilation == 1) {
      absl::StrAppend(&kernel, indent, "const bool in", d, " = q", d, " >= 0 && q", d, " < ",
                      Ll(in_dims[d]), ";\n", indent, "const int64_t x", d, " = q", d, ";\n");
    } else {
      absl::StrAppend(&kernel, indent, "const bool in", d, " = q", d, " >= 0 && q", d, " % ", b,
                      " == 0 && q", d, " / ", b, " < ", Ll(in_dims[d]), ";\n", indent,
                      "const int64_t x", d, " = q", d, " / ", b, ";\n");
    }
    inside.push_back(absl::StrCat("in", d));
    x.push_back(absl::StrCat("x", d));
  }
  absl::StrAppend(&kernel, indent, "const bool inside = ",
                  inside.empty() ? "true" : absl::StrJoin(inside, " && "), ";\n", indent,
                  "const int64_t at = inside ? ", Offset(in_dims, x), " : 0;\n");
  std::vector<std::string> args;
  for (size_t k = 0; k < n; ++k) args.push_back(absl::StrCat("acc", k));
  for (size_t k = 0; k < n; ++k) {
    args.push_back(absl::StrCat("inside ? p", k, "[at] : p", n + k, "[0]"));
  }
  absl::StrAppend(&kernel, indent, name, "_body(", absl::StrJoin(args, ", "), ");\n");
  for (size_t d = rank; d > 0; --d) {
    indent.resize(indent.size() - 2);
    absl::StrAppend(&kernel, indent, "}\n");
  }
  for (size_t k = 0; k < n; ++k) absl::StrAppend(&kernel, "    r", k, "[i] = acc", k, ";\n");
  absl::StrAppend(&kernel, "  }\n}\n");
  absl::StrAppend(source, kernel);
  return KernelLaunch{name, outputs, kBlock};
}

// The reference scatters source elements in row-major source order, each
// onto the position its window selects, folding into what is there. So the
// result element at x receives, in that order, exactly the source elements
// whose window selects x. This kernel walks the windows covering x in
// row-major source order (nested loops, outermost dimension first, over
// the ranges of windows that contain x), recomputes each one's selection
// as the reference does, and folds that window's source value when the
// selection is x: the same values, folded in the same order, with no
// atomics and no dependence on thread scheduling.
absl::StatusOr<KernelLaunch> AppendSelectAndScatter(const Instruction& instr,
                                                    const std::string& name, std::string* source) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  if (instr.operands().size() != 3 || instr.called_computations().size() != 2) {
    return Unsupported(instr, "a select_and_scatter without operand, source, init and two regions");
  }
  const SelectAndScatterAttrs& attrs = instr.attrs<SelectAndScatterAttrs>();
  const Shape& operand = instr.operand(0)->shape();
  const Shape& src = instr.operand(1)->shape();
  const std::vector<int64_t>& dims = operand.dims;
  const size_t rank = dims.size();
  const std::vector<WindowDimension> window = SelectAndScatterWindow(attrs);
  if (window.size() != rank || src.rank() != static_cast<int64_t>(rank)) {
    return Unsupported(instr, "a window of another rank than the operand");
  }
  if (absl::Status s = CheckPadding(instr, attrs.padding, rank); !s.ok()) return s;
  for (size_t d = 0; d < rank; ++d) {
    if (window[d].stride < 1) return Unsupported(instr, "a window stride below 1");
  }
  const DType t = operand.dtype;
  if (instr.shape().is_tuple || instr.shape().dims != dims || instr.shape().dtype != src.dtype ||
      instr.operand(2)->shape().dtype != src.dtype ||
      instr.operand(2)->shape().num_elements() != 1) {
    return Unsupported(instr, "a result of another shape than the operand");
  }
  absl::StatusOr<std::string> type = CudaTypeName(t);
  if (!type.ok()) return type.status();
  absl::StatusOr<std::string> value_type = CudaTypeName(src.dtype);
  if (!value_type.ok()) return value_type.status();
  absl::StatusOr<std::string> select =
      BinaryFunction(instr, *instr.called_computations()[0], name + "_select", *type, "bool");
  if (!select.ok()) return select.status();
  absl::StatusOr<std::string> scatter = BinaryFunction(
      instr, *instr.called_computations()[1], name + "_scatter", *value_type, *value_type);
  if (!scatter.ok()) return scatter.status();
  absl::StatusOr<std::string> signature =
      Signature(name, OperandTypes(instr), ResultTypes(instr.shape()));
  if (!signature.ok()) return signature.status();

  const int64_t outputs = operand.num_elements();
  std::string kernel = absl::StrCat(
      *select, *scatter,
      // Floor division by a positive divisor (C++ rounds toward zero).
      "\n__device__ __forceinline__ int64_t ", name,
      "_floor_div(int64_t a, int64_t b) {\n  const int64_t q = a / b;\n"
      "  return (a % b != 0 && a < 0) ? q - 1 : q;\n}\n\n",
      *signature, GridStrideLoop("i", absl::StrCat(outputs, "LL")), SplitIndex(dims, "i", "o"),
      "    ", *value_type, " acc = p2[0];\n");
  // Window s covers o along a dimension when o = s * stride + k - low for
  // some 0 <= k < size: s in [floor((o + low - size) / stride) + 1,
  // floor((o + low) / stride)], within the source's extent.
  std::string indent = "    ";
  std::vector<std::string> s_names;
  for (size_t d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    const std::string t_d = absl::StrCat("o", d, " + ", Ll(w.padding_low));
    absl::StrAppend(&kernel, indent, "const int64_t lo", d, " = ", name, "_floor_div(", t_d, " - ",
                    Ll(w.size), ", ", Ll(w.stride), ") + 1;\n", indent, "const int64_t hi", d,
                    " = ", name, "_floor_div(", t_d, ", ", Ll(w.stride), ");\n", indent,
                    "for (int64_t s", d, " = lo", d, " < 0 ? 0 : lo", d, "; s", d, " <= hi", d,
                    " && s", d, " < ", Ll(src.dims[d]), "; ++s", d, ") {\n");
    indent += "  ";
    s_names.push_back(absl::StrCat("s", d));
  }
  // The selection of window s, as the reference makes it: the first
  // element inside the operand (row-major window order) is chosen, and
  // each later one replaces the choice unless select(chosen, candidate).
  absl::StrAppend(&kernel, indent, "int64_t chosen = -1;\n", indent, *type, " best = p0[i];\n");
  const std::string outer = indent;
  std::vector<std::string> x;
  for (size_t d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    absl::StrAppend(&kernel, indent, "for (int64_t k", d, " = 0; k", d, " < ", Ll(w.size), "; ++k",
                    d, ") {\n");
    indent += "  ";
    // Skipping the rest of the window below a position outside skips what
    // the reference skips, in the same order.
    absl::StrAppend(&kernel, indent, "const int64_t x", d, " = s", d, " * ", Ll(w.stride), " + k",
                    d, " - ", Ll(w.padding_low), ";\n", indent, "if (x", d, " < 0 || x", d,
                    " >= ", Ll(dims[d]), ") continue;\n");
    x.push_back(absl::StrCat("x", d));
  }
  absl::StrAppend(&kernel, indent, "const int64_t at = ", Offset(dims, x), ";\n", indent,
                  "const ", *type, " candidate = p0[at];\n", indent, "if (chosen < 0 || !", name,
                  "_select(best, candidate)) {\n", indent, "  chosen = at;\n", indent,
                  "  best = candidate;\n", indent, "}\n");
  for (size_t d = rank; d > 0; --d) {
    indent.resize(indent.size() - 2);
    absl::StrAppend(&kernel, indent, "}\n");
  }
  absl::StrAppend(&kernel, outer, "if (chosen == i) acc = ", name, "_scatter(acc, p1[",
                  Offset(src.dims, s_names), "]);\n");
  for (size_t d = rank; d > 0; --d) {
    indent.resize(indent.size() - 2);
    absl::StrAppend(&kernel, indent, "}\n");
  }
  absl::StrAppend(&kernel, "    r0[i] = acc;\n  }\n}\n");
  absl::StrAppend(source, kernel);
  return KernelLaunch{name, outputs, kBlock};
}

}  // namespace xjit::cuda
