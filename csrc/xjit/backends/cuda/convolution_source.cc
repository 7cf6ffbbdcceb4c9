// The direct convolution kernel, translated from reference/convolution.cc
// (the cpu's DirectConvolution is the same loop with precomputed strides):
// one thread per output element, the kernel window in row-major order,
// then the input features of the output's feature group.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/scalar_source.h"
#include "xjit/backends/cuda/window_source.h"
#include "xjit/ir/shape.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cuda {
namespace {

std::string Ll(int64_t v) { return absl::StrCat("(", v, "LL)"); }

// How one element type accumulates a product: the accumulator's type and
// zero, an operand read as that type, acc += a * b, and the accumulator
// stored. As the reference's MultiplyAdd: f16/bf16 in float, rounded once
// at the end; floats one rounding per operation (intrinsics NVRTC never
// fuses into an fma, as the host's separate multiply and add); integers
// wrap; pred is or-of-ands; complex products are libgcc's (xjit_cmul).
struct Accumulation {
  std::string type, zero;
  std::string (*load)(const std::string&);
  std::string (*multiply_add)(const std::string&, const std::string&, const std::string&);
  std::string (*store)(const std::string&);
};

std::string Same(const std::string& e) { return e; }
std::string H2F(const std::string& e) { return absl::StrCat("xjit_h2f(", e, ")"); }
std::string F2H(const std::string& e) { return absl::StrCat("xjit_f2h(", e, ")"); }
std::string Bf2F(const std::string& e) { return absl::StrCat("xjit_bf2f(", e, ")"); }
std::string F2Bf(const std::string& e) { return absl::StrCat("xjit_f2bf(", e, ")"); }

std::string FloatMac(const std::string& acc, const std::string& a, const std::string& b) {
  return absl::StrCat("__fadd_rn(", acc, ", __fmul_rn(", a, ", ", b, "))");
}
std::string DoubleMac(const std::string& acc, const std::string& a, const std::string& b) {
  return absl::StrCat("__dadd_rn(", acc, ", __dmul_rn(", a, ", ", b, "))");
}
std::string PredMac(const std::string& acc, const std::string& a, const std::string& b) {
  return absl::StrCat("(", acc, " || (", a, " && ", b, "))");
}
std::string ComplexMac(const std::string& acc, const std::string& a, const std::string& b) {
  return absl::StrCat("xjit_cadd(", acc, ", xjit_cmul(", a, ", ", b, "))");
}
// The integer helpers are templates, instantiated for the accumulator's
// type through the typedef acc_t the kernel declares.
std::string IntMac(const std::string& acc, const std::string& a, const std::string& b) {
  return absl::StrCat("xjit_iadd<acc_t>(", acc, ", xjit_imul<acc_t>(", a, ", ", b, "))");
}

absl::StatusOr<Accumulation> AccumulationOf(DType t) {
  switch (t) {
    case DType::kF16: return Accumulation{"float", "0.0f", H2F, FloatMac, F2H};
    case DType::kBF16: return Accumulation{"float", "0.0f", Bf2F, FloatMac, F2Bf};
    case DType::kF32: return Accumulation{"float", "0.0f", Same, FloatMac, Same};
    case DType::kF64: return Accumulation{"double", "0.0", Same, DoubleMac, Same};
    case DType::kPred: return Accumulation{"bool", "false", Same, PredMac, Same};
    case DType::kC64:
      return Accumulation{"xjit_c64", "xjit_c64{0.0f, 0.0f}", Same, ComplexMac, Same};
    case DType::kC128:
      return Accumulation{"xjit_c128", "xjit_c128{0.0, 0.0}", Same, ComplexMac, Same};
    default: break;
  }
  if (!IsInteger(t)) return absl::UnimplementedError("no accumulation for this element type");
  absl::StatusOr<std::string> type = CudaTypeName(t);
  if (!type.ok()) return type.status();
  return Accumulation{*type, absl::StrCat("(", *type, ")0"), Same, IntMac, Same};
}

}  // namespace

