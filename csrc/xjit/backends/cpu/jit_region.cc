#include "xjit/backends/cpu/jit_region.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/transpose_tiles.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/ir/half.h"
#include "xjit/ir/row_geometry.h"

namespace xjit::cpu {
namespace {

// A one-element float32, bfloat16 or float16 constant's value.
float ConstantAsFloat(const Instruction& constant) {
  const Literal& bytes = constant.attrs<ConstantAttrs>().value;
  if (constant.shape().dtype == DType::kBF16 || constant.shape().dtype == DType::kF16) {
    uint16_t bits;
    std::memcpy(&bits, bytes.data(), sizeof(bits));
    if (constant.shape().dtype == DType::kF16) return f16::ToFloat(bits);
    return BitsToFloat(uint32_t{bits} << 16);
  }
  float value;
  std::memcpy(&value, bytes.data(), sizeof(value));
  return value;
}

}  // namespace

const Instruction* JitRegion::Root(const Instruction* v) const {
  for (auto it = alias_of.find(v); it != alias_of.end(); it = alias_of.find(v)) v = it->second;
  return v;
}

bool JitCovers(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kNegate: case Opcode::kAbs:
    case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kExponential: case Opcode::kTanh:
    case Opcode::kLog: case Opcode::kLogPlusOne: case Opcode::kLogistic:
    case Opcode::kExponentialMinusOne: case Opcode::kFloor: case Opcode::kCeil:
    case Opcode::kRoundNearestEven: case Opcode::kErf:
      return true;
    default:
      return false;
  }
}

bool MaskOperandsFit(const Instruction& x) {
  const DType t = x.shape().dtype;
  switch (x.opcode()) {
    case Opcode::kCompare: {
      const DType a = x.operand(0)->shape().dtype;
      const ComparisonType c = x.attrs<CompareAttrs>().compare_type;
      if (t != DType::kPred || x.operand(1)->shape().dtype != a) return false;
      if (a == DType::kPred) {  // masks: equal or not (jnp.remainder's sign test)
        const ComparisonDirection d = x.attrs<CompareAttrs>().comparison_direction;
        return d == ComparisonDirection::kEq || d == ComparisonDirection::kNe;
      }
      if (IsJitComparedInt(a)) {
        return c == ComparisonType::kNotype ||
               c == (a == DType::kS32 ? ComparisonType::kSigned : ComparisonType::kUnsigned);
      }
      return JitCarries(a) && (c == ComparisonType::kNotype || c == ComparisonType::kFloat);
    }
    case Opcode::kSelect:  // of floats, or of masks (jnp.isclose's)
      return (JitCarries(t) || t == DType::kPred) && x.operand(0)->shape().dtype == DType::kPred &&
             x.operand(1)->shape().dtype == t && x.operand(2)->shape().dtype == t;
    case Opcode::kIsFinite:  // AVX-512 only
      return t == DType::kPred && JitCarries(x.operand(0)->shape().dtype);
    default:  // and, or, xor, not
      for (const Instruction* o : x.operands()) {
        if (o->shape().dtype != DType::kPred) return false;
      }
      return t == DType::kPred;
  }
}

bool JitCoversInt(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kRemainder: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kNegate:
    case Opcode::kAbs: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
    case Opcode::kNot: case Opcode::kSelect: case Opcode::kSign:
      return true;
    default:
      return false;
  }
}

bool JitCoversMask(Opcode op) {
  switch (op) {
    case Opcode::kCompare: case Opcode::kSelect: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kNot: case Opcode::kIsFinite:
      return true;
    default:
      return false;
  }
}

uint8_t CompareImmediate(const Instruction& compare) {
  switch (compare.attrs<CompareAttrs>().comparison_direction) {
    case ComparisonDirection::kEq: return 0x00;  // EQ_OQ
    case ComparisonDirection::kNe: return 0x04;  // NEQ_UQ
    case ComparisonDirection::kLt: return 0x11;  // LT_OQ
    case ComparisonDirection::kLe: return 0x12;  // LE_OQ
    case ComparisonDirection::kGt: return 0x1E;  // GT_OQ
    case ComparisonDirection::kGe: return 0x1D;  // GE_OQ
  }
  return 0x00;
}

uint8_t IntCompareImmediate(const Instruction& compare) {
  switch (compare.attrs<CompareAttrs>().comparison_direction) {
    case ComparisonDirection::kEq: return 0;
    case ComparisonDirection::kNe: return 4;
    case ComparisonDirection::kLt: return 1;
    case ComparisonDirection::kLe: return 2;
    case ComparisonDirection::kGt: return 6;  // NLE
    case ComparisonDirection::kGe: return 5;  // NLT
  }
  return 0;
}

