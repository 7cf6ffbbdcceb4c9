// The windowed ops' kernel generators (window_source.h) on the modules
// xjit's front end emits (pooling, its gradient, convolutions and their
// gradients): each kernel must compile with NVRTC (no GPU needed), and what
// the generators cannot do must be reported as Unimplemented.
#include "xjit/backends/cuda/window_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#include "xjit/backends/cuda/scalar_source.h"

namespace xjit::cuda {
namespace {

using ::xjit::testing::Parse;

// Every instruction of `op` in the module, in computation order.
std::vector<const Instruction*> FindAll(const Module& m, Opcode op) {
  std::vector<const Instruction*> found;
  for (const auto& c : m.computations()) {
    for (const auto& instr : c->instructions()) {
      if (instr->opcode() == op) found.push_back(instr.get());
    }
  }
  return found;
}

using Generator = absl::StatusOr<KernelLaunch> (*)(const Instruction&, const std::string&,
                                                   std::string*);

// Generates a kernel for every `op` of the module (at least one) into one
// source, checks each launch covers the result's elements, and compiles.
void ExpectKernelsCompile(const std::string& text, Opcode op, Generator generate) {
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  std::vector<const Instruction*> found = FindAll(*m, op);
  ASSERT_FALSE(found.empty());
  std::string source = ScalarPrelude();
  for (size_t k = 0; k < found.size(); ++k) {
    const std::string name = absl::StrCat("k", k);
    absl::StatusOr<KernelLaunch> launch = generate(*found[k], name, &source);
    ASSERT_TRUE(launch.ok()) << launch.status();
    EXPECT_EQ(launch->name, name);
    const Shape& s = found[k]->shape();
    EXPECT_EQ(launch->threads, (s.is_tuple ? s.tuple_shapes[0] : s).num_elements());
  }
  absl::StatusOr<std::string> ptx = CompileCudaSource(source, {8, 0}, DeviceCodeKind::kPtx);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
  for (size_t k = 0; k < found.size(); ++k) {
    EXPECT_NE(ptx->find(absl::StrCat(".entry k", k, "(")), std::string::npos) << *ptx;
  }
}

absl::Status GenerateFirst(const std::string& text, Opcode op, Generator generate) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return absl::InternalError("parse failed");
  std::vector<const Instruction*> found = FindAll(*m, op);
  if (found.empty()) return absl::InternalError("no such op");
  std::string source;
  return generate(*found[0], "k0", &source).status();
}

// lax.reduce_window(x, -inf, lax.max, (1,2,2,1), (1,2,2,1), 'VALID')
constexpr char kMaxPool[] = R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x8x8x3xf32>) -> (tensor<2x4x4x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.maximum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>} : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
    "func.return"(%1) : (tensor<2x4x4x3xf32>) -> ()
  }
})";

TEST(CudaWindow, MaxPool) {
  ExpectKernelsCompile(kMaxPool, Opcode::kReduceWindow, AppendReduceWindow);
}

// lax.reduce_window(x, 0., lax.add, (1,3,3,1), (1,2,2,1), 'SAME'): the sum
// of an average pool, padded high.
TEST(CudaWindow, AvgPoolSame) {
  ExpectKernelsCompile(R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x8x8x3xf32>) -> (tensor<2x4x4x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%2) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
    "func.return"(%1) : (tensor<2x4x4x3xf32>) -> ()
  }
})",
                       Opcode::kReduceWindow, AppendReduceWindow);
}

// Two inputs reduced together (an argmax over windows) with base and window
// dilation and padding on both sides, in bf16 and s32.
TEST(CudaWindow, VariadicDilatedReduceWindow) {
  ExpectKernelsCompile(R"(module @m {
  func.func @main(%x: tensor<5x7xbf16>, %i: tensor<5x7xi32>) -> (tensor<4x6xbf16>, tensor<4x6xi32>) {
    %a = "stablehlo.constant"() {value = dense<0xFF80> : tensor<bf16>} : () -> tensor<bf16>
    %b = "stablehlo.constant"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
    %r:2 = "stablehlo.reduce_window"(%x, %i, %a, %b) ({
    ^bb0(%a0: tensor<bf16>, %a1: tensor<i32>, %b0: tensor<bf16>, %b1: tensor<i32>):
      %ge = "stablehlo.compare"(%a0, %b0) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %v = "stablehlo.select"(%ge, %a0, %b0) : (tensor<i1>, tensor<bf16>, tensor<bf16>) -> tensor<bf16>
      %j = "stablehlo.select"(%ge, %a1, %b1) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%v, %j) : (tensor<bf16>, tensor<i32>) -> ()
    }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>, base_dilations = array<i64: 1, 2>, window_dilations = array<i64: 2, 2>, padding = dense<[[1, 0], [1, 2]]> : tensor<2x2xi64>} : (tensor<5x7xbf16>, tensor<5x7xi32>, tensor<bf16>, tensor<i32>) -> (tensor<4x6xbf16>, tensor<4x6xi32>)
    "func.return"(%r#0, %r#1) : (tensor<4x6xbf16>, tensor<4x6xi32>) -> ()
  }
})",
                       Opcode::kReduceWindow, AppendReduceWindow);
}

