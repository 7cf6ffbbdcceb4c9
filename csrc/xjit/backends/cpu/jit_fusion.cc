#include "xjit/backends/cpu/jit_fusion.h"

#include <atomic>
#include <fstream>
#include <string>

#include "xjit/backends/cpu/jit_region.h"

namespace xjit::cpu {
namespace {

std::atomic<bool> jit_enabled{true};
std::atomic<JitIsa> jit_isa{JitIsa::kAuto};
std::atomic<int64_t> kernels_generated{0}, streaming_kernels{0};
std::atomic<int64_t> streaming_store_bytes{-1};

// The size of the last-level cache a core shares, from sysfs (as lscpu reads
// it): glibc's sysconf adds up every L3 of the package on some AMD parts (256
// MiB on the 32 MiB EPYC here). 32 MiB where the system does not say.
int64_t LastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int64_t best_level = 0, size = int64_t{32} << 20;
    for (int index = 0; index < 8; ++index) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
      int64_t level = 0, kib = 0;
      std::string unit;
      if (!(level_file >> level) || !(size_file >> kib >> unit) || unit != "K") continue;
      if (level > best_level) best_level = level, size = kib << 10;
    }
    return size;
  }();
  return bytes;
}

}  // namespace

void SetStreamingStoreBytes(int64_t bytes) { streaming_store_bytes = bytes; }

int64_t StreamingStoreBytes() {
  const int64_t bytes = streaming_store_bytes;
  // Past half the cache: results of half the cache, with inputs of their
  // size, still fit it and are read from it by the next call (x * 2 + 1 on
  // 4M float32, a 16 MiB result in 32 MiB: 345 us cached, 430 streamed).
  return bytes >= 0 ? bytes : LastLevelCacheBytes() / 2 + 1;
}

int64_t NumStreamingJitKernels() { return streaming_kernels; }

void CountStreamingJitKernel() { ++streaming_kernels; }

void SetFusionJitEnabled(bool enabled) { jit_enabled = enabled; }

bool FusionJitEnabled() { return jit_enabled; }

void SetFusionJitIsa(JitIsa isa) { jit_isa = isa; }

JitIsa FusionJitIsa() { return jit_isa; }

int64_t NumJitFusionKernels() { return kernels_generated; }

void CountJitKernel() { ++kernels_generated; }

