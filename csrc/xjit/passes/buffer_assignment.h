// Buffer assignment: where every value of a (call-free, fused) entry
// computation lives while the program runs, with the instruction order as the
// schedule. Parameters, results and constants keep buffers of their own;
// every other array value gets an offset in one arena, reusing the bytes of
// values that are dead (liveness-based, first fit). reshape, tuple and
// get_tuple_element make no buffer: they alias their operands' (row-major
// bytes are unchanged). A result that an instruction computes is written
// straight into the caller's result buffer; a result that is a parameter, a
// constant or another result again is copied there at the end of the run.
//
// Two steps, so a backend can ask for scratch memory while it lowers (a
// transposing copy before a matmul): Create finds the buffers and their
// lifetimes, AddScratch adds buffers that live only while one instruction
// runs, and AssignOffsets places the arena buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

using BufferId = int32_t;

struct LogicalBuffer {
  enum class Kind { kParameter, kResult, kConstant, kArena };
  Kind kind = Kind::kArena;
  int64_t number = 0;  // parameter or result number
  int64_t bytes = 0;
  int64_t offset = 0;  // within the arena (kArena only)
  // The instruction that defines it (null for a result copied at the end).
  const Instruction* defined_by = nullptr;
};

struct BufferAssignmentOptions {
  // Values that the backend owns for the program's lifetime, like constants
  // (default: opcode constant). A cpu backend that evaluates iota at compile
  // time says so here.
  std::function<bool(const Instruction&)> is_constant;
  // Values a backend computes within an earlier instruction's step, into that
  // instruction's buffers (a convolution that applies its consumers' bias
  // and ReLU as it writes): such a value gets no buffer of its own and shares
  // the leaves of the instruction returned; null for ordinary values. Its
  // operands count as read at its own step (the backend reads them earlier,
  // while their buffers are alive all the same).
  std::function<const Instruction*(const Instruction&)> computed_by;
  int64_t alignment = 64;
};

class BufferAssignment {
 public:
  // Fails for a computation with a call (inline first), a tuple parameter or
  // a tuple result.
  static absl::StatusOr<BufferAssignment> Create(const Computation& entry,
                                                 const BufferAssignmentOptions& options = {});

  // A buffer of `bytes` that lives only while `instr` runs (distinct from its
  // operands' and results' buffers).
  BufferId AddScratch(const Instruction& instr, int64_t bytes);
  // Places the arena buffers; call once, after the last AddScratch.
  void AssignOffsets();

  // The buffers holding `instr`'s value, one per array leaf (a tuple value
  // has several); aliases share their operands'.
  absl::Span<const BufferId> leaves(const Instruction& instr) const;
  const LogicalBuffer& buffer(BufferId id) const { return buffers_[id]; }
  const std::vector<LogicalBuffer>& buffers() const { return buffers_; }
  int64_t arena_bytes() const { return arena_bytes_; }

  // Result i: the kResult buffer it ends in, and the buffer to copy into it
  // at the end of the run, or -1 when an instruction writes it in place.
  struct ResultPlacement {
    BufferId buffer;
    BufferId copy_from;
  };
  const std::vector<ResultPlacement>& results() const { return results_; }

  // When result `result` is first written, relative to the last read of
  // parameter number `parameter`: a backend asks this before letting the
  // result take over a donated parameter's storage. kAtLastRead: one step
  // does both (the instruction computing the result, or the final copies),
  // so only the backend knows whether the read comes first. A parameter the
  // program never reads counts as read before every write; an out-of-range
  // result counts as written before.
  enum class ResultWrite { kAfterLastRead, kAtLastRead, kBeforeLastRead };
  ResultWrite ResultWriteVsParameterRead(int64_t result, int64_t parameter) const;
  // The kParameter buffer of parameter number `parameter`, or -1 when the
  // entry has none.
  BufferId parameter_buffer(int64_t parameter) const;

 private:
  BufferAssignment() = default;
  BufferId NewBuffer(LogicalBuffer::Kind kind, int64_t bytes, const Instruction* defined_by,
                     int64_t step);

  std::vector<LogicalBuffer> buffers_;
  // Lifetime in steps (instruction positions; the final copies are step n).
  std::vector<int64_t> first_step_, last_step_;
  absl::flat_hash_map<const Instruction*, std::vector<BufferId>> leaves_;
  std::vector<ResultPlacement> results_;
  std::vector<BufferId> parameter_buffers_;  // by parameter number; -1 for none
  int64_t num_steps_ = 0;
  int64_t alignment_ = 64;
  int64_t arena_bytes_ = 0;
  bool offsets_assigned_ = false;
};

}  // namespace xjit::passes
