// Buffer assignment on small graphs: arena reuse along a chain, aliases,
// results written in place or copied, scratch, and no overlap of buffers that
// are alive at the same step.
#include "xjit/passes/buffer_assignment.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace xjit::testing {
using passes::BufferAssignment;
using passes::BufferId;
using passes::LogicalBuffer;
namespace {

using Kind = LogicalBuffer::Kind;

const Computation* Entry(ModuleBuilder& mb, ComputationBuilder* cb,
                         std::vector<Instruction*> results, std::unique_ptr<Module>& keep) {
  auto main = cb->Finish(std::move(results));
  EXPECT_TRUE(main.ok()) << main.status();
  auto module = mb.Build(*main);
  EXPECT_TRUE(module.ok()) << module.status();
  keep = *std::move(module);
  return keep->entry();
}

BufferId Only(const BufferAssignment& a, const Instruction* instr) {
  absl::Span<const BufferId> l = a.leaves(*instr);
  EXPECT_EQ(l.size(), 1u);
  return l.empty() ? -1 : l[0];
}

bool Overlap(const LogicalBuffer& x, const LogicalBuffer& y) {
  return x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
}

TEST(BufferAssignment, AChainReusesTheArena) {
  ModuleBuilder mb("chain");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {256}));
  std::vector<Instruction*> chain = {a};
  for (int i = 0; i < 6; ++i) chain.push_back(Must(cb->Add(Opcode::kExponential, {chain.back()})));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {chain.back()}, m);
  auto a_or = BufferAssignment::Create(*entry);
  ASSERT_TRUE(a_or.ok()) << a_or.status();
  BufferAssignment& as = *a_or;
  as.AssignOffsets();
  // Two 1 KiB intermediates alive at once at most (one is read while the next
  // is written); the last value is the result, written in place.
  EXPECT_EQ(as.arena_bytes(), 2 * 1024);
  EXPECT_EQ(as.buffer(Only(as, a)).kind, Kind::kParameter);
  EXPECT_EQ(as.buffer(Only(as, chain.back())).kind, Kind::kResult);
  ASSERT_EQ(as.results().size(), 1u);
  EXPECT_EQ(as.results()[0].copy_from, -1);
  for (size_t i = 2; i + 1 < chain.size(); ++i) {
    const LogicalBuffer& in = as.buffer(Only(as, chain[i - 1]));
    const LogicalBuffer& out = as.buffer(Only(as, chain[i]));
    if (in.kind == Kind::kArena && out.kind == Kind::kArena) EXPECT_FALSE(Overlap(in, out)) << i;
  }
}

TEST(BufferAssignment, ReshapeTupleAndGetTupleElementAlias) {
  ModuleBuilder mb("alias");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* r = Must(cb->AddWithResultType(Opcode::kReshape, T(DType::kF32, {6}), {e}));
  Instruction* n = Must(cb->Add(Opcode::kNegate, {a}));
  Instruction* t = Must(cb->Add(Opcode::kTuple, {r, n}));
  Instruction* g = Must(cb->Add(Opcode::kGetTupleElement, {t}, GetTupleElementAttrs{1}));
  Instruction* s = Must(cb->Add(Opcode::kSine, {g}));
  Instruction* c = Must(cb->Add(Opcode::kCosine, {r}));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {s, c}, m);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_TRUE(as.ok()) << as.status();
  as->AssignOffsets();
  EXPECT_EQ(Only(*as, r), Only(*as, e));
  ASSERT_EQ(as->leaves(*t).size(), 2u);
  EXPECT_EQ(as->leaves(*t)[0], Only(*as, e));
  EXPECT_EQ(as->leaves(*t)[1], Only(*as, n));
  EXPECT_EQ(Only(*as, g), Only(*as, n));
  // e is read (through its alias r) by the cosine, the last op: n, read by the
  // sine, must not share e's bytes.
  EXPECT_FALSE(Overlap(as->buffer(Only(*as, e)), as->buffer(Only(*as, n))));
}

TEST(BufferAssignment, ParametersConstantsAndRepeatedResultsAreCopied) {
  ModuleBuilder mb("results");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {4}));
  Instruction* k = cb->Constant(Literal::Scalar<float>(DType::kF32, 1));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {e, a, k, e}, m);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_TRUE(as.ok()) << as.status();
  as->AssignOffsets();
  const auto& r = as->results();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].copy_from, -1);
  EXPECT_EQ(r[0].buffer, Only(*as, e));
  EXPECT_EQ(r[1].copy_from, Only(*as, a));
  EXPECT_EQ(r[2].copy_from, Only(*as, k));
  EXPECT_EQ(as->buffer(Only(*as, k)).kind, Kind::kConstant);
  EXPECT_EQ(r[3].copy_from, Only(*as, e));  // copied from result 0's buffer
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(as->buffer(r[i].buffer).kind, Kind::kResult);
    EXPECT_EQ(as->buffer(r[i].buffer).number, static_cast<int64_t>(i));
  }
  EXPECT_EQ(as->arena_bytes(), 0);
}

