#include "xjit/backends/cpu/jit_avx2_code.h"

#if defined(__x86_64__)

#include <utility>
#include <vector>

namespace xjit::cpu {
namespace {

// Scratch registers each op needs besides its result.
int ScratchOf(Opcode op) {
  switch (op) {
    case Opcode::kMaximum: case Opcode::kMinimum: return 2;
    case Opcode::kRsqrt: return 1;
    case Opcode::kExponential: case Opcode::kLog: return 6;
    case Opcode::kTanh: return 5;
    case Opcode::kLogistic: return 7;
    case Opcode::kLogPlusOne: case Opcode::kExponentialMinusOne: return 8;
    default: return 0;
  }
}

void Arithmetic(Avx2Code& g, Opcode op, const Ymm& d, const Ymm& a, const Xbyak::Operand& b) {
  switch (op) {
    case Opcode::kAdd: g.vaddps(d, a, b); break;
    case Opcode::kSubtract: g.vsubps(d, a, b); break;
    case Opcode::kMultiply: g.vmulps(d, a, b); break;
    default: g.vdivps(d, a, b); break;
  }
}

}  // namespace

int EmitAvx2Op(Avx2Code& g, Avx2RegisterPool& pool, Opcode op,
               absl::Span<const Avx2Operand> in) {
  const Ymm d(pool.Take());
  std::vector<int> temporaries;
  // An operand as a register (one in memory loaded into a temporary).
  auto reg = [&](const Avx2Operand& v) {
    if (!v.memory) return Ymm(v.reg);
    const int t = pool.Take();
    temporaries.push_back(t);
    g.vmovups(Ymm(t), *v.memory);
    return Ymm(t);
  };
  switch (op) {
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide: {
      const Avx2Operand *a = &in[0], *b = &in[1];
      const bool commutes = op == Opcode::kAdd || op == Opcode::kMultiply;
      if (commutes && a->memory && !b->memory) std::swap(a, b);
      Ymm first = d;
      if (a->memory) {
        g.vmovups(d, *a->memory);
      } else {
        first = Ymm(a->reg);
      }
      if (b->memory) {
        Arithmetic(g, op, d, first, *b->memory);
      } else {
        Arithmetic(g, op, d, first, Ymm(b->reg));
      }
      break;
    }
    case Opcode::kNegate:
    case Opcode::kAbs: {
      Ymm a = d;
      if (in[0].memory) {
        g.vmovups(d, *in[0].memory);
      } else {
        a = Ymm(in[0].reg);
      }
      if (op == Opcode::kNegate) {
        g.vxorps(d, a, g.Bits(0x80000000u));
      } else {
        g.vandps(d, a, g.Bits(0x7fffffffu));
      }
      break;
    }
    case Opcode::kSqrt:
      if (in[0].memory) {
        g.vsqrtps(d, *in[0].memory);
      } else {
        g.vsqrtps(d, Ymm(in[0].reg));
      }
      break;
    default: {
      std::vector<Ymm> r;
      for (const Avx2Operand& v : in) r.push_back(reg(v));
      Ymm scratch[8];
      for (int k = 0; k < ScratchOf(op); ++k) {
        scratch[k] = Ymm(pool.Take());
        temporaries.push_back(scratch[k].getIdx());
      }
      switch (op) {
        case Opcode::kMaximum: g.MaxMin(d, r[0], r[1], true, scratch); break;
        case Opcode::kMinimum: g.MaxMin(d, r[0], r[1], false, scratch); break;
        case Opcode::kRsqrt:
          g.vsqrtps(scratch[0], r[0]);
          g.vmovups(d, g.C(1.0f));
          g.vdivps(d, d, scratch[0]);
          break;
        case Opcode::kExponential: g.Exp(d, r[0], scratch); break;
        case Opcode::kTanh: g.Tanh(d, r[0], scratch); break;
        case Opcode::kLog: g.Log(d, r[0], scratch); break;
        case Opcode::kLogPlusOne: g.Log1p(d, r[0], scratch); break;
        case Opcode::kLogistic: g.Logistic(d, r[0], scratch); break;
        case Opcode::kExponentialMinusOne: g.Expm1(d, r[0], scratch); break;
        default: throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // not covered
      }
    }
  }
  for (int t : temporaries) pool.Free(t);
  return d.getIdx();
}

}  // namespace xjit::cpu

#endif  // __x86_64__
