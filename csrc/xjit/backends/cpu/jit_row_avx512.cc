// The AVX-512 generator of row fusions (jit_row.h, jit_row_region.h): each
// loop over the row runs 32 elements a trip, two zmm registers of 16 per
// value, so a reduce's two accumulators are reduce.cc's 32 lanes (lane i
// takes elements i, i + 32, ...) and combine as CombineLanes does. The ops
// are jit_avx512_code.h's (every operand in a register): whole rows and row
// buffers are loaded once a trip, per-row values broadcast into registers
// before the loop. Maximum and minimum reduces compare integer keys (Key).
// 16-bit float values as in the element-wise generators: widened on load,
// rounded after each of their ops, narrowed (bfloat16 by vpmovdw, BW;
// float16 by vcvtps2ph). Rows that are not a multiple of 32 end in a tail
// trip under the mask k1 (loads zero-masked, stores masked); a reduce keeps
// its tail's values in two registers and combines them one at a time after
// its lanes, in order, as ReduceRun does.
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"
#include "xjit/backends/cpu/jit_row_region.h"

#if defined(__x86_64__)
#include "xjit/backends/cpu/jit_avx512_code.h"

namespace xjit::cpu {
namespace {

using Xbyak::Zmm;

constexpr int kLanes = ChainCode::kLanes;
constexpr int kCopies = kRowReduceLanes / kLanes;  // registers a value takes in one trip
constexpr int kStep = kRowReduceLanes;             // elements a trip (then a tail)
// Per-row values a loop keeps in registers; more are broadcast where read.
constexpr int kMaxHoisted = 8;

// Emits the row function; throws Xbyak::Error when the region does not fit.
class RowAvx512Generator {
 public:
  // `streaming`: whole-row results are stored non-temporally (jit_region.h).
  RowAvx512Generator(const RowRegion& region, ChainCode& g, bool streaming)
      : r_(region), g_(g), streaming_(streaming) {}

  void Emit();