namespace {

// Whether int op `x`'s operands are of its type (select: a pred, then two).
bool IntOperandsFit(const Instruction& x) {
  const DType t = x.shape().dtype;
  for (size_t i = 0; i < x.operands().size(); ++i) {
    const DType o = x.operand(i)->shape().dtype;
    if (o != (x.opcode() == Opcode::kSelect && i == 0 ? DType::kPred : t)) return false;
  }
  return true;
}

}  // namespace

bool JitCarries(DType t) {
#if defined(__x86_64__)
  static const bool has_f16c = __builtin_cpu_supports("f16c");  // every AVX2 CPU in practice
#else
  constexpr bool has_f16c = false;
#endif
  return t == DType::kF32 || t == DType::kBF16 || (t == DType::kF16 && has_f16c);
}

bool IsJitComparedInt(DType t) { return t == DType::kS32 || t == DType::kU32; }

bool IsJitIntResult(const Instruction& x) {
  const DType t = x.shape().dtype;
  return x.opcode() == Opcode::kConvert && x.operands().size() == 1 &&
         JitCarries(x.operand(0)->shape().dtype) &&
         (t == DType::kS8 || t == DType::kS16 || t == DType::kS32 || t == DType::kU8 ||
          t == DType::kU16 || t == DType::kU32);
}

int64_t JitRegion::ResultBytes() const {
  int64_t bytes = 0;
  for (DType t : result_type) bytes += n * ByteWidth(t);
  return bytes;
}

namespace {

// A broadcast of an m-element input (through reshapes) spread over rows: the
// input's spread and the region's period, which every spread input shares.
// An input already spread another way (tril's row and column numbers, one
// iota after CSE) gets a second kernel input reading the same slot, whose
// value is the broadcast itself (not an alias of the input).
bool AnalyzeSpread(const Instruction& broadcast, int64_t m, JitRegion* region) {
  JitRegion& r = *region;
  const Instruction* input = r.Root(broadcast.operand(0));
  auto number = r.input_number.find(input);
  if (number == r.input_number.end() || input->shape().num_elements() != m) return false;
  JitRegion::InputSpread spread;
  int64_t period;
  if (IsRowInvariantBroadcast(broadcast, m)) {
    spread = JitRegion::InputSpread::kRowInvariant;
    period = m;
  } else if (IsRowBroadcast(broadcast, m, r.n)) {
    spread = JitRegion::InputSpread::kPerRow;
    period = r.n / m;
  } else {
    return false;
  }
  if (r.period != 0 && r.period != period) return false;
  r.period = period;
  int k = number->second;
  const JitRegion::InputSpread was = r.input_spread[k];
  if (was != JitRegion::InputSpread::kNone && was != spread) {
    const int extra = static_cast<int>(r.input_spread.size());
    if (extra >= 64) return false;
    r.input_slot.resize(extra, -1);
    r.input_slot.push_back(k);
    r.input_splat.push_back(false);
    r.input_spread.push_back(JitRegion::InputSpread::kNone);
    r.input_type.push_back(r.input_type[k]);
    r.parameters.push_back(&broadcast);
    r.input_number[&broadcast] = extra;
    k = extra;
  } else {
    r.alias_of[&broadcast] = broadcast.operand(0);
  }
  r.input_spread[k] = spread;
  r.input_splat[k] = spread == JitRegion::InputSpread::kPerRow;
  return true;
}

}  // namespace

