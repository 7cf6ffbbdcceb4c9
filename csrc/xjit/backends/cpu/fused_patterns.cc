#include "xjit/backends/cpu/fused_patterns.h"

#include <cstdint>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/users.h"

namespace xjit::cpu {
namespace {

// Operands of stride 0 (splats) are loaded once, outside the loop, so that
// the loop vectorizes.
XJIT_ISA_CLONES void FmaThroughF64Kernel(const void* const* in, const int64_t* st, void* out,
                                         int64_t begin, int64_t end) {
  const float* __restrict a = static_cast<const float*>(in[0]);
  const float* __restrict b = static_cast<const float*>(in[1]);
  const float* __restrict c = static_cast<const float*>(in[2]);
  float* __restrict y = static_cast<float*>(out);
  const double a0 = a[0], b0 = b[0], c0 = c[0];
  if (st[0] != 0 && st[1] == 0 && st[2] == 0) {
    for (int64_t i = begin; i < end; ++i) y[i] = static_cast<float>(double(a[i]) * b0 + c0);
  } else if (st[0] != 0 && st[1] != 0 && st[2] == 0) {
    for (int64_t i = begin; i < end; ++i) y[i] = static_cast<float>(double(a[i]) * double(b[i]) + c0);
  } else if (st[0] != 0 && st[1] != 0 && st[2] != 0) {
    for (int64_t i = begin; i < end; ++i) {
      y[i] = static_cast<float>(double(a[i]) * double(b[i]) + double(c[i]));
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      const double av = st[0] != 0 ? double(a[i]) : a0, bv = st[1] != 0 ? double(b[i]) : b0;
      const double cv = st[2] != 0 ? double(c[i]) : c0;
      y[i] = static_cast<float>(av * bv + cv);
    }
  }
}

// add(multiply(p, q), r) (kMulLeft) or add(r, multiply(p, q)): two roundings,
// in the ops' own operand order (no contraction: -ffp-contract=off), so the
// result is bit for bit the two ops'. in = {p, q, r}.
template <typename T, bool kMulLeft>
XJIT_ISA_CLONES void MultiplyAddKernel(const void* const* in, const int64_t* st, void* out,
                                       int64_t begin, int64_t end) {
  const T* __restrict p = static_cast<const T*>(in[0]);
  const T* __restrict q = static_cast<const T*>(in[1]);
  const T* __restrict r = static_cast<const T*>(in[2]);
  T* __restrict y = static_cast<T*>(out);
  auto combine = [](T product, T addend) { return kMulLeft ? product + addend : addend + product; };
  if (st[0] != 0 && st[1] == 0 && st[2] == 0) {  // x * a + b: the common affine case
    const T q0 = q[0], r0 = r[0];
    for (int64_t i = begin; i < end; ++i) y[i] = combine(p[i] * q0, r0);
  } else if (st[0] != 0 && st[1] != 0 && st[2] != 0) {
    for (int64_t i = begin; i < end; ++i) y[i] = combine(p[i] * q[i], r[i]);
  } else {
    for (int64_t i = begin; i < end; ++i) {
      y[i] = combine(p[st[0] != 0 ? i : 0] * q[st[1] != 0 ? i : 0], r[st[2] != 0 ? i : 0]);
    }
  }
}

template <typename T>
XJIT_ISA_CLONES void RotateKernel(const void* const* in, const int64_t* st, void* out,
                                  int64_t begin, int64_t end) {
  const T* __restrict x = static_cast<const T*>(in[0]);
  const T* __restrict a = static_cast<const T*>(in[1]);
  const T* __restrict b = static_cast<const T*>(in[2]);
  T* __restrict y = static_cast<T*>(out);
  if (st[0] != 0 && st[1] == 0 && st[2] == 0) {
    const T av = a[0], bv = b[0];
    for (int64_t i = begin; i < end; ++i) {
      y[i] = T(ShiftLeft::Apply(x[i], av) | ShiftRightLogical::Apply(x[i], bv));
    }
    return;
  }
  for (int64_t i = begin; i < end; ++i) {
    const T xv = x[st[0] != 0 ? i : 0];
    y[i] = T(ShiftLeft::Apply(xv, a[st[1] != 0 ? i : 0]) |
             ShiftRightLogical::Apply(xv, b[st[2] != 0 ? i : 0]));
  }
}

bool IsConvert(const Instruction* i, DType from, DType to) {
  return i->opcode() == Opcode::kConvert && i->shape().dtype == to &&
         i->operand(0)->shape().dtype == from;
}

class Matcher {
 public:
  explicit Matcher(const Computation& region) : users_(region) {}

