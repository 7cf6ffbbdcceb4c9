// The CUDA backend's per-element source (scalar_source.h): every element-wise
// op on every element type the builder accepts becomes a kernel, and all of
// them compile with NVRTC in a few programs (no GPU needed). Values are
// checked on a GPU by the backend's run tests, not here.
#include "xjit/backends/cuda/scalar_source.h"

#include <future>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#include "xjit/builder/builder.h"

namespace xjit::cuda {
namespace {

constexpr DType kWideDTypes[] = {DType::kPred, DType::kS8,   DType::kS16, DType::kS32,
                                 DType::kS64,  DType::kU8,   DType::kU16, DType::kU32,
                                 DType::kU64,  DType::kF16,  DType::kBF16, DType::kF32,
                                 DType::kF64,  DType::kC64,  DType::kC128};
constexpr DType kNarrowDTypes[] = {
    DType::kS2,          DType::kS4,          DType::kU2,          DType::kU4,
    DType::kF8E3M4,      DType::kF8E4M3,      DType::kF8E4M3FN,    DType::kF8E4M3FNUZ,
    DType::kF8E4M3B11FNUZ, DType::kF8E5M2,    DType::kF8E5M2FNUZ,  DType::kF8E8M0FNU,
    DType::kF4E2M1FN,    DType::kF6E2M3FN,    DType::kF6E3M2FN};

int CountOf(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Collects one kernel per instruction after the prelude, in a few programs
// that compile on parallel threads (one NVRTC program per kernel would cost
// a prelude parse each; one program for all would use one core):
//   extern "C" __global__ void k_N(const T0* x0, ..., R* out, int64_t n)
class TestProgram {
 public:
  // Adds `instr`'s kernel; the expression must exist and use each operand once.
  void Add(const Instruction& instr, const std::string& what) {
    std::vector<std::string> operands, params;
    for (size_t i = 0; i < instr.operands().size(); ++i) {
      operands.push_back(absl::StrCat("x", i, "[i]"));
      params.push_back(absl::StrCat(
          "const ", *CudaTypeName(instr.operand(i)->shape().dtype), "* x", i));
    }
    absl::StatusOr<std::string> expr = ElementwiseExpression(instr, operands);
    ASSERT_TRUE(expr.ok()) << what << ": " << expr.status();
    for (const std::string& o : operands) {
      EXPECT_EQ(CountOf(*expr, o), 1) << what << ": " << o << " in " << *expr;
    }
    if (count_ % kKernelsPerProgram == 0) sources_.push_back(ScalarPrelude());
    absl::StrAppend(&sources_.back(), "// ", what, "\nextern \"C\" __global__ void k_", count_++,
                    "(", absl::StrJoin(params, ", "), ", ", *CudaTypeName(instr.shape().dtype),
                    "* out, int64_t n) {\n  int64_t i = blockIdx.x * (int64_t)blockDim.x + "
                    "threadIdx.x;\n  if (i < n) out[i] = ",
                    *expr, ";\n}\n");
  }

  int count() const { return count_; }
  void ExpectCompiles() const {
    std::vector<std::future<absl::StatusOr<std::string>>> ptx;
    for (const std::string& source : sources_) {
      ptx.push_back(std::async(std::launch::async, [&source] {
        return CompileCudaSource(source, {8, 0}, DeviceCodeKind::kPtx);
      }));
    }
    for (auto& p : ptx) {
      absl::StatusOr<std::string> result = p.get();
      EXPECT_TRUE(result.ok()) << result.status();
    }
  }

 private:
  static constexpr int kKernelsPerProgram = 100;
  std::vector<std::string> sources_;
  int count_ = 0;
};

std::string Name(Opcode op, std::initializer_list<DType> types) {
  std::string out(OpcodeName(op));
  for (DType t : types) absl::StrAppend(&out, " ", StableHloName(t));
  return out;
}

TEST(ScalarSourceTest, CudaTypeNameEveryDType) {
  const char* const want[] = {"bool",     "int8_t",   "int16_t", "int32_t", "int64_t",
                              "uint8_t",  "uint16_t", "uint32_t", "uint64_t", "__half",
                              "__nv_bfloat16", "float", "double", "xjit_c64", "xjit_c128"};
  for (size_t i = 0; i < std::size(kWideDTypes); ++i) {
    absl::StatusOr<std::string> name = CudaTypeName(kWideDTypes[i]);
    ASSERT_TRUE(name.ok()) << name.status();
    EXPECT_EQ(*name, want[i]);
  }
  for (DType t : kNarrowDTypes) {
    EXPECT_EQ(CudaTypeName(t).status().code(), absl::StatusCode::kUnimplemented)
        << StableHloName(t);
  }
}

TEST(ScalarSourceTest, UnaryAndBinaryOpsCompile) {
  ModuleBuilder mb("ops");
  ComputationBuilder* cb = mb.NewComputation("main");
  TestProgram source;
  int unary = 0, binary = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    const Opcode op = static_cast<Opcode>(o);
    if (op == Opcode::kConvert || op == Opcode::kCompare) continue;  // own tests
    if (!IsElementwiseUnary(op) && !IsElementwiseBinary(op)) continue;
    for (DType t : kWideDTypes) {
      Attributes attrs;
      if (op == Opcode::kReducePrecision) attrs = ReducePrecisionAttrs{5, 10};
      Instruction* x = cb->Parameter(Shape(t, {4}));
      std::vector<Instruction*> operands = {x};
      if (IsElementwiseBinary(op)) operands.push_back(cb->Parameter(Shape(t, {4})));
      absl::StatusOr<Instruction*> instr = cb->Add(op, operands, attrs);
      if (!instr.ok()) continue;  // the builder rejects this type for this op
      source.Add(**instr, Name(op, {t}));
      ++(IsElementwiseUnary(op) ? unary : binary);
    }
  }
  EXPECT_GT(unary, 100);
  EXPECT_GT(binary, 120);
  source.ExpectCompiles();
}

TEST(ScalarSourceTest, CompareEveryDirectionAndTypeCompiles) {
  ModuleBuilder mb("compare");
  ComputationBuilder* cb = mb.NewComputation("main");
  TestProgram source;
  const ComparisonType types[] = {ComparisonType::kNotype, ComparisonType::kFloat,
                                  ComparisonType::kTotalOrder, ComparisonType::kSigned,
                                  ComparisonType::kUnsigned};
  for (DType t : kWideDTypes) {
    for (int d = 0; d < 6; ++d) {
      for (ComparisonType ct : types) {
        CompareAttrs a;
        a.comparison_direction = static_cast<ComparisonDirection>(d);
        a.compare_type = ct;
        Instruction* x = cb->Parameter(Shape(t, {4}));
        Instruction* y = cb->Parameter(Shape(t, {4}));
        absl::StatusOr<Instruction*> instr = cb->Add(Opcode::kCompare, {x, y}, a);
        if (!instr.ok()) continue;
        source.Add(**instr, absl::StrCat(Name(Opcode::kCompare, {t}), " ", d, " ",
                                         static_cast<int>(ct)));
      }
    }
  }
  EXPECT_GT(source.count(), 150);
  source.ExpectCompiles();
}

TEST(ScalarSourceTest, ConvertAndBitcastEveryPairCompile) {
  ModuleBuilder mb("convert");
  ComputationBuilder* cb = mb.NewComputation("main");
  TestProgram source;
  int bitcasts = 0;
  for (DType from : kWideDTypes) {
    for (DType to : kWideDTypes) {
      Instruction* x = cb->Parameter(Shape(from, {4}));
      absl::StatusOr<Instruction*> convert =
          cb->AddWithResultType(Opcode::kConvert, Shape(to, {4}), {x});
      ASSERT_TRUE(convert.ok()) << convert.status();
      source.Add(**convert, Name(Opcode::kConvert, {from, to}));
      if (ByteWidth(from) != ByteWidth(to)) continue;
      absl::StatusOr<Instruction*> bitcast =
          cb->AddWithResultType(Opcode::kBitcastConvert, Shape(to, {4}), {x});
      if (!bitcast.ok()) continue;  // pred, or complex with real
      source.Add(**bitcast, Name(Opcode::kBitcastConvert, {from, to}));
      ++bitcasts;
    }
  }
  EXPECT_GT(bitcasts, 20);
  source.ExpectCompiles();
}

TEST(ScalarSourceTest, SelectAndClampCompile) {
  ModuleBuilder mb("ternary");
  ComputationBuilder* cb = mb.NewComputation("main");
  TestProgram source;
  for (DType t : kWideDTypes) {
    Instruction* p = cb->Parameter(Shape(DType::kPred, {4}));
    Instruction* a = cb->Parameter(Shape(t, {4}));
    Instruction* b = cb->Parameter(Shape(t, {4}));
    absl::StatusOr<Instruction*> select = cb->Add(Opcode::kSelect, {p, a, b});
    ASSERT_TRUE(select.ok()) << select.status();
    source.Add(**select, Name(Opcode::kSelect, {t}));
    Instruction* lo = cb->Parameter(Shape(t, {}));  // scalar bounds, as StableHLO allows
    absl::StatusOr<Instruction*> clamp = cb->Add(Opcode::kClamp, {lo, a, b});
    if (clamp.ok()) source.Add(**clamp, Name(Opcode::kClamp, {t}));
  }
  EXPECT_GE(source.count(), 28);
  source.ExpectCompiles();
}

// Expressions nest (a fusion's chain): f16 and complex chains included.
TEST(ScalarSourceTest, NestedExpressionsCompile) {
  ModuleBuilder mb("nested");
  ComputationBuilder* cb = mb.NewComputation("main");
  std::string source = ScalarPrelude();
  int n = 0;
  for (DType t : {DType::kF16, DType::kF32, DType::kC64, DType::kS8}) {
    Instruction* a = cb->Parameter(Shape(t, {4}));
    Instruction* b = cb->Parameter(Shape(t, {4}));
    Instruction* mul = *cb->Add(Opcode::kMultiply, {a, b});
    Instruction* add = *cb->Add(Opcode::kAdd, {mul, b});
    Instruction* neg = *cb->Add(Opcode::kNegate, {add});
    absl::StatusOr<std::string> e1 = ElementwiseExpression(*mul, {"a[i]", "b[i]"});
    ASSERT_TRUE(e1.ok()) << e1.status();
    absl::StatusOr<std::string> e2 = ElementwiseExpression(*add, {*e1, "b[i]"});
    ASSERT_TRUE(e2.ok()) << e2.status();
    absl::StatusOr<std::string> e3 = ElementwiseExpression(*neg, {*e2});
    ASSERT_TRUE(e3.ok()) << e3.status();
    const std::string type = *CudaTypeName(t);
    absl::StrAppend(&source, "extern \"C\" __global__ void nested_", n++, "(const ", type,
                    "* a, const ", type, "* b, ", type,
                    "* out) { int i = threadIdx.x; out[i] = ", *e3, "; }\n");
  }
  absl::StatusOr<std::string> ptx = CompileCudaSource(source, {8, 0}, DeviceCodeKind::kPtx);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
}

TEST(ScalarSourceTest, UnsupportedIsUnimplemented) {
  ModuleBuilder mb("unsupported");
  ComputationBuilder* cb = mb.NewComputation("main");
  // Narrow types never reach a backend unexpanded.
  Instruction* f8 = cb->Parameter(Shape(DType::kF8E4M3FN, {4}));
  absl::StatusOr<Instruction*> add = cb->Add(Opcode::kAdd, {f8, f8});
  ASSERT_TRUE(add.ok()) << add.status();
  absl::Status s = ElementwiseExpression(**add, {"a", "b"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("add"), std::string::npos) << s;
  EXPECT_NE(s.message().find("f8E4M3FN"), std::string::npos) << s;
  // A bitcast that regroups elements is not element-wise.
  Instruction* f32 = cb->Parameter(Shape(DType::kF32, {4}));
  absl::StatusOr<Instruction*> regroup =
      cb->AddWithResultType(Opcode::kBitcastConvert, Shape(DType::kF16, {4, 2}), {f32});
  ASSERT_TRUE(regroup.ok()) << regroup.status();
  EXPECT_EQ(ElementwiseExpression(**regroup, {"a"}).status().code(),
            absl::StatusCode::kUnimplemented);
  // Not an element-wise op at all.
  absl::StatusOr<Instruction*> reshape =
      cb->AddWithResultType(Opcode::kReshape, Shape(DType::kF32, {2, 2}), {f32});
  ASSERT_TRUE(reshape.ok()) << reshape.status();
  EXPECT_EQ(ElementwiseExpression(**reshape, {"a"}).status().code(),
            absl::StatusCode::kUnimplemented);
  // A wrong number of operand expressions is the caller's bug.
  absl::StatusOr<Instruction*> neg = cb->Add(Opcode::kNegate, {f32});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_EQ(ElementwiseExpression(**neg, {"a", "b"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Spot checks of the rules' spelling: the ones whose helpers carry the
// semantics (a plain C++ operator would trap or differ).
TEST(ScalarSourceTest, RulesUseTheirHelpers) {
  ModuleBuilder mb("rules");
  ComputationBuilder* cb = mb.NewComputation("main");
  auto expr = [&](Opcode op, DType t, int arity) {
    std::vector<Instruction*> operands;
    for (int i = 0; i < arity; ++i) operands.push_back(cb->Parameter(Shape(t, {4})));
    absl::StatusOr<Instruction*> instr = cb->Add(op, operands);
    EXPECT_TRUE(instr.ok()) << instr.status();
    std::vector<std::string> names = {"a", "b"};
    names.resize(arity);
    return instr.ok() ? ElementwiseExpression(**instr, names).value_or("") : "";
  };
  EXPECT_EQ(expr(Opcode::kDivide, DType::kS32, 2), "xjit_idiv<int32_t>(a, b)");
  EXPECT_EQ(expr(Opcode::kRemainder, DType::kU8, 2), "xjit_irem<uint8_t>(a, b)");
  EXPECT_EQ(expr(Opcode::kShiftLeft, DType::kS64, 2), "xjit_shl<int64_t>(a, b)");
  EXPECT_EQ(expr(Opcode::kAdd, DType::kF32, 2), "(__fadd_rn((a), (b)))");
  EXPECT_EQ(expr(Opcode::kMaximum, DType::kF16, 2), "xjit_f2h(xjit_fmax(xjit_h2f(a), xjit_h2f(b)))");
  EXPECT_EQ(expr(Opcode::kMultiply, DType::kC64, 2), "xjit_cmul(a, b)");
  EXPECT_EQ(expr(Opcode::kAdd, DType::kPred, 2), "((a) || (b))");
}

}  // namespace
}  // namespace xjit::cuda
