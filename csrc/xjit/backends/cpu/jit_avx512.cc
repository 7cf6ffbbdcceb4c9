// The AVX-512 generator of fused element-wise kernels (jit_fusion.h): each
// value of the region lives in a zmm register for 16 elements at a time.
// Whole vectors run unmasked; the loop's last partial vector runs once more
// under the k1 mask. Each op rounds as the interpreter's kernel does
// (jit_avx512_code.h: scalar_ops.h; exp, tanh and log as fast_math.h, step
// by step), so both give the same bits. exp, tanh and log take a short path
// when no lane of the vector needs a special case (the same bits; the full
// sequence is out of line). 16-bit float values live in float32 lanes as in
// the AVX2 generator (jit_region.h): loads widen, their ops round to nearest
// even, stores narrow (bfloat16: vpmovdw, AVX-512BW; float16: F16C's
// vcvtph2ps / vcvtps2ph). Results past half the
// last-level cache have a streaming variant (jit_region.h:
// WritesPastTheCache).
#include <algorithm>
#include <climits>
#include <optional>
#include <utility>
#include <vector>

#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"

#if defined(__x86_64__)
#include "xjit/backends/cpu/jit_avx512_code.h"

namespace xjit::cpu {
namespace {

constexpr int kLanes = ChainCode::kLanes;
constexpr int kValueRegisters = ChainCode::kValueRegisters;

using Xbyak::Zmm;

// A region value: a register, and for a fusion operand its index.
struct JitValue {
  int reg = -1;
  int param = -1;
  bool splat = false;
};

bool Reversed(JitRegion::InputSpread s) {
  return s == JitRegion::InputSpread::kReversed || s == JitRegion::InputSpread::kReversedRows;
}

// Emits the kernel; throws Xbyak::Error when the region does not fit.
class Avx512Emitter {
 public:
  // `streaming`: whole vectors of results are stored non-temporally.
  Avx512Emitter(const JitRegion& region, ChainCode& g, bool streaming)
      : region_(region), g_(g), streaming_(streaming) {}

  void Emit() {
    using namespace Xbyak::util;
    g_.mov(r11, reinterpret_cast<size_t>(g_.table()));
    // Splats are broadcast once, before the loop.
    for (const Instruction* p : region_.parameters) {
      const int number = region_.input_number.at(p);
      JitValue v{-1, number, region_.input_splat[number]};
      if (v.splat && region_.Used(p)) {
        v.reg = Take();
        g_.mov(r8, g_.qword[rdi + 8 * number]);
        g_.BroadcastElement(Zmm(v.reg), r8, region_.input_type[number]);
      }
      values_[p] = v;
    }
    g_.xor_(eax, eax);
    g_.mov(rcx, rdx);
    g_.and_(rcx, -kLanes);  // the whole vectors end here
    // Two vectors a trip (their independent chains overlap in the core),
    // then one.
    Xbyak::Label pairs, single, tail, done;
    g_.L(pairs);
    g_.lea(r10, g_.ptr[rax + 2 * kLanes]);
    g_.cmp(r10, rcx);
    g_.jg(single, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false);
    copy_ = 1;
    EmitBody(false);
    copy_ = 0;
    g_.add(rax, 2 * kLanes);
    g_.jmp(pairs, Xbyak::CodeGenerator::T_NEAR);
    g_.L(single);
    g_.cmp(rax, rcx);
    g_.jge(tail, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false);
    g_.add(rax, kLanes);
    // The last 1..15 elements under k1.
    g_.L(tail);
    g_.cmp(rax, rdx);
    g_.jge(done, Xbyak::CodeGenerator::T_NEAR);
    g_.mov(rcx, rdx);
    g_.sub(rcx, rax);
    g_.mov(r10d, 1);
    g_.shl(r10d, cl);
    g_.dec(r10d);
    g_.kmovw(k1, r10d);
    if (std::any_of(region_.input_spread.begin(), region_.input_spread.end(), Reversed)) {
      // k4: the top lanes instead (a reversed input's tail ends its vector).
      g_.neg(ecx);
      g_.add(ecx, kLanes);
      g_.shl(r10d, cl);
      g_.kmovw(k4, r10d);
    }
    EmitBody(true);
    g_.L(done);
    if (streaming_) g_.sfence();  // the stores reach memory before the thunk returns
    g_.vzeroupper();
    g_.ret();
    g_.EmitColdPaths();
  }