absl::StatusOr<KernelLaunch> AppendConvolution(const Instruction& instr, const std::string& name,
                                               std::string* source) {
  if (absl::Status s = CheckArrays(instr); !s.ok()) return s;
  if (instr.operands().size() != 2 || instr.shape().is_tuple) {
    return Unsupported(instr, "a convolution other than lhs, rhs -> one result");
  }
  const Shape& ls = instr.operand(0)->shape();
  const Shape& rs = instr.operand(1)->shape();
  const Shape& os = instr.shape();
  if (ls.dtype != rs.dtype || os.dtype != ls.dtype) {
    return Unsupported(instr, "operands and result of differing element types");
  }
  const ConvolutionAttrs& attrs = instr.attrs<ConvolutionAttrs>();
  const ConvDimensionNumbers& d = attrs.dimension_numbers;
  const size_t ns = d.input_spatial_dimensions.size();
  if (d.kernel_spatial_dimensions.size() != ns || d.output_spatial_dimensions.size() != ns ||
      ls.rank() != static_cast<int64_t>(ns) + 2 || rs.rank() != ls.rank() ||
      os.rank() != ls.rank()) {
    return Unsupported(instr, "dimension numbers that do not match the ranks");
  }
  if (!PaddingPairs(attrs.padding, static_cast<int64_t>(ns)).ok()) {
    return Unsupported(instr, "a padding that is not an [n, 2] integer tensor");
  }
  const int64_t fgc = attrs.feature_group_count, bgc = attrs.batch_group_count;
  if (fgc < 1 || bgc < 1) return Unsupported(instr, "a group count below 1");
  absl::StatusOr<Accumulation> acc = AccumulationOf(ls.dtype);
  if (!acc.ok()) return Unsupported(instr, "this element type");

  const std::vector<WindowDimension> window = ConvolutionWindow(attrs, rs);
  const std::vector<int64_t> lstr = RowMajorStrides(ls.dims);
  const std::vector<int64_t> rstr = RowMajorStrides(rs.dims);
  const int64_t batch = ls.dims[d.input_batch_dimension];
  const int64_t kernel_in = rs.dims[d.kernel_input_feature_dimension];
  const int64_t kernel_out = rs.dims[d.kernel_output_feature_dimension];
  const int64_t out_per_fgroup = std::max<int64_t>(kernel_out / fgc, 1);
  const int64_t out_per_bgroup = std::max<int64_t>(kernel_out / bgc, 1);
  const int64_t batch_per_group = batch / bgc;

  absl::StatusOr<std::string> signature = Signature(name, OperandTypes(instr), {os.dtype});
  if (!signature.ok()) return signature.status();
  const int64_t outputs = os.num_elements();
  // The lhs element of output batch b, feature f: batch group f's share of
  // the batch, input features from feature group f's block (the
  // reference's li); the rhs's output feature is f.
  std::string kernel = absl::StrCat(
      "\n", *signature, "  typedef ", acc->type, " acc_t;\n",
      GridStrideLoop("i", absl::StrCat(outputs, "LL")), SplitIndex(os.dims, "i", "o"),
      "    const int64_t of = o", d.output_feature_dimension, ";\n",
      "    const int64_t l_base = (of / ", Ll(out_per_bgroup), " * ", Ll(batch_per_group), " + o",
      d.output_batch_dimension, ") * ", Ll(lstr[d.input_batch_dimension]), " + of / ",
      Ll(out_per_fgroup), " * ", Ll(kernel_in * lstr[d.input_feature_dimension]), ";\n",
      "    const int64_t r_base = of * ", Ll(rstr[d.kernel_output_feature_dimension]), ";\n",
      "    acc_t acc = ", acc->zero, ";\n");
  // The kernel window in row-major order (spatial dimension 0 outermost).
  // A position outside the lhs skips the rest of the window under it, as
  // the reference skips every window index that has one such position.
  std::string indent = "    ", l = "l_base", r = "r_base";
  for (size_t i = 0; i < ns; ++i) {
    const WindowDimension& w = window[i];
    absl::StrAppend(&kernel, indent, "for (int64_t k", i, " = 0; k", i, " < ", Ll(w.size), "; ++k",
                    i, ") {\n");
    indent += "  ";
    const std::string pos =
        w.reversal ? absl::StrCat("(", Ll(w.size - 1), " - k", i, ")") : absl::StrCat("k", i);
    const std::string b = Ll(w.base_dilation);
    const int64_t extent = ls.dims[d.input_spatial_dimensions[i]];
    absl::StrAppend(&kernel, indent, "const int64_t q", i, " = o", d.output_spatial_dimensions[i],
                    " * ", Ll(w.stride), " + ", pos, " * ", Ll(w.window_dilation), " - ",
                    Ll(w.padding_low), ";\n");
    if (w.base_dilation == 1) {
      absl::StrAppend(&kernel, indent, "if (q", i, " < 0 || q", i, " >= ", Ll(extent),
                      ") continue;\n");
    } else {
      absl::StrAppend(&kernel, indent, "if (q", i, " < 0 || q", i, " % ", b, " != 0 || q", i,
                      " / ", b, " >= ", Ll(extent), ") continue;\n");
    }
    const std::string x =
        w.base_dilation == 1 ? absl::StrCat("q", i) : absl::StrCat("q", i, " / ", b);
    absl::StrAppend(&kernel, indent, "const int64_t l", i, " = ", l, " + ", x, " * ",
                    Ll(lstr[d.input_spatial_dimensions[i]]), ";\n", indent, "const int64_t r", i,
                    " = ", r, " + k", i, " * ", Ll(rstr[d.kernel_spatial_dimensions[i]]), ";\n");
    l = absl::StrCat("l", i);
    r = absl::StrCat("r", i);
  }
  const std::string a =
      acc->load(absl::StrCat("p0[", l, " + c * ", Ll(lstr[d.input_feature_dimension]), "]"));
  const std::string w = acc->load(
      absl::StrCat("p1[", r, " + c * ", Ll(rstr[d.kernel_input_feature_dimension]), "]"));
  absl::StrAppend(&kernel, indent, "for (int64_t c = 0; c < ", Ll(kernel_in), "; ++c) {\n", indent,
                  "  acc = ", acc->multiply_add("acc", a, w), ";\n", indent, "}\n");
  for (size_t i = ns; i > 0; --i) {
    indent.resize(indent.size() - 2);
    absl::StrAppend(&kernel, indent, "}\n");
  }
  absl::StrAppend(&kernel, "    r0[i] = ", acc->store("acc"), ";\n  }\n}\n");
  absl::StrAppend(source, kernel);
  return KernelLaunch{name, outputs, kBlock};
}

}  // namespace xjit::cuda