 private:
  const RowValue& ValueOf(const Instruction* v) const { return r_.ValueOf(v); }
  int Take() {
    for (int r = 0; r < ChainCode::kValueRegisters; ++r) {
      if (!busy_[r]) {
        busy_[r] = true;
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // more live values than registers
  }
  void Free(int r) { busy_[r] = false; }
  void FreeAll() {
    for (bool& b : busy_) b = false;
  }
  void EmitLoop(const std::vector<const Instruction*>& ops, bool first_loop);
  bool Interleaves(const std::vector<const Instruction*>& ops) const;
  void Deinterleave(const Zmm& even, const Zmm& odd);
  void EmitBody(const std::vector<const Instruction*>& ops, int copy, bool assign,
                const absl::flat_hash_map<const Instruction*, int>& accumulator);
  void EmitTail(const std::vector<const Instruction*>& ops,
                const absl::flat_hash_map<const Instruction*, int>& tail_values);
  bool Masked(int copy) const { return masked_copy_ == copy; }
  void Accumulate(const Instruction* x, const Zmm& acc, const Zmm& in, int copy, bool assign);
  void Key(const Zmm& d, const Zmm& x);
  void Combine(Opcode body, const Zmm& d, const Zmm& a, const Zmm& b);
  void EmitReduceEnd(const Instruction* reduce, int first, int tail_first);
  void EmitPerRow(const Instruction* op);
  Zmm Read(const Instruction* v, int copy);
  void StoreRow(const Zmm& d, const Instruction* x, int j, int copy);
  void StoreSlotResult(const Instruction* op, const Zmm& value);

  const RowRegion& r_;
  ChainCode& g_;
  bool streaming_;
  bool interleaved_ = false;  // the current loop's (Interleaves)
  // Elements past the last multiple of 32, and while they are emitted the
  // copy whose lanes k1 masks (-1: none).
  const int tail_ = static_cast<int>(r_.row_size() % kStep);
  int masked_copy_ = -1;
  // In the tail trip, reduces' inputs go to their tail registers.
  const absl::flat_hash_map<const Instruction*, int>* tail_values_ = nullptr;
  bool busy_[ChainCode::kValueRegisters] = {};
  absl::flat_hash_map<const Instruction*, int> reg_;  // values in registers in this body
  absl::flat_hash_map<const Instruction*, size_t> last_use_;  // in the current loop's ops
  absl::flat_hash_map<int64_t, int> hoisted_;  // slot -> register, for the current loop
  // Maximum and minimum reduces accumulating keys: their first NaN mask
  // (k4 or k6; the next is the second copy's).
  absl::flat_hash_map<const Instruction*, int> nan_mask_;
  std::vector<Xbyak::Reg64> input_gpr_;  // per fusion operand (whole-row and invariant)
};

// v in copy `copy` of the trip, in a register: its own (computed in this
// body, or loaded for an earlier op), a hoisted per-row value's, or a new
// one loaded here (freed after v's last use in the loop).
Zmm RowAvx512Generator::Read(const Instruction* v, int copy) {
  using namespace Xbyak::util;
  const Instruction* root = r_.Root(v);
  if (auto it = reg_.find(root); it != reg_.end()) return Zmm(it->second);
  const RowValue& value = ValueOf(v);
  if (value.kind == RowValue::Kind::kSlot) {
    if (auto it = hoisted_.find(value.slot); it != hoisted_.end()) return Zmm(it->second);
  }
  const Zmm t(Take());
  switch (value.kind) {
    case RowValue::Kind::kWholeInput:
    case RowValue::Kind::kInvariantInput:
    case RowValue::Kind::kRowsInput:
      if (v->shape().dtype == DType::kPred) {  // bytes of 0 or 1 -> all-zeros or all-ones lanes
        const Xbyak::Address bytes = g_.xword[input_gpr_[value.operand] + rax + 16 * copy];
        if (Masked(copy)) {
          g_.vpmovzxbd(t | g_.k1 | g_.T_z, bytes);
        } else {
          g_.vpmovzxbd(t, bytes);
        }
        g_.vpslld(t, t, 31);
        g_.vpsrad(t, t, 31);
      } else if (Masked(copy)) {  // the tail: lanes past the row read as zeros
        const Xbyak::Reg64& row = input_gpr_[value.operand];
        if (v->shape().dtype == DType::kBF16) {
          g_.vpmovzxwd(t | g_.k1 | g_.T_z, g_.yword[row + rax * 2 + 32 * copy]);
          g_.vpslld(t, t, 16);
        } else if (v->shape().dtype == DType::kF16) {
          g_.vcvtph2ps(t | g_.k1 | g_.T_z, g_.yword[row + rax * 2 + 32 * copy]);
        } else {
          g_.vmovups(t | g_.k1 | g_.T_z, g_.zword[row + rax * 4 + 64 * copy]);
        }
      } else if (v->shape().dtype == DType::kBF16 && interleaved_) {
        const Xbyak::Address row = g_.zword[input_gpr_[value.operand] + rax * 2];
        if (copy == 0) {
          g_.vpslld(t, row, 16);  // the even elements
        } else {
          g_.vmovdqu32(t, row);
          g_.vpandd(t, t, g_.Bits(0xffff0000u));  // the odd ones
        }
      } else if (v->shape().dtype == DType::kBF16) {
        g_.vpmovzxwd(t, g_.yword[input_gpr_[value.operand] + rax * 2 + 32 * copy]);
        g_.vpslld(t, t, 16);
      } else if (v->shape().dtype == DType::kF16) {
        g_.vcvtph2ps(t, g_.yword[input_gpr_[value.operand] + rax * 2 + 32 * copy]);
      } else {
        g_.vmovups(t, g_.zword[input_gpr_[value.operand] + rax * 4 + 64 * copy]);
      }
      break;
    case RowValue::Kind::kSlot:
      g_.vbroadcastss(t, g_.dword[rdx + value.slot]);
      break;
    case RowValue::Kind::kWhole: {
      const int64_t buffer = r_.BufferOf(v);
      if (buffer < 0) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // not kept: a bug
      if (Masked(copy)) {
        g_.vmovups(t | g_.k1 | g_.T_z, g_.zword[rdx + rax * 4 + (buffer + 64 * copy)]);
      } else {
        g_.vmovups(t, g_.zword[rdx + rax * 4 + (buffer + 64 * copy)]);
      }
      break;
    }
  }
  reg_[root] = t.getIdx();
  return t;
}

// Whole-row result j's 16 elements of this copy (bfloat16: the top halves).
void RowAvx512Generator::StoreRow(const Zmm& d, const Instruction* x, int j, int copy) {
  using namespace Xbyak::util;
  g_.mov(r10, g_.qword[rsi + 8 * j]);
  if (Masked(copy)) {  // the tail's lanes only (no streaming store takes a mask)
    if (x->shape().dtype == DType::kBF16) {
      const Zmm t(31);
      g_.vpsrld(t, d, 16);
      g_.vpmovdw(g_.yword[r10 + rax * 2 + 32 * copy] | g_.k1, t);
    } else if (x->shape().dtype == DType::kF16) {
      g_.vcvtps2ph(g_.yword[r10 + rax * 2 + 32 * copy] | g_.k1, d, 0);
    } else {
      g_.vmovups(g_.zword[r10 + rax * 4 + 64 * copy] | g_.k1, d);
    }
    return;
  }
  if (x->shape().dtype == DType::kBF16) {
    const Zmm t(31);
    g_.vpsrld(t, d, 16);
    if (streaming_) {
      g_.vpmovdw(Xbyak::Ymm(31), t);
      g_.vmovntdq(g_.yword[r10 + rax * 2 + 32 * copy], Xbyak::Ymm(31));
    } else {
      g_.vpmovdw(g_.yword[r10 + rax * 2 + 32 * copy], t);
    }
  } else if (x->shape().dtype == DType::kF16) {  // exact: d is rounded already
    if (streaming_) {
      g_.vcvtps2ph(Xbyak::Ymm(31), d, 0);
      g_.vmovntdq(g_.yword[r10 + rax * 2 + 32 * copy], Xbyak::Ymm(31));
    } else {
      g_.vcvtps2ph(g_.yword[r10 + rax * 2 + 32 * copy], d, 0);
    }
  } else if (streaming_) {
    g_.vmovntps(g_.zword[r10 + rax * 4 + 64 * copy], d);
  } else {
    g_.vmovups(g_.zword[r10 + rax * 4 + 64 * copy], d);
  }
}

// A per-row value into its slot (the float32 form, lane 0) and, when it is
// a result, its one element: a bfloat16 one is the top half of lane 0.
void RowAvx512Generator::StoreSlotResult(const Instruction* op, const Zmm& value) {
  using namespace Xbyak::util;
  const Xbyak::Xmm x(value.getIdx());
  g_.vmovss(g_.dword[rdx + ValueOf(op).slot], x);
  if (const int j = r_.ResultOf(op); j >= 0) {
    g_.mov(r10, g_.qword[rsi + 8 * j]);
    if (op->shape().dtype == DType::kBF16) {
      g_.vpextrw(g_.word[r10], x, 1);
    } else if (op->shape().dtype == DType::kF16) {
      g_.vcvtps2ph(Xbyak::Xmm(31), x, 0);
      g_.vpextrw(g_.word[r10], Xbyak::Xmm(31), 0);
    } else {
      g_.vmovss(g_.dword[r10], x);
    }
  }
}

void RowAvx512Generator::EmitPerRow(const Instruction* op) {
  using namespace Xbyak::util;
  FreeAll();
  std::vector<Zmm> in;
  for (const Instruction* o : op->operands()) {  // per-row values and splats: slots
    in.emplace_back(Take());
    g_.vbroadcastss(in.back(), g_.dword[rdx + ValueOf(o).slot]);
  }
  const Zmm d(Take());
  g_.Op(*op, d, in);
  StoreSlotResult(op, d);
  FreeAll();
}

// Maximum and minimum reduces (two a loop: the mask registers) accumulate
// keys: a float's bits with the 31 below the sign inverted when the sign is
// set, which compare as signed integers as the floats do, -0 below +0. One
// vpmaxsd (latency 1, where MaxMinInto chains a compare and two selects)
// then gives what the exact selects give in any order: they AND (max) or OR
// (min) equal values' bits, the larger (smaller) of +0 and -0. Each lane's
// NaNs are flagged in a mask (a NaN wins) and put back after the loop. A
// key's key is the float: d = x ^ ((x >> 31, arithmetic) & 0x7fffffff).
void RowAvx512Generator::Key(const Zmm& d, const Zmm& x) {
  g_.vpsrad(d, x, 31);
  g_.vpternlogd(d, x, g_.Bits(0x7fffffffu), 0x6C);  // x ^ (d & c)
}

// acc (x's accumulator for copy `copy`) combined with in, as the
// interpreter's ReduceRun (its first 32 elements set the lanes).
void RowAvx512Generator::Accumulate(const Instruction* x, const Zmm& acc, const Zmm& in, int copy,
                                    bool assign) {
  const ReduceInfo& reduce = *r_.Reduce(x);
  const bool max = reduce.body == Opcode::kMaximum;
  if (auto it = nan_mask_.find(x); it != nan_mask_.end()) {
    const Xbyak::Opmask nan(it->second + copy);
    if (assign) {
      g_.vcmpps(nan, in, in, ChainCode::kUnord);
      Key(acc, in);
      return;
    }
    const Zmm key(31);
    g_.vcmpps(g_.k2, in, in, ChainCode::kUnord);
    g_.korw(nan, nan, g_.k2);
    Key(key, in);
    max ? g_.vpmaxsd(acc, acc, key) : g_.vpminsd(acc, acc, key);
    return;
  }
  if (assign) {
    g_.vmovaps(acc, in);
    return;
  }
  switch (reduce.body) {
    case Opcode::kAdd: g_.vaddps(acc, acc, in); break;
    case Opcode::kMultiply: g_.vmulps(acc, acc, in); break;
    default: g_.MaxMinInto(acc, in, max); break;
  }
}

void RowAvx512Generator::EmitBody(const std::vector<const Instruction*>& ops, int copy,
                                  bool assign,
                                  const absl::flat_hash_map<const Instruction*, int>& accumulator) {
  reg_.clear();
  for (size_t i = 0; i < ops.size(); ++i) {
    const Instruction* x = ops[i];
    if (const ReduceInfo* reduce = r_.Reduce(x)) {
      if (tail_values_ != nullptr) {  // kept for EmitReduceEnd, lane by lane
        g_.vmovaps(Zmm(tail_values_->at(x) + copy), Read(reduce->input, copy));
      } else {
        Accumulate(x, Zmm(accumulator.at(x) + copy), Read(reduce->input, copy), copy, assign);
      }
    } else {
      std::vector<Zmm> in;
      for (const Instruction* o : x->operands()) in.push_back(Read(o, copy));
      const Zmm d(Take());
      g_.Op(*x, d, in);
      if (const int j = r_.ResultOf(x); j >= 0) StoreRow(d, x, j, copy);
      if (const int64_t buffer = ValueOf(x).buffer; buffer >= 0) {
        if (Masked(copy)) {
          g_.vmovups(g_.zword[g_.rdx + g_.rax * 4 + (buffer + 64 * copy)] | g_.k1, d);
        } else {
          g_.vmovups(g_.zword[g_.rdx + g_.rax * 4 + (buffer + 64 * copy)], d);
        }
      }
      if (last_use_.contains(x)) {
        reg_[x] = d.getIdx();
      } else {
        Free(d.getIdx());
      }
    }
    // Operands read for the last time.
    for (const Instruction* operand : x->operands()) {
      const Instruction* o = r_.Root(operand);
      auto it = reg_.find(o);
      if (it != reg_.end() && last_use_.at(o) == i) {
        Free(it->second);
        reg_.erase(it);
      }
    }
  }
}

void RowAvx512Generator::Combine(Opcode body, const Zmm& d, const Zmm& a, const Zmm& b) {
  switch (body) {
    case Opcode::kAdd: g_.vaddps(d, a, b); break;
    case Opcode::kMultiply: g_.vmulps(d, a, b); break;
    default: g_.MaxMin(d, a, b, body == Opcode::kMaximum); break;
  }
}

// After the loop: the 32 lanes (accumulators `first`: lanes 0-15, `first`
// + 1: lanes 16-31) combined as a tree into init, in CombineLanes' order:
// lanes i, 8 + i, 16 + i, 24 + i as (l[i] op l[8+i]) op (l[16+i] op
// l[24+i]), then halves, pairs and neighbours of those 8. Each step's op is
// commutative, so lane 0 ends with the whole.
void RowAvx512Generator::EmitReduceEnd(const Instruction* reduce, int first, int tail_first) {
  using namespace Xbyak::util;
  const ReduceInfo& info = *r_.Reduce(reduce);
  const Zmm a(first), b(first + 1), t(Take()), u(Take()), v(Take()), w(Take());
  g_.vshuff64x2(t, a, a, 0x4E);  // the 256-bit halves swapped
  Combine(info.body, u, a, t);
  g_.vshuff64x2(t, b, b, 0x4E);
  Combine(info.body, v, b, t);
  Combine(info.body, w, u, v);
  g_.vshuff32x4(t, w, w, 0xB1);  // the 128-bit halves of each 256 swapped
  Combine(info.body, u, w, t);
  g_.vpermilps(t, u, 0x4E);  // pairs
  Combine(info.body, v, u, t);
  g_.vpermilps(t, v, 0xB1);  // neighbours
  Combine(info.body, w, v, t);
  g_.vbroadcastss(t, g_.dword[rdx + ValueOf(info.init).slot]);
  Combine(info.body, u, t, w);
  // The tail's elements after the lanes, one at a time (lane 0 of u).
  for (int l = 0; l < tail_; ++l) {
    const Zmm values(tail_first + l / kLanes);
    if (l % kLanes == 0) {
      Combine(info.body, w, u, values);
    } else {
      g_.valignd(v, values, values, l % kLanes);  // element l in lane 0
      Combine(info.body, w, u, v);
    }
    g_.vmovaps(u, w);
  }
  g_.RoundTo(u, reduce->shape().dtype);
  StoreSlotResult(reduce, u);
  for (const Zmm& r : {t, u, v, w}) Free(r.getIdx());
}

// Whether a loop reads its bfloat16 rows interleaved: one 64-byte load a
// trip, its even elements (the low halves, shifted up) as copy 0 and its odd
// ones (the high halves, masked) as copy 1, where vpmovzxwd took two loads
// and two shuffles (reduce_sum_bf16_4m: 51 -> 44 us in a C++ loop).
// Lane-wise work cannot tell the order; the reduces put their lanes back
// (Deinterleave) before they combine. Only where every value the loop reads
// is such a row, a per-row value or one of its own results, no row leaves
// the loop (results, row buffers), and the reduces add or multiply (maximum
// and minimum keep per-lane NaN masks).
bool RowAvx512Generator::Interleaves(const std::vector<const Instruction*>& ops) const {
  if (tail_ != 0) return false;  // the tail's lanes are in order
  absl::flat_hash_set<const Instruction*> in_loop(ops.begin(), ops.end());
  bool any_row = false;
  auto readable = [&](const Instruction* v) {
    if (in_loop.contains(r_.Root(v))) return true;
    switch (ValueOf(v).kind) {
      case RowValue::Kind::kSlot: return true;
      case RowValue::Kind::kWholeInput:
      case RowValue::Kind::kInvariantInput:
      case RowValue::Kind::kRowsInput:
        any_row = true;
        return v->shape().dtype == DType::kBF16;
      case RowValue::Kind::kWhole: return false;  // an earlier loop's row buffer
    }
    return false;
  };
  for (const Instruction* x : ops) {
    if (const ReduceInfo* reduce = r_.Reduce(x)) {
      if (reduce->body != Opcode::kAdd && reduce->body != Opcode::kMultiply) return false;
      if (!readable(reduce->input)) return false;
      continue;
    }
    if (r_.ResultOf(x) >= 0 || ValueOf(x).buffer >= 0) return false;
    for (const Instruction* o : x->operands()) {
      if (!readable(o)) return false;
    }
  }
  return any_row;
}

// An interleaved loop's accumulators back in lane order: `even` holds lanes
// 0, 2, .., 30 and `odd` lanes 1, 3, .., 31; afterwards `even` holds 0-15
// and `odd` 16-31. Per 128-bit block j, unpcklps gives lanes 8j..8j+3 and
// unpckhps 8j+4..8j+7; the block shuffles put those blocks in order.
void RowAvx512Generator::Deinterleave(const Zmm& even, const Zmm& odd) {
  const Zmm lo(Take()), hi(Take());
  g_.vunpcklps(lo, even, odd);
  g_.vunpckhps(hi, even, odd);
  g_.vshuff32x4(even, lo, hi, 0x44);  // lo0 lo1 hi0 hi1
  g_.vshuff32x4(even, even, even, 0xD8);  // lo0 hi0 lo1 hi1
  g_.vshuff32x4(odd, lo, hi, 0xEE);  // lo2 lo3 hi2 hi3
  g_.vshuff32x4(odd, odd, odd, 0xD8);  // lo2 hi2 lo3 hi3
  Free(lo.getIdx());
  Free(hi.getIdx());
}

void RowAvx512Generator::EmitLoop(const std::vector<const Instruction*>& ops, bool first_loop) {
  using namespace Xbyak::util;
  interleaved_ = Interleaves(ops);
  last_use_ = r_.LastUses(ops);
  FreeAll();
  // Two accumulators per reduce, held across the loop.
  absl::flat_hash_map<const Instruction*, int> accumulator, tail_values;
  for (const Instruction* x : ops) {
    if (!r_.Reduce(x)) continue;
    accumulator[x] = Take();
    if (Take() != accumulator[x] + 1) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    if (tail_ == 0) continue;
    tail_values[x] = Take();
    if (Take() != tail_values[x] + 1) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
  }
  nan_mask_.clear();
  int next_mask = 4;  // k4..k7 (k2 and k3 are ChainCode's)
  for (const Instruction* x : ops) {
    const ReduceInfo* reduce = r_.Reduce(x);
    if (reduce && (reduce->body == Opcode::kMaximum || reduce->body == Opcode::kMinimum) &&
        next_mask + kCopies <= 8) {
      nan_mask_[x] = next_mask;
      next_mask += kCopies;
    }
  }
  // Per-row values the loop reads: the same in every trip.
  hoisted_.clear();
  for (const Instruction* x : ops) {
    if (r_.Reduce(x)) continue;  // reads a whole row (its init only after the loop)
    for (const Instruction* o : x->operands()) {
      const RowValue& v = ValueOf(o);
      if (v.kind != RowValue::Kind::kSlot || hoisted_.contains(v.slot) ||
          hoisted_.size() >= static_cast<size_t>(kMaxHoisted)) {
        continue;
      }
      hoisted_[v.slot] = Take();
      g_.vbroadcastss(Zmm(hoisted_[v.slot]), g_.dword[rdx + v.slot]);
    }
  }
  g_.xor_(eax, eax);
  if (!accumulator.empty()) {  // the first 32 elements set the lanes (ReduceRun's first step)
    for (int c = 0; c < kCopies; ++c) EmitBody(ops, c, true, accumulator);
    g_.mov(eax, kStep);
  }
  // Rows hold at least 64 elements: every loop runs at least once.
  Xbyak::Label loop;
  g_.L(loop);
  for (int c = 0; c < kCopies; ++c) EmitBody(ops, c, false, accumulator);
  if (first_loop) {
    // The next row of each whole-row input, a trip's worth ahead: a row
    // starts a new page, where the hardware prefetcher starts over.
    for (size_t i = 0; i < r_.num_inputs(); ++i) {
      if (r_.input_kind(i) != RowValue::Kind::kWholeInput) continue;
      const int width = r_.input_width(i);
      for (int line = 0; line < kStep * width; line += 64) {
        g_.prefetcht0(g_.ptr[input_gpr_[i] + rax * width + (width * r_.row_size() + line)]);
      }
    }
  }
  g_.add(rax, kStep);
  g_.cmp(rax, r_.row_size() - tail_);
  g_.jl(loop, Xbyak::CodeGenerator::T_NEAR);
  if (tail_ != 0) EmitTail(ops, tail_values);
  for (const auto& [slot, reg] : hoisted_) Free(reg);
  hoisted_.clear();
  for (const auto& [reduce, mask] : nan_mask_) {  // keys back to floats; NaN where flagged
    for (int c = 0; c < kCopies; ++c) {
      const Zmm acc(accumulator.at(reduce) + c), sign(31);
      g_.vpsrad(sign, acc, 31);
      g_.vpternlogd(acc, sign, g_.Bits(0x7fffffffu), 0x78);  // acc ^ (sign & c)
      g_.vbroadcastss(acc | Xbyak::Opmask(mask + c), g_.Scalar(__builtin_nanf("")));
    }
  }
  if (interleaved_) {
    for (const auto& [reduce, first] : accumulator) Deinterleave(Zmm(first), Zmm(first + 1));
  }
  for (const auto& [reduce, first] : accumulator) {
    EmitReduceEnd(reduce, first, tail_ != 0 ? tail_values.at(reduce) : -1);
  }
  interleaved_ = false;
}

// The last tail_ elements of the row (rax at the last multiple of 32): copy 0
// under k1 when they fit it, else copy 0 whole and copy 1 under k1.
void RowAvx512Generator::EmitTail(const std::vector<const Instruction*>& ops,
                                  const absl::flat_hash_map<const Instruction*, int>& tail_values) {
  const int masked = tail_ <= kLanes ? 0 : 1;
  const int lanes = tail_ - masked * kLanes;
  g_.mov(g_.r10d, (1u << lanes) - 1);
  g_.kmovw(g_.k1, g_.r10d);
  tail_values_ = &tail_values;
  masked_copy_ = masked;
  for (int c = 0; c <= masked; ++c) EmitBody(ops, c, false, {});
  masked_copy_ = -1;
  tail_values_ = nullptr;
}

void RowAvx512Generator::Emit() {
  using namespace Xbyak::util;
  input_gpr_ = EmitRowPrologue(r_, g_);
  g_.mov(r11, reinterpret_cast<size_t>(g_.table()));
  Xbyak::Label row;
  g_.L(row);
  EmitRowStart(r_, g_, input_gpr_);
  // This row's per-row inputs and the splats, into their slots (bfloat16
  // widened: the float32 of the same value).
  for (const Instruction* p : r_.computation().parameters()) {
    const RowValue& v = ValueOf(p);
    if (v.kind != RowValue::Kind::kSlot) continue;
    g_.mov(r10, g_.qword[rdi + 8 * v.operand]);
    g_.BroadcastElement(Zmm(31), r10, p->shape().dtype);
    g_.vmovss(g_.dword[rdx + v.slot], Xbyak::Xmm(31));
  }
  bool looped = false;
  for (int stage = 0; stage <= r_.max_stage() + 1; ++stage) {
    // Per-row values known before this loop, then the loop's whole-row ops
    // and the reduces of them.
    for (const Instruction* x : r_.PerRowOps(stage)) EmitPerRow(x);
    const std::vector<const Instruction*> ops =
        stage <= r_.max_stage() ? r_.LoopOps(stage) : std::vector<const Instruction*>{};
    if (!ops.empty()) {
      EmitLoop(ops, !looped);
      looped = true;
    }
  }
  EmitRowAdvance(r_, g_, row);
  if (streaming_) g_.sfence();  // the rows' stores reach memory before the thunk returns
  EmitRowEpilogue(g_);
  g_.vzeroupper();
  g_.ret();
  g_.EmitColdPaths();
}

}  // namespace

std::unique_ptr<Thunk> GenerateAvx512RowKernel(const RowRegion& region,
                                               const std::vector<SlotId>& inputs,
                                               const std::vector<SlotId>& outputs) {
  auto emit = [&](bool stream) {
    auto c = std::make_unique<ChainCode>(64 * 1024);
    RowAvx512Generator(region, *c, stream).Emit();
    c->readyRE();
    return c;
  };
  return MakeRowKernelThunkFrom(region, emit, /*alignment=*/64, inputs, outputs);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