 private:
  int Take() {
    for (int r = 0; r < kValueRegisters; ++r) {
      if (!busy_[r]) {
        busy_[r] = true;
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // more live values than registers
  }

  // The divisor of an int32 divide or remainder when it is a constant the
  // multiply covers (not -1, 0, 1 or INT_MIN: those divide).
  std::optional<int32_t> ConstantDivisor(const Instruction& x) const {
    if ((x.opcode() != Opcode::kDivide && x.opcode() != Opcode::kRemainder) ||
        x.shape().dtype != DType::kS32) {
      return std::nullopt;
    }
    auto number = region_.input_number.find(region_.Root(x.operand(1)));
    if (number == region_.input_number.end()) return std::nullopt;
    auto c = region_.splat_int_constant.find(number->second);
    if (c == region_.splat_int_constant.end() || c->second == -1 || c->second == 0 ||
        c->second == 1 || c->second == INT32_MIN) {
      return std::nullopt;
    }
    return c->second;
  }

  // Frees operands read for the last time at position i.
  void Release(const Instruction* x, size_t i) {
    for (const Instruction* o : x->operands()) {
      const Instruction* v = region_.Root(o);
      auto it = values_.find(v);
      // Splats stay in their register for the whole loop.
      if (it != values_.end() && region_.last_use.at(v) == i && it->second.reg >= 0 &&
          !it->second.splat) {
        busy_[it->second.reg] = false;
        it->second.reg = -1;
      }
    }
  }

  // Elements p.. of a reversed input (r8 one past the call's first): the 16
  // before r8 - 4p, lanes reversed (128-bit blocks, then within them).
  void LoadReversed(const Zmm& d, bool tail) {
    using namespace Xbyak::util;
    g_.lea(r10, g_.ptr[rax * 4]);
    g_.sub(r8, r10);
    if (tail) {
      g_.vmovups(d | k4 | T_z, g_.zword[r8 - 64]);
    } else {
      g_.vmovups(d, g_.zword[r8 - 64 - 64 * copy_]);
    }
    g_.vshuff32x4(d, d, d, 0x1B);
    g_.vpermilps(d, d, 0x1B);
  }

  void LoadInput(const Zmm& d, DType type, bool tail) {
    using namespace Xbyak::util;
    if (type == DType::kPred) {  // bytes of 0 or 1 -> lanes of all zeros or all ones
      if (tail) {
        g_.vpmovzxbd(d | k1 | T_z, g_.xword[r8 + rax]);
      } else {
        g_.vpmovzxbd(d, g_.xword[r8 + rax + 16 * copy_]);
      }
      g_.vpslld(d, d, 31);
      g_.vpsrad(d, d, 31);
    } else if (type == DType::kBF16) {
      if (tail) {
        g_.vpmovzxwd(d | k1 | T_z, g_.yword[r8 + rax * 2]);
      } else {
        g_.vpmovzxwd(d, g_.yword[r8 + rax * 2 + 32 * copy_]);
      }
      g_.vpslld(d, d, 16);
    } else if (type == DType::kF16) {
      if (tail) {
        g_.vcvtph2ps(d | k1 | T_z, g_.yword[r8 + rax * 2]);
      } else {
        g_.vcvtph2ps(d, g_.yword[r8 + rax * 2 + 32 * copy_]);
      }
    } else if (tail) {
      g_.vmovups(d | k1 | T_z, g_.zword[r8 + rax * 4]);
    } else {
      g_.vmovups(d, g_.zword[r8 + rax * 4 + 64 * copy_]);
    }
  }

  // Stores the integers of float32 lanes d as the interpreter converts them
  // (scalar_ops.h ConvertElement: NaN -> 0, out of range saturated, others
  // truncated toward zero) at [r9 + rax * width].
  void StoreInt(const Zmm& d, DType type, bool tail) {
    using namespace Xbyak::util;
    const Zmm c(30), i(31);
    const int width = static_cast<int>(ByteWidth(type));
    if (type == DType::kS32) {
      g_.vcvttps2dq(i, d);  // out of range and NaN: INT_MIN, right for x <= -2^31
      g_.vcmpps(k2, d, g_.C(2147483648.0f), ChainCode::kGe);
      g_.vpsubd(i | k2, i, g_.Bits(1));  // INT_MIN - 1: INT_MAX
      g_.vcmpps(k2, d, d, ChainCode::kUnord);
      g_.vpxord(i | k2, i, i);
    } else if (type == DType::kU32) {
      g_.vmaxps(c, d, g_.C(0.0f));  // NaN and negatives: 0 (the second operand)
      g_.vcvttps2udq(i, c);         // 2^32 and more: UINT_MAX
    } else {
      // Clamped to the type's range in float32 (exact bounds), NaN then 0.
      float lo = 0, hi = 0;
      switch (type) {
        case DType::kS8: lo = -128; hi = 127; break;
        case DType::kU8: lo = 0; hi = 255; break;
        case DType::kS16: lo = -32768; hi = 32767; break;
        default: lo = 0; hi = 65535; break;  // kU16
      }
      g_.vmaxps(c, d, g_.C(lo));
      g_.vminps(c, c, g_.C(hi));
      g_.vcvttps2dq(i, c);
      g_.vcmpps(k2, d, d, ChainCode::kUnord);
      g_.vpxord(i | k2, i, i);
    }
    StoreLanes(i, width, tail);
  }

  // Stores the low `width` bytes of each 32-bit lane of i at [r9 + rax * width].
  void StoreLanes(const Zmm& i, int width, bool tail) {
    using namespace Xbyak::util;
    const Xbyak::Address at = width == 4 ? g_.zword[r9 + rax * 4 + (tail ? 0 : 64 * copy_)]
                              : width == 2 ? g_.yword[r9 + rax * 2 + (tail ? 0 : 32 * copy_)]
                                           : g_.xword[r9 + rax + (tail ? 0 : 16 * copy_)];
    if (width == 4) {
      if (tail) {
        g_.vmovdqu32(at | k1, i);
      } else if (streaming_) {
        g_.vmovntdq(at, i);
      } else {
        g_.vmovdqu32(at, i);
      }
      return;
    }
    // In range already: truncating each lane to its low bytes is exact.
    if (tail) {
      width == 2 ? g_.vpmovdw(at | k1, i) : g_.vpmovdb(at | k1, i);
    } else if (streaming_) {
      if (width == 2) {
        g_.vpmovdw(Xbyak::Ymm(31), i);
        g_.vmovntdq(at, Xbyak::Ymm(31));
      } else {
        g_.vpmovdb(Xbyak::Xmm(31), i);
        g_.vmovntdq(at, Xbyak::Xmm(31));
      }
    } else {
      width == 2 ? g_.vpmovdw(at, i) : g_.vpmovdb(at, i);
    }
  }

  // Stores d (its result index j) at [r9 + rax * width]; `converted`: d
  // holds floats a convert turns into the result's integers as it stores
  // them (int32/uint32 values are stored as their bits).
  void StoreResult(const Zmm& d, int j, bool tail, bool converted) {
    using namespace Xbyak::util;
    g_.mov(r9, g_.qword[rsi + 8 * j]);
    if (converted) {
      StoreInt(d, region_.result_type[j], tail);
    } else if (region_.result_type[j] == DType::kPred) {  // all-ones lanes -> bytes of 1
      g_.vpandd(Zmm(31), d, g_.Bits(1));
      StoreLanes(Zmm(31), 1, tail);
    } else if (region_.result_type[j] == DType::kBF16) {
      const Zmm t(31);
      g_.vpsrld(t, d, 16);
      if (tail) {
        g_.vpmovdw(g_.yword[r9 + rax * 2] | k1, t);
      } else if (streaming_) {
        g_.vpmovdw(Xbyak::Ymm(31), t);
        g_.vmovntdq(g_.yword[r9 + rax * 2 + 32 * copy_], Xbyak::Ymm(31));
      } else {
        g_.vpmovdw(g_.yword[r9 + rax * 2 + 32 * copy_], t);
      }
    } else if (region_.result_type[j] == DType::kF16) {  // exact: d is rounded already
      if (tail) {
        g_.vcvtps2ph(g_.yword[r9 + rax * 2] | k1, d, 0);
      } else if (streaming_) {
        g_.vcvtps2ph(Xbyak::Ymm(31), d, 0);
        g_.vmovntdq(g_.yword[r9 + rax * 2 + 32 * copy_], Xbyak::Ymm(31));
      } else {
        g_.vcvtps2ph(g_.yword[r9 + rax * 2 + 32 * copy_], d, 0);
      }
    } else if (tail) {
      g_.vmovups(g_.zword[r9 + rax * 4] | k1, d);
    } else if (streaming_) {
      g_.vmovntps(g_.zword[r9 + rax * 4 + 64 * copy_], d);
    } else {
      g_.vmovups(g_.zword[r9 + rax * 4 + 64 * copy_], d);
    }
  }

  void EmitBody(bool tail) {
    using namespace Xbyak::util;
    for (const Instruction* p : region_.parameters) {
      JitValue& v = values_[p];
      if (v.splat || !region_.Used(p)) continue;
      v.reg = Take();
      g_.mov(r8, g_.qword[rdi + 8 * v.param]);
      if (Reversed(region_.input_spread[v.param])) {
        LoadReversed(Zmm(v.reg), tail);
      } else {
        LoadInput(Zmm(v.reg), region_.input_type[v.param], tail);
      }
    }
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const Instruction* x = region_.ops[i];
      std::vector<Zmm> in;
      for (const Instruction* o : x->operands()) in.emplace_back(values_.at(region_.Root(o)).reg);
      if (auto r = region_.result_of.find(x); r != region_.result_of.end() && IsJitIntResult(*x)) {
        StoreResult(in[0], r->second, tail, true);  // an int result: converted as it is stored
        Release(x, i);
        continue;
      }
      const Zmm d(Take());
      if (const std::optional<int32_t> c = ConstantDivisor(*x)) {
        g_.IntDivideByConstant(d, in[0], *c, x->opcode() == Opcode::kRemainder);
      } else {
        g_.Op(*x, d, in);
      }
      values_[x] = JitValue{d.getIdx(), -1, false};
      if (auto r = region_.result_of.find(x); r != region_.result_of.end()) {
        StoreResult(d, r->second, tail, false);
      }
      if (!region_.Used(x)) {
        busy_[d.getIdx()] = false;
        values_[x].reg = -1;
      }
      Release(x, i);
    }
    // Every register of a value read in the body is free again by its end.
    for (const Instruction* p : region_.parameters) {
      JitValue& v = values_[p];
      if (!v.splat && v.reg >= 0) {
        busy_[v.reg] = false;
        v.reg = -1;
      }
    }
  }

  const JitRegion& region_;
  ChainCode& g_;
  bool streaming_;
  absl::flat_hash_map<const Instruction*, JitValue> values_;
  bool busy_[kValueRegisters] = {};
  int copy_ = 0;  // the vector's place in a two-vector trip
};

}  // namespace

std::unique_ptr<Thunk> GenerateAvx512Kernel(const JitRegion& region,
                                            const std::vector<SlotId>& inputs,
                                            const std::vector<SlotId>& outputs) {
  const size_t bytes = 16384 + 2048 * region.ops.size();
  auto emit = [&](bool stream) {
    auto c = std::make_unique<ChainCode>(bytes);
    Avx512Emitter(region, *c, stream).Emit();
    c->readyRE();
    return c;
  };
  return MakeJitKernelThunkFrom(region, emit, inputs, outputs, /*alignment=*/64);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
