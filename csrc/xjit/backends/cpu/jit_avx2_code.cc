#include "xjit/backends/cpu/jit_avx2_code.h"

#if defined(__x86_64__)

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "xjit/backends/cpu/jit_region.h"

namespace xjit::cpu {
namespace {

// Scratch registers each op needs besides its result.
int ScratchOf(Opcode op) {
  switch (op) {
    case Opcode::kRsqrt: return 1;
    case Opcode::kExponential: case Opcode::kLog: return 6;
    case Opcode::kTanh: case Opcode::kErf: return 5;
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

// maximum or minimum of x and a constant c that is not NaN, as scalar_ops.h
// computes them, in one instruction or three: vmaxps(c, x) is c > x ? c : x,
// which gives x for a NaN x and for x == c, right unless the AND (OR) of
// equal bits differs from x: c = +0 for maximum (x = -0 must give +0), -0
// for minimum. For those, x > c ? x : c and NaN x put back by a blend.
void MaxMinWithConstant(Avx2Code& g, Avx2RegisterPool& pool, bool max, const Ymm& d,
                        const Avx2Operand& x, float c, std::vector<int>* temporaries) {
  uint32_t bits;
  std::memcpy(&bits, &c, 4);
  if (bits != (max ? 0u : 0x80000000u)) {
    const Xbyak::Operand& k = g.C(c);
    Ymm first = d;
    if (k.isMEM()) {
      g.vmovups(d, k);
    } else {  // hoisted into a register
      first = Ymm(k.getIdx());
    }
    const Ymm xr(x.memory ? 0 : x.reg);
    const Xbyak::Operand& other = x.memory ? static_cast<const Xbyak::Operand&>(*x.memory)
                                           : static_cast<const Xbyak::Operand&>(xr);
    if (max) {
      g.vmaxps(d, first, other);
    } else {
      g.vminps(d, first, other);
    }
    return;
  }
  Ymm xr(x.reg);
  if (x.memory) {
    xr = Ymm(pool.Take());
    temporaries->push_back(xr.getIdx());
    g.vmovups(xr, *x.memory);
  }
  const Ymm nan(pool.Take());
  temporaries->push_back(nan.getIdx());
  if (max) {
    g.vmaxps(d, xr, g.C(c));
  } else {
    g.vminps(d, xr, g.C(c));
  }
  g.vcmpps(nan, xr, xr, Avx2Code::kUnord);
  g.vblendvps(d, d, xr, nan);
}

}  // namespace

void RoundAvx2To(Avx2Code& g, Avx2RegisterPool& pool, const Ymm& d, DType type) {
  if (type != DType::kBF16 && type != DType::kF16) return;
  const Ymm t(pool.Take()), nan(pool.Take());
  g.RoundTo(d, type, t, nan);
  pool.Free(t.getIdx());
  pool.Free(nan.getIdx());
}

void StoreAvx2Narrow(Avx2Code& g, Avx2RegisterPool& pool, const Xbyak::Address& at, const Ymm& d,
                     DType type, bool streaming) {
  const Ymm t(pool.Take()), high(pool.Take());
  g.StoreNarrow(at, d, type, t, high, streaming);
  pool.Free(t.getIdx());
  pool.Free(high.getIdx());
}

int EmitAvx2Op(Avx2Code& g, Avx2RegisterPool& pool, Opcode op,
               absl::Span<const Avx2Operand> in, const Instruction* instr) {
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
    case Opcode::kMaximum:
    case Opcode::kMinimum: {
      const int k = in[1].constant && !std::isnan(*in[1].constant) ? 1
                    : in[0].constant && !std::isnan(*in[0].constant) ? 0 : -1;
      if (k < 0) {
        std::vector<Ymm> r;
        for (const Avx2Operand& v : in) r.push_back(reg(v));
        Ymm scratch[2] = {Ymm(pool.Take()), Ymm(pool.Take())};
        temporaries.push_back(scratch[0].getIdx());
        temporaries.push_back(scratch[1].getIdx());
        g.MaxMin(d, r[0], r[1], op == Opcode::kMaximum, scratch);
      } else {
        MaxMinWithConstant(g, pool, op == Opcode::kMaximum, d, in[1 - k], *in[k].constant,
                           &temporaries);
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
    // Masks: a pred is all-ones or all-zeros lanes (jit_region.h).
    case Opcode::kCompare: {
      if (instr == nullptr) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
      const DType t = instr->operand(0)->shape().dtype;
      if (!IsJitComparedInt(t)) {
        g.vcmpps(d, reg(in[0]), reg(in[1]), CompareImmediate(*instr));
        break;
      }
      Ymm a = reg(in[0]), b = reg(in[1]);
      if (t == DType::kU32) {  // the sign bit flipped: unsigned order as signed
        const Ymm ua(pool.Take()), ub(pool.Take());
        temporaries.push_back(ua.getIdx());
        temporaries.push_back(ub.getIdx());
        g.vpxor(ua, a, g.Bits(0x80000000u));
        g.vpxor(ub, b, g.Bits(0x80000000u));
        a = ua;
        b = ub;
      }
      // Only == and > exist: the others swap operands or invert.
      const ComparisonDirection dir = instr->attrs<CompareAttrs>().comparison_direction;
      if (dir == ComparisonDirection::kEq || dir == ComparisonDirection::kNe) {
        g.vpcmpeqd(d, a, b);
      } else if (dir == ComparisonDirection::kGt || dir == ComparisonDirection::kLe) {
        g.vpcmpgtd(d, a, b);
      } else {
        g.vpcmpgtd(d, b, a);
      }
      if (dir == ComparisonDirection::kNe || dir == ComparisonDirection::kLe ||
          dir == ComparisonDirection::kGe) {
        g.vpxor(d, d, g.Bits(0xffffffffu));
      }
      break;
    }
    case Opcode::kSelect:  // on true where the mask's sign bits are set
      g.vblendvps(d, reg(in[2]), reg(in[1]), reg(in[0]));
      break;
    case Opcode::kAnd: g.vandps(d, reg(in[0]), reg(in[1])); break;
    case Opcode::kOr: g.vorps(d, reg(in[0]), reg(in[1])); break;
    case Opcode::kXor: g.vxorps(d, reg(in[0]), reg(in[1])); break;
    case Opcode::kNot: g.vxorps(d, reg(in[0]), g.Bits(0xffffffffu)); break;
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestEven: {
      // IEEE roundToIntegral in the op's mode, the inexact exception suppressed
      const uint8_t mode = op == Opcode::kFloor ? 0x09 : op == Opcode::kCeil ? 0x0A : 0x08;
      if (in[0].memory) {
        g.vroundps(d, *in[0].memory, mode);
      } else {
        g.vroundps(d, Ymm(in[0].reg), mode);
      }
      break;
    }
    default: {
      std::vector<Ymm> r;
      for (const Avx2Operand& v : in) r.push_back(reg(v));
      Ymm scratch[8];
      for (int k = 0; k < ScratchOf(op); ++k) {
        scratch[k] = Ymm(pool.Take());
        temporaries.push_back(scratch[k].getIdx());
      }
      switch (op) {
        case Opcode::kRsqrt:
          g.vsqrtps(scratch[0], r[0]);
          g.vmovups(d, g.C(1.0f));
          g.vdivps(d, d, scratch[0]);
          break;
        case Opcode::kExponential: g.Exp(d, r[0], scratch); break;
        case Opcode::kTanh: g.Tanh(d, r[0], scratch); break;
        case Opcode::kErf: g.Erf(d, r[0], scratch); break;
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