// xjit.grad of a max pool's sum: select_and_scatter (GE select, add scatter).
TEST(CudaWindow, MaxPoolGradientSelectAndScatter) {
  ExpectKernelsCompile(R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<f32>) -> (tensor<2x8x8x3xf32>) {
    %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x4x4x3xf32>
    %4 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %5 = "stablehlo.select_and_scatter"(%arg0, %1, %4) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %6 = "stablehlo.compare"(%arg2, %arg3) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %7 = "stablehlo.add"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<0> : tensor<4x2xi64>} : (tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x8x8x3xf32>
    "func.return"(%5) : (tensor<2x8x8x3xf32>) -> ()
  }
})",
                       Opcode::kSelectAndScatter, AppendSelectAndScatter);
}

// Overlapping windows (stride below the size) with padding, f16: an element
// may be selected by several windows.
TEST(CudaWindow, OverlappingPaddedSelectAndScatter) {
  ExpectKernelsCompile(R"(module @m {
  func.func @main(%x: tensor<6x5xf16>, %s: tensor<3x3xf16>) -> tensor<6x5xf16> {
    %z = "stablehlo.constant"() {value = dense<0.0> : tensor<f16>} : () -> tensor<f16>
    %r = "stablehlo.select_and_scatter"(%x, %s, %z) ({
    ^bb0(%a: tensor<f16>, %b: tensor<f16>):
      %c = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LE>} : (tensor<f16>, tensor<f16>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%a: tensor<f16>, %b: tensor<f16>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f16>, tensor<f16>) -> tensor<f16>
      "stablehlo.return"(%t) : (tensor<f16>) -> ()
    }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>, padding = dense<[[1, 0], [1, 1]]> : tensor<2x2xi64>} : (tensor<6x5xf16>, tensor<3x3xf16>, tensor<f16>) -> tensor<6x5xf16>
    "func.return"(%r) : (tensor<6x5xf16>) -> ()
  }
})",
                       Opcode::kSelectAndScatter, AppendSelectAndScatter);
}

// lax.conv_general_dilated(x, w, (1,1), 'SAME', ('NHWC','HWIO','NHWC'))
constexpr char kConvNhwc[] = R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>) -> (tensor<2x8x8x4xf32>) {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
    "func.return"(%0) : (tensor<2x8x8x4xf32>) -> ()
  }
})";

TEST(CudaWindow, ConvNhwcSame) {
  ExpectKernelsCompile(kConvNhwc, Opcode::kConvolution, AppendConvolution);
}

// NCHW/OIHW, stride 2, rhs dilation 2.
TEST(CudaWindow, ConvNchwStridedDilated) {
  ExpectKernelsCompile(R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x3x8x8xf32>, %arg1: tensor<4x3x3x3xf32>) -> (tensor<2x4x3x3xf32>) {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {window_strides = array<i64: 2, 2>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 2, 2>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x3x3xf32>
    "func.return"(%0) : (tensor<2x4x3x3xf32>) -> ()
  }
})",
                       Opcode::kConvolution, AppendConvolution);
}

TEST(CudaWindow, GroupedConv) {
  ExpectKernelsCompile(R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<2x4x8x8xf32>, %arg1: tensor<6x2x3x3xf32>) -> (tensor<2x6x8x8xf32>) {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x8x8xf32>
    "func.return"(%0) : (tensor<2x6x8x8xf32>) -> ()
  }
})",
                       Opcode::kConvolution, AppendConvolution);
}