namespace {

#if defined(__x86_64__)
// The generator for this CPU, run on an analysed region.
std::unique_ptr<Thunk> Generate(const JitRegion& region, const std::vector<SlotId>& inputs,
                                const std::vector<SlotId>& outputs, int64_t* work) {
  const bool has_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          jit_isa == JitIsa::kAuto;
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  std::unique_ptr<Thunk> thunk =
      has_avx512 ? GenerateAvx512Kernel(region, inputs, outputs) : nullptr;
  // Regions that overflow the AVX-512 generator's registers take AVX2.
  if (thunk == nullptr && has_avx2) thunk = GenerateAvx2Kernel(region, inputs, outputs);
  if (thunk == nullptr) return nullptr;
  *work = region.work;
  ++kernels_generated;
  return thunk;
}

bool Available() {
  static const bool has_isa = __builtin_cpu_supports("avx512f") ||
                              (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  return jit_enabled && has_isa;
}
#endif

// Applies `reads` (by operand position; `operands` the op's or fusion's) to
// the region's inputs; false when the generated kernel cannot read one so.
bool ApplyOperandReads(const std::vector<const Instruction*>& operands,
                       const std::vector<OperandRead>& reads, JitRegion& region) {
  using Spread = JitRegion::InputSpread;
  const size_t n = region.input_spread.size();
  for (size_t i = 0; i < reads.size() && i < operands.size(); ++i) {
    const OperandRead& read = reads[i];
    if (read.kind == OperandRead::Kind::kDirect) continue;
    // Which input reads operand i: the same index in a fusion, the operand's
    // number in a lone op.
    size_t input = i;
    if (auto it = region.input_number.find(operands[i]); it != region.input_number.end()) {
      input = static_cast<size_t>(it->second);
    }
    if (input >= n || region.input_splat[input] || region.input_spread[input] != Spread::kNone) {
      return false;
    }
    auto takes_rows = [&](int64_t row) {
      if (row < kMinJitPeriod || (region.period != 0 && region.period != row)) return false;
      region.period = row;
      return true;
    };
    switch (read.kind) {
      case OperandRead::Kind::kDirect:
        break;
      case OperandRead::Kind::kReversed:
        if (region.input_type[input] != DType::kF32) return false;
        region.input_spread[input] = Spread::kReversed;
        break;
      case OperandRead::Kind::kReversedRows:
        if (region.input_type[input] != DType::kF32 || !takes_rows(read.row)) return false;
        region.input_spread[input] = Spread::kReversedRows;
        break;
      case OperandRead::Kind::kSlice:
        if (read.pitch != 0) {
          if (!takes_rows(read.row)) return false;
          region.input_spread[input] = Spread::kPitchedRows;
        }
        region.input_offset.resize(n, 0);
        region.input_pitch.resize(n, 0);
        region.input_offset[input] = read.offset;
        region.input_pitch[input] = read.pitch;
        break;
      case OperandRead::Kind::kTransposed:
        // 4-byte lanes staged as they are; one staging block for every
        // transposed input, so one row length (TransposeRead picks the sizes).
        if (ByteWidth(region.input_type[input]) != 4 ||
            (region.transposed_row != 0 && region.transposed_row != read.row)) {
          return false;
        }
        region.transposed_row = read.row;
        region.input_spread[input] = Spread::kTransposed;
        region.input_offset.resize(n, 0);
        region.input_pitch.resize(n, 0);
        region.input_pitch[input] = read.pitch;
        break;
    }
  }
  // A flat reversal reads from the end of the whole input: no row calls.
  for (Spread s : region.input_spread) {
    if (s == Spread::kReversed && region.period != 0) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Thunk> MakeJitUnaryThunk(const Instruction& op, SlotId input, SlotId output,
                                         int64_t* work) {
#if defined(__x86_64__)
  // Where the generated code beat the interpreter's kernel (GCC's
  // vectorisation of fast_math.h) on its own: 2M floats on 2 AVX2 threads,
  // exp 1.11-1.25 vs 1.45-1.59 ms, logistic 1.47-1.53 vs 1.74-2.2 ms; log
  // since its short path for positive normal inputs 2.39-2.49 vs 2.93-2.99
  // ms of CPU a call (perf stat task-clock, both threads). tanh (no
  // difference measured) and log1p stay on the interpreter unless fused.
  if (op.opcode() != Opcode::kExponential && op.opcode() != Opcode::kLogistic &&
      op.opcode() != Opcode::kLog) {
    return nullptr;
  }
  JitRegion region;
  if (op.operands().size() != 1 || !Available() || !AnalyzeJitLoneOp(op, &region)) return nullptr;
  return Generate(region, {input}, {output}, work);
#else
  return nullptr;
#endif
}

std::unique_ptr<Thunk> MakeJitLoneOpThunk(const Instruction& op,
                                          const std::vector<SlotId>& inputs, SlotId output,
                                          int64_t* work, const std::vector<OperandRead>& reads) {
#if defined(__x86_64__)
  JitRegion region;
  if (!Available() || inputs.size() != op.operands().size() || !AnalyzeJitLoneOp(op, &region)) {
    return nullptr;
  }
  // The kernel's inputs are the op's distinct operands; an operand read in
  // place must not also be read directly (x[1:] * x[1:] reads one slice).
  std::vector<SlotId> by_input(region.parameters.size());
  std::vector<OperandRead> read_of_input(region.parameters.size());
  std::vector<bool> seen(region.parameters.size(), false);
  for (size_t i = 0; i < op.operands().size(); ++i) {
    const auto number = static_cast<size_t>(region.input_number.at(op.operand(i)));
    const OperandRead read = i < reads.size() ? reads[i] : OperandRead{};
    if (seen[number] && (by_input[number] != inputs[i] ||
                         read.kind != read_of_input[number].kind ||
                         read.offset != read_of_input[number].offset)) {
      return nullptr;
    }
    seen[number] = true;
    by_input[number] = inputs[i];
    read_of_input[number] = read;
  }
  if (!ApplyOperandReads(region.parameters, read_of_input, region)) return nullptr;
  return Generate(region, by_input, {output}, work);
#else
  return nullptr;
#endif
}

std::unique_ptr<Thunk> MakeJitFusionThunk(const Instruction& fusion,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs, int64_t* work,
                                          const std::vector<OperandRead>& reads) {
#if defined(__x86_64__)
  JitRegion region;
  if (!Available() || !AnalyzeJitRegion(fusion, inputs.size(), &region)) return nullptr;
  std::vector<const Instruction*> operands(fusion.operands().begin(), fusion.operands().end());
  if (reads.size() > operands.size() || !ApplyOperandReads(operands, reads, region)) return nullptr;
  std::vector<SlotId> slots = inputs;  // and the slots of inputs spread a second way
  for (size_t i = inputs.size(); i < region.input_slot.size(); ++i) {
    slots.push_back(inputs[region.input_slot[i]]);
  }
  return Generate(region, slots, outputs, work);
#else
  return nullptr;
#endif
}

}  // namespace xjit::cpu