  // `inner` may be folded into a pattern whose next op is `user`.
  bool OnlyFeeds(const Instruction* inner, const Instruction* user) const {
    const std::vector<Instruction*>& u = users_.of(*inner);
    return u.size() == 1 && u[0] == user && !users_.IsResult(*inner);
  }

  bool MatchFma(const Instruction* root, RegionPatterns& out) const {
    if (!IsConvert(root, DType::kF64, DType::kF32)) return false;
    const Instruction* add = root->operand(0);
    if (add->opcode() != Opcode::kAdd || !OnlyFeeds(add, root)) return false;
    for (int side = 0; side < 2; ++side) {
      const Instruction* mul = add->operand(side);
      const Instruction* cc = add->operand(1 - side);
      if (mul->opcode() != Opcode::kMultiply || !OnlyFeeds(mul, add) ||
          !IsConvert(cc, DType::kF32, DType::kF64)) {
        continue;
      }
      const Instruction* ca = mul->operand(0);
      const Instruction* cb = mul->operand(1);
      if (!IsConvert(ca, DType::kF32, DType::kF64) || !IsConvert(cb, DType::kF32, DType::kF64)) {
        continue;
      }
      out.at_root[root] = {&FmaThroughF64Kernel,
                           {ca->operand(0), cb->operand(0), cc->operand(0)}};
      out.absorbed.insert({add, mul});
      // A widening shared with other ops (CSE merges xla_math's repeated
      // convert(x)) still runs for them; the kernel reads its float32 source.
      for (const Instruction* widen : {ca, cb}) {
        if (OnlyFeeds(widen, mul)) out.absorbed.insert(widen);
      }
      if (OnlyFeeds(cc, add)) out.absorbed.insert(cc);
      return true;
    }
    return false;
  }

  bool MatchMultiplyAdd(const Instruction* root, RegionPatterns& out) const {
    if (root->opcode() != Opcode::kAdd) return false;
    const DType t = root->shape().dtype;
    if (t != DType::kF32 && t != DType::kF64) return false;
    for (int side = 0; side < 2; ++side) {
      const Instruction* mul = root->operand(side);
      // add(m, m) reads the product twice: it must be computed, not absorbed.
      if (mul->opcode() != Opcode::kMultiply || root->operand(1 - side) == mul ||
          !OnlyFeeds(mul, root) || out.absorbed.contains(mul) || out.at_root.contains(mul)) {
        continue;
      }
      ElementwiseKernel kernel;
      if (t == DType::kF32) {
        kernel = side == 0 ? &MultiplyAddKernel<float, true> : &MultiplyAddKernel<float, false>;
      } else {
        kernel = side == 0 ? &MultiplyAddKernel<double, true> : &MultiplyAddKernel<double, false>;
      }
      out.at_root[root] = {kernel, {mul->operand(0), mul->operand(1), root->operand(1 - side)}};
      out.absorbed.insert(mul);
      return true;
    }
    return false;
  }

  bool MatchRotate(const Instruction* root, RegionPatterns& out) const {
    if (root->opcode() != Opcode::kOr) return false;
    ElementwiseKernel kernel = nullptr;
    switch (root->shape().dtype) {
      case DType::kU32: kernel = &RotateKernel<uint32_t>; break;
      case DType::kU64: kernel = &RotateKernel<uint64_t>; break;
      case DType::kS32: kernel = &RotateKernel<int32_t>; break;
      case DType::kS64: kernel = &RotateKernel<int64_t>; break;
      default: return false;
    }
    for (int side = 0; side < 2; ++side) {
      const Instruction* left = root->operand(side);
      const Instruction* right = root->operand(1 - side);
      if (left->opcode() != Opcode::kShiftLeft || right->opcode() != Opcode::kShiftRightLogical ||
          left->operand(0) != right->operand(0) || left == right || !OnlyFeeds(left, root) ||
          !OnlyFeeds(right, root)) {
        continue;
      }
      out.at_root[root] = {kernel, {left->operand(0), left->operand(1), right->operand(1)}};
      out.absorbed.insert({left, right});
      return true;
    }
    return false;
  }

 private:
  Users users_;
};

}  // namespace

RegionPatterns FindFusedPatterns(const Computation& region) {
  RegionPatterns patterns;
  Matcher matcher(region);
  for (const auto& instr : region.instructions()) {
    if (!matcher.MatchFma(instr.get(), patterns) && !matcher.MatchRotate(instr.get(), patterns)) {
      matcher.MatchMultiplyAdd(instr.get(), patterns);
    }
  }
  return patterns;
}

}  // namespace xjit::cpu