// The backward pass of xjit.grad of a strided, grouped conv's sum (w.r.t.
// both): the kernel gradient has batch_group_count = 2 and rhs dilation,
// the input gradient lhs dilation and feature groups.
TEST(CudaWindow, ConvGradients) {
  ExpectKernelsCompile(R"(module @m {
  func.func @main(%w: tensor<6x2x3x3xf32>, %x: tensor<2x4x8x8xf32>, %g: tensor<2x6x4x4xf32>, %wr: tensor<3x4x3x3xf32>) -> (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) {
    %2 = "stablehlo.convolution"(%x, %g) {window_strides = array<i64: 1, 1>, padding = dense<[[1, 0], [1, 0]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 2, 2>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]>, feature_group_count = 1 : i64, batch_group_count = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32>
    %7 = "stablehlo.convolution"(%g, %wr) {window_strides = array<i64: 1, 1>, padding = dense<[[1, 2], [1, 2]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64} : (tensor<2x6x4x4xf32>, tensor<3x4x3x3xf32>) -> tensor<2x4x8x8xf32>
    "func.return"(%7, %2) : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> ()
  }
})",
                       Opcode::kConvolution, AppendConvolution);
}

// xjit.grad of an NHWC conv's sum as the front end emits it (the forward
// conv, the kernel gradient with its [f, 0, 1, b] layout, the input gradient).
TEST(CudaWindow, NhwcConvGradientModule) {
  ExpectKernelsCompile(R"(module @jit__lambda_ {
  func.func @main(%arg0: tensor<3x3x3x4xf32>, %arg1: tensor<2x8x8x3xf32>, %arg2: tensor<f32>) -> (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) {
    %1 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %2 = "stablehlo.convolution"(%arg1, %1) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x3x4xf32>
    %3 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 0, 1>} : (tensor<3x3x3x4xf32>) -> tensor<3x3x3x4xf32>
    %4 = "stablehlo.convolution"(%1, %3) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x8x8x4xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x3xf32>
    "func.return"(%4, %2) : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> ()
  }
})",
                       Opcode::kConvolution, AppendConvolution);
}

// A 1-d conv with window reversal and negative padding in every element
// type the reference convolves.
TEST(CudaWindow, ConvElementTypes) {
  const std::string conv = R"(module @m {
  func.func @main(%x: tensor<2x9x3xT>, %w: tensor<3x3x4xT>) -> tensor<2x6x4xT> {
    %0 = "stablehlo.convolution"(%x, %w) {window_strides = array<i64: 1>, padding = dense<[[-1, 0]]> : tensor<1x2xi64>, lhs_dilation = array<i64: 1>, rhs_dilation = array<i64: 1>, window_reversal = array<i1: true>, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x9x3xT>, tensor<3x3x4xT>) -> tensor<2x6x4xT>
    "func.return"(%0) : (tensor<2x6x4xT>) -> ()
  }
})";
  for (const char* t : {"f16", "bf16", "f32", "f64", "i8", "i32", "ui64", "i1", "complex<f32>",
                        "complex<f64>"}) {
    SCOPED_TRACE(t);
    ExpectKernelsCompile(absl::StrReplaceAll(conv, {{"xT>", absl::StrCat("x", t, ">")}}),
                         Opcode::kConvolution, AppendConvolution);
  }
}

TEST(CudaWindow, UnsupportedCasesAreUnimplemented) {
  // An element type without a CUDA type.
  absl::Status narrow = GenerateFirst(
      absl::StrReplaceAll(kMaxPool, {{"f32>", "f8E4M3FN>"}, {"0xFF800000", "0xFF"}}),
      Opcode::kReduceWindow, AppendReduceWindow);
  EXPECT_EQ(narrow.code(), absl::StatusCode::kUnimplemented) << narrow;
  // A convolution whose result type differs from its operands' (shape
  // inference gives f16 from f16, so the instruction is remade as f32).
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%x: tensor<1x4x2xf16>, %w: tensor<2x2x3xf16>) -> tensor<1x3x3xf16> {
    %0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x2xf16>, tensor<2x2x3xf16>) -> tensor<1x3x3xf16>
    "func.return"(%0) : (tensor<1x3x3xf16>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  const Instruction* conv = FindAll(*m, Opcode::kConvolution).at(0);
  Instruction mixed(Opcode::kConvolution, Shape(DType::kF32, conv->shape().dims), conv->operands(),
                    conv->attributes(), {});
  std::string source;
  absl::Status status = AppendConvolution(mixed, "k0", &source).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_NE(status.message().find("cuda backend"), std::string::npos) << status;
  EXPECT_TRUE(source.empty());
}

}  // namespace
}  // namespace xjit::cuda