bool AnalyzeJitRegion(const Instruction& fusion, size_t num_inputs, JitRegion* region) {
  if (fusion.called_computations().size() != 1) return false;
  const Computation& body = *fusion.called_computations()[0];
  if (body.results().empty() || body.results().size() > 64 || num_inputs > 64) return false;
  JitRegion& r = *region;
  r.n = body.results()[0]->shape().num_elements();
  if (r.n < kMinJitElementsOf16Bit) return false;
  for (size_t j = 0; j < body.results().size(); ++j) {
    const Instruction* x = body.results()[j];
    // Results are floats, int32/uint32, or masks (AVX-512 only: stored as
    // bytes of 0 or 1, jnp.isclose's or x > y's).
    const bool int_op = JitCoversInt(x->opcode()) && IsJitComparedInt(x->shape().dtype);
    const bool mask = x->shape().dtype == DType::kPred;
    if ((!JitCovers(x->opcode()) && x->opcode() != Opcode::kConvert &&
         x->opcode() != Opcode::kSelect && !int_op && !mask) ||
        (mask && !JitCoversMask(x->opcode())) ||
        !r.result_of.emplace(x, static_cast<int>(j)).second) {
      return false;
    }
    r.avx512_only |= mask;
    r.result_type.push_back(x->shape().dtype);
  }
  r.input_splat.assign(num_inputs, false);
  r.input_spread.assign(num_inputs, JitRegion::InputSpread::kNone);
  r.input_type.assign(num_inputs, DType::kF32);
  std::vector<bool> spread_only(num_inputs, false);  // inputs usable only through a spread
  bool has_16_bit = false;
  const auto& instrs = body.instructions();
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instruction* x = instrs[i].get();
    // A pred: computed by a mask op, or an input (AVX-512: bytes widened to lanes).
    const bool mask = x->shape().dtype == DType::kPred;
    const bool int_result = IsJitIntResult(*x) && r.result_of.contains(x);
    // 32-bit integers only as inputs (or spreads of them) that compares read.
    const bool compared_int = IsJitComparedInt(x->shape().dtype) &&
                              (x->opcode() == Opcode::kParameter ||
                               x->opcode() == Opcode::kReshape ||
                               x->opcode() == Opcode::kBroadcastInDim);
    // An op on 32-bit integer lanes (its operands checked below).
    const bool int_value = IsJitComparedInt(x->shape().dtype) && JitCoversInt(x->opcode());
    if (!x->shape().is_array() ||
        (!JitCarries(x->shape().dtype) && !mask && !int_result && !compared_int && !int_value)) {
      return false;
    }
    const int64_t elements = x->shape().num_elements();
    switch (x->opcode()) {
      case Opcode::kParameter: {
        const int64_t number = x->attrs<ParameterAttrs>().number;
        if (number < 0 || number >= static_cast<int64_t>(num_inputs)) return false;
        spread_only[number] = elements != r.n && elements != 1;
        r.input_splat[number] = elements == 1 && r.n != 1;
        // An integer input's lanes are its bits, loaded as float32's are.
        r.input_type[number] = compared_int ? DType::kF32 : x->shape().dtype;
        if (r.input_splat[number] && !mask &&
            number < static_cast<int64_t>(fusion.operands().size())) {
          const Instruction* outer = fusion.operand(number);
          if (outer->opcode() == Opcode::kConstant && outer->shape() == x->shape()) {
            if (!compared_int) {
              r.splat_constant[static_cast<int>(number)] = ConstantAsFloat(*outer);
            } else if (x->shape().dtype == DType::kS32) {
              int32_t value;
              std::memcpy(&value, outer->attrs<ConstantAttrs>().value.data(), sizeof(value));
              r.splat_int_constant[static_cast<int>(number)] = value;
            }
          }
        }
        r.parameters.push_back(x);
        r.input_number[x] = static_cast<int>(number);
        continue;
      }
      case Opcode::kReshape:
        r.alias_of[x] = x->operand(0);
        continue;
      case Opcode::kBroadcastInDim: {
        const int64_t m = x->operand(0)->shape().num_elements();
        if (m == 1) {
          r.alias_of[x] = x->operand(0);
        } else if (!AnalyzeSpread(*x, m, &r)) {
          return false;
        }
        continue;
      }
      default:
        break;
    }
    const bool convert = x->opcode() == Opcode::kConvert;
    // int32/uint32 to float32 (vcvtdq2ps rounds as static_cast<float> does).
    const bool int_to_float = convert && x->shape().dtype == DType::kF32 &&
                              IsJitComparedInt(x->operand(0)->shape().dtype);
    const bool mask_op = JitCoversMask(x->opcode()) && !int_value;
    if ((!JitCovers(x->opcode()) && !convert && !mask_op && !int_value) || elements != r.n) {
      return false;
    }
    if (int_value ? !IntOperandsFit(*x) : (mask_op ? !MaskOperandsFit(*x) : mask)) return false;
    const bool mask_compare = x->opcode() == Opcode::kCompare &&
                              x->operand(0)->shape().dtype == DType::kPred;
    r.avx512_only |= int_value || int_to_float || mask_compare || x->opcode() == Opcode::kIsFinite;
    const size_t position = r.ops.size();
    for (const Instruction* o : x->operands()) {
      const Instruction* v = r.Root(o);
      if (IsJitComparedInt(v->shape().dtype) && x->opcode() != Opcode::kCompare && !int_value &&
          !int_to_float) {
        return false;
      }
      if (!convert && !mask_op && !int_value && v->shape().dtype != x->shape().dtype) return false;
      // A pred of fewer elements only as an input spread over rows.
      if (v->shape().dtype == DType::kPred && v->shape().num_elements() != r.n &&
          v->opcode() != Opcode::kParameter) {
        return false;
      }
      r.last_use[v] = position;
    }
    r.ops.push_back(x);
    r.work += EstimateInstructionWork(*x);
    has_16_bit |= x->shape().dtype == DType::kBF16 || x->shape().dtype == DType::kF16;
  }
  for (DType t : r.input_type) has_16_bit |= t == DType::kBF16 || t == DType::kF16;
  for (const auto& [x, j] : r.result_of) {
    if (IsJitIntResult(*x) && r.Used(x)) return false;  // a converted result read again
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (spread_only[i] && r.input_spread[i] == JitRegion::InputSpread::kNone) return false;
  }
  if (r.period != 0 && r.period < kMinJitPeriod) return false;
  return r.n >= (has_16_bit ? kMinJitElementsOf16Bit : kMinJitElements);
}

