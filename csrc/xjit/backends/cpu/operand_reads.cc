#include "xjit/backends/cpu/operand_reads.h"

#include <algorithm>

#include "xjit/ir/users.h"

namespace xjit::cpu {

std::optional<OperandRead> SliceRead(const Instruction& slice) {
  if (slice.opcode() != Opcode::kSlice || slice.shape().is_tuple ||
      slice.operand(0)->shape().is_tuple) {
    return std::nullopt;
  }
  const SliceAttrs& a = slice.attrs<SliceAttrs>();
  const std::vector<int64_t>& in = slice.operand(0)->shape().dims;
  const std::vector<int64_t>& out = slice.shape().dims;
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> stride(rank, 1);
  for (int64_t k = rank - 1; k > 0; --k) stride[k - 1] = stride[k] * in[k];
  OperandRead read;
  read.kind = OperandRead::Kind::kSlice;
  std::vector<int64_t> live;  // dims with more than one element, outermost first
  for (int64_t k = 0; k < rank; ++k) {
    if (!a.strides.empty() && a.strides[k] != 1 && out[k] > 1) return std::nullopt;
    read.offset += a.start_indices[k] * stride[k];
    if (out[k] > 1) live.push_back(k);
  }
  if (live.empty()) return read;  // one element
  // The innermost live dims whose elements are contiguous form a row...
  if (stride[live.back()] != 1) return std::nullopt;
  int64_t row = 1;
  while (!live.empty() && stride[live.back()] == row) {
    row *= out[live.back()];
    live.pop_back();
  }
  read.row = row;
  if (live.empty()) return read;  // one run
  // ...and the outer ones must step the rows by one pitch.
  read.pitch = stride[live.back()];
  for (size_t j = live.size() - 1; j-- > 0;) {
    if (stride[live[j]] != stride[live[j + 1]] * out[live[j + 1]]) return std::nullopt;
  }
  return read;
}

// After its unit dims are dropped, the permutation keeps some leading dims
// and swaps the two groups of the rest.
std::optional<OperandRead> TransposeRead(const Instruction& transpose) {
  if (transpose.opcode() != Opcode::kTranspose || transpose.shape().is_tuple ||
      transpose.operand(0)->shape().is_tuple || ByteWidth(transpose.shape().dtype) != 4) {
    return std::nullopt;
  }
  const std::vector<int64_t>& perm = transpose.attrs<TransposeAttrs>().permutation;
  const std::vector<int64_t>& in = transpose.operand(0)->shape().dims;
  // The operand dims of the result's non-unit dims, renumbered among the
  // operand's non-unit dims (in order), and their sizes.
  std::vector<int64_t> rank_of(in.size(), -1), order, sizes;
  for (size_t d = 0, k = 0; d < in.size(); ++d) {
    if (in[d] != 1) rank_of[d] = static_cast<int64_t>(k++);
  }
  for (int64_t d : perm) {
    if (in[d] == 1) continue;
    order.push_back(rank_of[d]);
    sizes.push_back(in[d]);
  }
  const int64_t k = static_cast<int64_t>(order.size());
  int64_t lead = 0;
  while (lead < k && order[lead] == lead) ++lead;
  if (lead == k) return std::nullopt;  // no transpose at all
  // Result dims [lead, split) are the operand's last ones, [split, k) the
  // ones just after the leading dims.
  const int64_t split = lead + (k - order[lead]);
  OperandRead read;
  read.kind = OperandRead::Kind::kTransposed;
  read.pitch = read.row = 1;
  for (int64_t j = lead; j < k; ++j) {
    const int64_t want = j < split ? order[lead] + (j - lead) : lead + (j - split);
    if (order[j] != want) return std::nullopt;
    (j < split ? read.pitch : read.row) *= sizes[j];
  }
  if (read.row < kMinTransposedRow || read.row > kMaxTransposedRow ||
      read.pitch < kTransposedBlockRows) {
    return std::nullopt;
  }
  return read;
}

namespace {

// A reverse read backwards by the kernel: of every dim (kReversed) or of the
// last dim only (kReversedRows, rows of that dim).
std::optional<OperandRead> ReverseRead(const Instruction& reverse) {
  if (reverse.opcode() != Opcode::kReverse || reverse.shape().is_tuple ||
      reverse.operand(0)->shape().is_tuple || reverse.shape().dtype != DType::kF32) {
    return std::nullopt;
  }
  const std::vector<int64_t>& dims = reverse.attrs<ReverseAttrs>().dimensions;
  const int64_t rank = reverse.shape().rank();
  bool every_dim = true, last_only = rank >= 2;
  for (int64_t d = 0; d < rank; ++d) {
    const bool reversed = std::count(dims.begin(), dims.end(), d) == 1;
    const bool counts = reverse.shape().dims[d] != 1;
    every_dim &= !counts || reversed;
    last_only &= d == rank - 1 ? reversed && counts : !counts || !reversed;
  }
  if (!every_dim && !last_only) return std::nullopt;
  OperandRead read;
  read.kind = every_dim ? OperandRead::Kind::kReversed : OperandRead::Kind::kReversedRows;
  read.row = reverse.shape().dims.back();
  return read;
}

// Consumers whose generated kernels read operands in place: fusions, and
// element-wise ops of float32 arrays (a lone subtract of two slices).
bool ReadsInPlace(const Instruction& consumer) {
  if (consumer.opcode() == Opcode::kFusion) return true;
  return IsElementwise(consumer.opcode()) && consumer.shape().is_array() &&
         consumer.shape().dtype == DType::kF32;
}

}  // namespace

OperandReadPlan PlanOperandReads(const Computation& entry,
                                 const absl::flat_hash_set<const Instruction*>& taken) {
  const Users users(entry);
  OperandReadPlan plan;
  for (const auto& instr : entry.instructions()) {
    if (!ReadsInPlace(*instr) || taken.contains(instr.get())) continue;
    std::vector<InPlaceRead> reads;
    for (const Instruction* o : instr->operands()) {
      if (users.IsResult(*o) || users.of(*o).size() != 1 || taken.contains(o)) continue;
      if (std::any_of(reads.begin(), reads.end(),
                      [&](const InPlaceRead& r) { return r.producer == o; })) {
        continue;  // x[1:] * x[1:]: one read
      }
      std::optional<OperandRead> read = o->opcode() == Opcode::kReverse     ? ReverseRead(*o)
                                        : o->opcode() == Opcode::kTranspose ? TransposeRead(*o)
                                                                            : SliceRead(*o);
      if (!read) continue;
      // The kernel stages every transposed operand in blocks of one row length.
      if (read->kind == OperandRead::Kind::kTransposed &&
          std::any_of(reads.begin(), reads.end(), [&](const InPlaceRead& r) {
            return r.read.kind == OperandRead::Kind::kTransposed && r.read.row != read->row;
          })) {
        continue;
      }
      reads.push_back({o, *read});
    }
    if (!reads.empty()) plan[instr.get()] = std::move(reads);
  }
  return plan;
}

}  // namespace xjit::cpu