TEST(BufferAssignment, ScratchLivesOnlyDuringItsInstruction) {
  ModuleBuilder mb("scratch");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {64}));
  Instruction* x = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* y = Must(cb->Add(Opcode::kSine, {x}));
  Instruction* z = Must(cb->Add(Opcode::kCosine, {y}));
  Instruction* w = Must(cb->Add(Opcode::kNegate, {z}));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {w}, m);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_TRUE(as.ok()) << as.status();
  BufferId s1 = as->AddScratch(*y, 100);
  BufferId s2 = as->AddScratch(*w, 100);
  as->AssignOffsets();
  const LogicalBuffer& scratch = as->buffer(s1);
  EXPECT_EQ(scratch.kind, Kind::kArena);
  EXPECT_EQ(scratch.defined_by, y);
  // Distinct from what y reads (x) and writes (y).
  EXPECT_FALSE(Overlap(scratch, as->buffer(Only(*as, x))));
  EXPECT_FALSE(Overlap(scratch, as->buffer(Only(*as, y))));
  // After y, its bytes are free again: w's scratch may take them.
  EXPECT_FALSE(Overlap(as->buffer(s2), as->buffer(Only(*as, z))));
  EXPECT_LE(as->arena_bytes(), 3 * 256);
}

TEST(BufferAssignment, ResultWriteVsParameterRead) {
  using Write = BufferAssignment::ResultWrite;
  ModuleBuilder mb("donation");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p0 = cb->Parameter(T(DType::kF32, {4}));
  Instruction* p1 = cb->Parameter(T(DType::kF32, {4}));
  Instruction* p2 = cb->Parameter(T(DType::kF32, {4}));
  cb->Parameter(T(DType::kF32, {4}));                     // p3: never read
  Instruction* e = Must(cb->Add(Opcode::kExponential, {p0}));  // step 4
  Instruction* m = Must(cb->Add(Opcode::kMultiply, {e, p1}));  // step 5
  std::unique_ptr<Module> m_keep;
  const Computation* entry = Entry(mb, cb, {m, e, p1, p2}, m_keep);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_TRUE(as.ok()) << as.status();
  EXPECT_EQ(as->parameter_buffer(0), Only(*as, p0));
  EXPECT_EQ(as->parameter_buffer(7), -1);
  // m is written after exp read p0 last; exp writes e while reading p0.
  EXPECT_EQ(as->ResultWriteVsParameterRead(0, 0), Write::kAfterLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(1, 0), Write::kAtLastRead);
  // p1 is read by m and again by its own copy at the end.
  EXPECT_EQ(as->ResultWriteVsParameterRead(0, 1), Write::kBeforeLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(1, 1), Write::kBeforeLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(2, 1), Write::kAtLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(2, 0), Write::kAfterLastRead);
  // p2 is read only by its copy at the end, like the other copies.
  EXPECT_EQ(as->ResultWriteVsParameterRead(3, 2), Write::kAtLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(0, 2), Write::kBeforeLastRead);
  // Never read (p3) or not a parameter of the entry: nothing to overwrite.
  EXPECT_EQ(as->ResultWriteVsParameterRead(1, 3), Write::kAfterLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(0, 7), Write::kAfterLastRead);
  EXPECT_EQ(as->ResultWriteVsParameterRead(9, 0), Write::kBeforeLastRead);
}

TEST(BufferAssignment, CallsMustBeInlinedFirst) {
  ModuleBuilder mb("call");
  ComputationBuilder* fb = mb.NewComputation("f");
  Instruction* p = fb->Parameter(T(DType::kF32, {2}));
  Computation* f = *fb->Finish({Must(fb->Add(Opcode::kNegate, {p}))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2}));
  Instruction* c = Must(cb->Add(Opcode::kCall, {a}, {}, {f}));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {c}, m);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_FALSE(as.ok());
  EXPECT_TRUE(absl::StrContains(as.status().message(), "inlined")) << as.status();
}

TEST(BufferAssignment, LiveBuffersNeverOverlap) {
  // A diamond with long-lived values: check every pair alive at one step.
  ModuleBuilder mb("diamond");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {32}));
  Instruction* b = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* c = Must(cb->Add(Opcode::kSine, {a}));
  Instruction* d = Must(cb->Add(Opcode::kCosine, {b}));
  Instruction* e = Must(cb->Add(Opcode::kMultiply, {c, d}));
  Instruction* f = Must(cb->Add(Opcode::kAdd, {e, b}));
  std::unique_ptr<Module> m;
  const Computation* entry = Entry(mb, cb, {f}, m);
  auto as = BufferAssignment::Create(*entry);
  ASSERT_TRUE(as.ok()) << as.status();
  as->AssignOffsets();
  // b lives until f; c until e; d until e; e until f.
  std::vector<const Instruction*> vals = {b, c, d, e};
  for (size_t i = 0; i < vals.size(); ++i) {
    for (size_t j = i + 1; j < vals.size(); ++j) {
      EXPECT_FALSE(Overlap(as->buffer(Only(*as, vals[i])), as->buffer(Only(*as, vals[j]))))
          << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace xjit::testing