bool AnalyzeJitLoneOp(const Instruction& op, JitRegion* region) {
  if (!JitCovers(op.opcode()) || op.shape().dtype != DType::kF32 || !op.shape().is_array()) {
    return false;
  }
  JitRegion& r = *region;
  r.n = op.shape().num_elements();
  if (r.n < kMinJitElements || op.operands().size() > 3) return false;
  for (const Instruction* x : op.operands()) {
    if (!x->shape().is_array() || x->shape().dtype != DType::kF32 ||
        x->shape().num_elements() != r.n) {
      return false;
    }
    if (r.input_number.contains(x)) continue;  // x * x: one input
    r.input_number[x] = static_cast<int>(r.parameters.size());
    r.parameters.push_back(x);
    r.last_use[x] = 0;  // read by the one op
  }
  const size_t inputs = r.parameters.size();
  r.input_splat.assign(inputs, false);
  r.input_spread.assign(inputs, JitRegion::InputSpread::kNone);
  r.input_type.assign(inputs, DType::kF32);
  r.result_type = {DType::kF32};
  r.ops = {&op};
  r.result_of[&op] = 0;
  r.work = EstimateInstructionWork(op);
  return true;
}

namespace {

#if defined(__x86_64__)
constexpr int64_t kChunk = 16 * 1024;  // elements per parallel chunk

class JitKernelThunk : public Thunk {
 public:
  JitKernelThunk(std::unique_ptr<Xbyak::CodeGenerator> code, JitKernelFn fn,
                 const JitRegion& region, std::vector<SlotId> inputs,
                 std::vector<SlotId> outputs,
                 std::unique_ptr<Xbyak::CodeGenerator> streaming_code, JitKernelFn streaming_fn,
                 int alignment)
      : code_(std::move(code)), fn_(fn), inputs_(std::move(inputs)),
        outputs_(std::move(outputs)), n_(region.n),
        streaming_code_(std::move(streaming_code)), streaming_fn_(streaming_fn),
        alignment_(alignment) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      input_step_.push_back(region.input_splat[i] ? 0 : ByteWidth(region.input_type[i]));
      input_width_.push_back(ByteWidth(region.input_type[i]));
      input_offset_.push_back(i < region.input_offset.size() ? region.input_offset[i] : 0);
      input_pitch_.push_back(i < region.input_pitch.size() ? region.input_pitch[i] : 0);
    }
    input_spread_ = region.input_spread;
    period_ = region.period;
    transposed_row_ = region.transposed_row;
    for (DType t : region.result_type) output_step_.push_back(ByteWidth(t));
  }

  void Execute(void* const* buffers) const override {
    const size_t ni = inputs_.size();
    // Chunks start at multiples of kChunk elements: aligned bases stay aligned.
    JitKernelFn fn = fn_;
    // With spread inputs a call starts at a row too: aligned only when rows
    // keep the outputs' alignment.
    bool rows_aligned = true;
    for (int64_t step : output_step_) rows_aligned &= period_ * step % alignment_ == 0;
    if (streaming_fn_ != nullptr && rows_aligned &&
        std::all_of(outputs_.begin(), outputs_.end(),
                    [&](SlotId s) { return StreamingAligned(buffers[s], alignment_); })) {
      fn = streaming_fn_;
    }
    if (transposed_row_ != 0) {
      // Blocks of whole rows: each thread transposes its block's rows of
      // every transposed input into its scratch, which the kernel reads.
      const int64_t block = kTransposedBlockRows * transposed_row_;
      const int64_t num_transposed = std::count(input_spread_.begin(), input_spread_.end(),
                                                JitRegion::InputSpread::kTransposed);
      ParallelFor((n_ + block - 1) / block, 1, n_ * 8, [&](int64_t first, int64_t last) {
        auto* scratch = static_cast<float*>(ThreadScratch(num_transposed * block * 4));
        for (int64_t b = first; b < last; ++b) {
          const int64_t begin = b * block, end = std::min(n_, begin + block);
          const void* staged[64];
          for (size_t i = 0, k = 0; i < ni; ++i) {
            if (input_spread_[i] != JitRegion::InputSpread::kTransposed) continue;
            float* rows = scratch + k++ * block;
            TransposedRows(buffers[inputs_[i]], transposed_row_, input_pitch_[i],
                           begin / transposed_row_, (end - begin) / transposed_row_, rows);
            staged[i] = rows - begin;  // the kernel's input is at staged[i] + at
          }
          RunRange(fn, buffers, begin, end, staged);
        }
      });
      return;
    }
    ParallelFor(n_, kChunk, n_ * 8, [&](int64_t begin, int64_t end) {
      RunRange(fn, buffers, begin, end, nullptr);
    });
  }

 private:
  // Elements [begin, end) in calls of `fn`; `staged`: by input, where the
  // thunk staged a transposed input (indexed by element, as the result).
  void RunRange(JitKernelFn fn, void* const* buffers, int64_t begin, int64_t end,
                const void* const* staged) const {
    const size_t ni = inputs_.size(), no = outputs_.size();
    const void* in[64];
    void* out[64];
    // A call a row (or the chunk's part of one) when inputs are spread.
    for (int64_t at = begin, stop; at < end; at = stop) {
      stop = period_ == 0 ? end : std::min(end, (at / period_ + 1) * period_);
      for (size_t i = 0; i < ni; ++i) {
        const char* base = static_cast<const char*>(buffers[inputs_[i]]);
        switch (input_spread_[i]) {
          case JitRegion::InputSpread::kNone:
            in[i] = base + (input_offset_[i] + at) * input_step_[i];
            break;
          case JitRegion::InputSpread::kPitchedRows:
            in[i] = base + (input_offset_[i] + at / period_ * input_pitch_[i] + at % period_) *
                               input_width_[i];
            break;
          case JitRegion::InputSpread::kRowInvariant:
            in[i] = base + at % period_ * input_width_[i];
            break;
          case JitRegion::InputSpread::kPerRow: in[i] = base + at / period_ * input_width_[i]; break;
          case JitRegion::InputSpread::kReversed: in[i] = base + (n_ - at) * input_width_[i]; break;
          case JitRegion::InputSpread::kReversedRows:  // one past the call's first, in its row
            in[i] = base + (at - at % period_ + period_ - at % period_) * input_width_[i];
            break;
          case JitRegion::InputSpread::kTransposed:
            in[i] = static_cast<const float*>(staged[i]) + at;
            break;
        }
      }
      for (size_t j = 0; j < no; ++j) {
        out[j] = static_cast<char*>(buffers[outputs_[j]]) + at * output_step_[j];
      }
      fn(in, out, stop - at);
    }
  }

  std::unique_ptr<Xbyak::CodeGenerator> code_;
  JitKernelFn fn_;
  std::vector<SlotId> inputs_;
  std::vector<SlotId> outputs_;
  std::vector<int64_t> input_step_, output_step_;  // bytes per element (0: a splat)
  std::vector<int64_t> input_width_;
  std::vector<int64_t> input_offset_, input_pitch_;  // elements: slices read in place
  std::vector<JitRegion::InputSpread> input_spread_;
  int64_t period_ = 0;
  int64_t transposed_row_ = 0;  // elements a row of every kTransposed input
  int64_t n_;
  std::unique_ptr<Xbyak::CodeGenerator> streaming_code_;
  JitKernelFn streaming_fn_;
  int alignment_;
};
#endif

}  // namespace

#if defined(__x86_64__)
bool WritesPastTheCache(const JitRegion& region) {
  return region.ResultBytes() >= StreamingStoreBytes();
}

std::unique_ptr<Thunk> MakeJitKernelThunk(std::unique_ptr<Xbyak::CodeGenerator> code,
                                          JitKernelFn fn, const JitRegion& region,
                                          std::vector<SlotId> inputs,
                                          std::vector<SlotId> outputs,
                                          std::unique_ptr<Xbyak::CodeGenerator> streaming_code,
                                          JitKernelFn streaming_fn, int alignment) {
  return std::make_unique<JitKernelThunk>(std::move(code), fn, region, std::move(inputs),
                                          std::move(outputs), std::move(streaming_code),
                                          streaming_fn, alignment);
}
#endif

}  // namespace xjit::cpu
