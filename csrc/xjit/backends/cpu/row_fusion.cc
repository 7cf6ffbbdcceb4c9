#include "xjit/backends/cpu/row_fusion.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/broadcast_reader.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/jit_row.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/ir/row_geometry.h"
#include "xjit/ir/users.h"

namespace xjit::cpu {
namespace {

// Elements of a block's whole-row values: a block is this many elements'
// worth of rows (at least one row), so its live values stay in L1/L2.
constexpr int64_t kBlockElements = 2048;
// Block buffers are kBlockElements-sized (a multiple of 4 KiB) plus this
// skew, so that an op reading one buffer and writing another does not hit
// the same offset within a 4 KiB page: loads that match an earlier store's
// low 12 address bits wait for it (4K aliasing).
constexpr int64_t kSkewBytes = 320;
// Rows at least this long read row-contiguous broadcasts in place (a kernel
// call per row); shorter ones copy the block out (BroadcastReader::Read):
// measured break-even near 64 on 512 x 512 x k pairwise differences.
constexpr int64_t kMinRowsInPlace = 128;
// A column fusion's rows go in chunks of at least this many elements (and at
// most 64 chunks), each reduced into partial results of its own in parallel,
// then combined in chunk order: the chunks depend only on the shape, so the
// bits do not depend on the number of threads (reduce.cc's ColumnReduce).
constexpr int64_t kColumnChunkElements = 256 * 1024;

// out[r * row_size + j] = in[r]: a per-row value spread over its row.
template <typename E>
XJIT_ISA_CLONES void ExpandRows(const void* in, void* out, int64_t rows, int64_t row_size) {
  const E* x = static_cast<const E*>(in);
  E* y = static_cast<E*>(out);
  for (int64_t r = 0; r < rows; ++r) {
    const E v = x[r];
    E* row = y + r * row_size;
    for (int64_t j = 0; j < row_size; ++j) row[j] = v;
  }
}

using ExpandKernel = void (*)(const void* in, void* out, int64_t rows, int64_t row_size);

struct Bytes16 {
  unsigned char b[16];
};

ExpandKernel ExpandFor(int64_t width) {
  switch (width) {
    case 1: return &ExpandRows<uint8_t>;
    case 2: return &ExpandRows<uint16_t>;
    case 4: return &ExpandRows<uint32_t>;
    case 8: return &ExpandRows<uint64_t>;
    case 16: return &ExpandRows<Bytes16>;
    default: return nullptr;
  }
}

// Where an op reads or writes a value in a block of rows: a block buffer, or
// a buffer of the table at the block's first row. per_row is the value's
// elements per row (the row size, or 1); 0: one element for every row.
struct Operand {
  SlotId slot = -1;
  int32_t local = -1;
  int64_t per_row = 0;
  int64_t width = 0;
  // A broadcast fusion operand whose rows are contiguous runs of its operand
  // (in `slot`): a by_row kernel reads each row where a RowCursor of it says.
  std::shared_ptr<const BroadcastReader> rows;
};

struct Op {
  enum class Kind { kKernel, kBroadcastRead, kReduce, kExpand, kColumnReduce };
  Kind kind = Kind::kKernel;
  ElementwiseKernel kernel = nullptr;
  std::vector<int64_t> strides;  // the element-wise kernel's
  std::shared_ptr<const BroadcastReader> broadcast;
  RowReduceKernel reduce = nullptr;
  ExpandKernel expand = nullptr;
  // kColumnReduce: accumulates the block's rows into its chunk's partial
  // results, at partial_offset + chunk * columns * acc_width of the partials.
  const ColumnReduceKernel* column = nullptr;
  int64_t partial_offset = 0;
  std::vector<Operand> inputs;
  Operand output;
  int64_t per_row = 0;  // elements computed per row of the block; 0: one in all
  // An element-wise kernel called once per row: an operand with per_row 1 is
  // a per-row value read as a splat over its row (a row broadcast never
  // written out); one with per_row 0 and stride 1 is the same row for all.
  bool by_row = false;
};

class RowFusionThunk : public Thunk {
 public:
  // `columns`: a column fusion (its reduces are kColumnReduce ops).
  RowFusionThunk(int64_t rows, int64_t row_size, std::vector<Op> ops,
                 const std::vector<Operand>& locals, bool columns)
      : rows_(rows), row_size_(row_size), ops_(std::move(ops)) {
    block_rows_ = std::max<int64_t>(1, kBlockElements / row_size_);
    blocks_ = (rows_ + block_rows_ - 1) / block_rows_;
    chunk_blocks_ = 1;  // a row fusion: a block a chunk, any thread
    if (columns) {
      const int64_t chunk_rows =
          std::max(kColumnChunkElements / row_size_, (rows_ + 63) / 64);
      chunk_blocks_ = std::max<int64_t>(1, (chunk_rows + block_rows_ - 1) / block_rows_);
    }
    int64_t partial_bytes = 0;
    const int64_t chunks = (blocks_ + chunk_blocks_ - 1) / chunk_blocks_;
    for (Op& op : ops_) {
      if (op.kind != Op::Kind::kColumnReduce) continue;
      op.partial_offset = partial_bytes;
      partial_bytes += chunks * row_size_ * op.column->acc_width;
    }
    partials_.resize(partial_bytes);
    PlaceLocals(locals);
  }

  void Execute(void* const* buffers) const override {
    // Blocks in chunks, each chunk's blocks in order on one thread (a row
    // fusion: one block a chunk).
    const int64_t chunks = (blocks_ + chunk_blocks_ - 1) / chunk_blocks_;
    const bool serial =
        chunks == 1 || rows_ * row_size_ * static_cast<int64_t>(ops_.size()) < kParallelThreshold;
    ForEachBlockWithScratch(chunks, scratch_bytes_, serial, &serial_scratch_,
                            [&](unsigned char* scratch, int64_t c) {
                              RunBlocks(buffers, scratch, c);
                            });
    for (const Op& op : ops_) {
      if (op.kind != Op::Kind::kColumnReduce) continue;
      op.column->finish(partials_.data() + op.partial_offset, chunks, row_size_,
                        buffers[op.inputs[1].slot], buffers[op.output.slot]);
    }
  }

 private:
  // Block buffers are reused once their value is dead, so one thread's
  // scratch stays small.
  void PlaceLocals(const std::vector<Operand>& locals) {
    std::vector<int64_t> last_use(locals.size(), -1);
    for (size_t i = 0; i < ops_.size(); ++i) {
      for (const Operand& in : ops_[i].inputs) {
        if (in.local >= 0) last_use[in.local] = static_cast<int64_t>(i);
      }
    }
    auto bytes_of = [&](const Operand& l) {
      return (block_rows_ * std::max<int64_t>(l.per_row, 1) * l.width + 63) / 64 * 64 + kSkewBytes;
    };
    offsets_.assign(locals.size(), -1);
    absl::flat_hash_map<int64_t, std::vector<int64_t>> free_by_size;
    for (size_t i = 0; i < ops_.size(); ++i) {
      const int32_t out = ops_[i].output.local;
      if (out >= 0 && offsets_[out] < 0) {
        std::vector<int64_t>& free = free_by_size[bytes_of(locals[out])];
        if (free.empty()) {
          offsets_[out] = scratch_bytes_;
          scratch_bytes_ += bytes_of(locals[out]);
        } else {
          offsets_[out] = free.back();
          free.pop_back();
        }
      }
      // Released after the output is placed: no op writes over its operand.
      for (const Operand& in : ops_[i].inputs) {
        if (in.local >= 0 && last_use[in.local] == static_cast<int64_t>(i)) {
          free_by_size[bytes_of(locals[in.local])].push_back(offsets_[in.local]);
          last_use[in.local] = -2;  // released once even when read twice
        }
      }
    }
  }

  void RunBlocks(void* const* buffers, unsigned char* scratch, int64_t chunk) const {
    const int64_t first = chunk * chunk_blocks_, end = std::min(blocks_, first + chunk_blocks_);
    for (int64_t block = first; block < end; ++block) {
      const int64_t r0 = block * block_rows_, n = std::min(block_rows_, rows_ - r0);
      auto address = [&](const Operand& o) -> unsigned char* {
        if (o.local >= 0) return scratch + offsets_[o.local];
        return static_cast<unsigned char*>(buffers[o.slot]) + r0 * o.per_row * o.width;
      };
      for (const Op& op : ops_) {
        unsigned char* out = address(op.output);
        switch (op.kind) {
          case Op::Kind::kKernel: {
            const void* in[3] = {nullptr, nullptr, nullptr};
            for (size_t i = 0; i < op.inputs.size(); ++i) in[i] = address(op.inputs[i]);
            if (!op.by_row) {
              op.kernel(in, op.strides.data(), out, 0, op.per_row == 0 ? 1 : n * op.per_row);
              break;
            }
            const void* row_in[3] = {nullptr, nullptr, nullptr};
            std::optional<BroadcastReader::RowCursor> cursor[3];
            for (size_t i = 0; i < op.inputs.size(); ++i) {
              if (op.inputs[i].rows != nullptr) cursor[i].emplace(*op.inputs[i].rows, r0, row_size_);
            }
            for (int64_t r = 0; r < n; ++r) {
              for (size_t i = 0; i < op.inputs.size(); ++i) {
                const Operand& o = op.inputs[i];
                if (cursor[i]) {
                  row_in[i] = static_cast<const unsigned char*>(buffers[o.slot]) +
                              cursor[i]->offset() * o.width;
                  cursor[i]->Next();
                } else {
                  row_in[i] = static_cast<const unsigned char*>(in[i]) + r * o.per_row * o.width;
                }
              }
              op.kernel(row_in, op.strides.data(), out + r * row_size_ * op.output.width, 0,
                        row_size_);
            }
            break;
          }
          case Op::Kind::kBroadcastRead:
            op.broadcast->Read(buffers[op.inputs[0].slot], out, r0 * op.per_row, n * op.per_row);
            break;
          case Op::Kind::kReduce:
            op.reduce(address(op.inputs[0]), address(op.inputs[1]), out, n, row_size_);
            break;
          case Op::Kind::kExpand:
            op.expand(address(op.inputs[0]), out, n, row_size_);
            break;
          case Op::Kind::kColumnReduce: {
            unsigned char* acc =
                partials_.data() + op.partial_offset + chunk * row_size_ * op.column->acc_width;
            if (op.inputs.size() == 3) {  // rows scaled by inputs[2] (a per-row value)
              (block == first ? op.column->first_rows_scaled : op.column->more_rows_scaled)(
                  acc, address(op.inputs[0]), address(op.inputs[2]), n, row_size_);
              break;
            }
            (block == first ? op.column->first_rows : op.column->more_rows)(
                acc, address(op.inputs[0]), n, row_size_);
            break;
          }
        }
      }
    }
  }

  int64_t rows_, row_size_, block_rows_ = 1, blocks_ = 1, chunk_blocks_ = 1;
  std::vector<Op> ops_;
  mutable std::vector<unsigned char> partials_;  // the column reduces', per chunk
  std::vector<int64_t> offsets_;  // per block buffer, in bytes within a thread's scratch
  int64_t scratch_bytes_ = 0;
  mutable std::vector<unsigned char> serial_scratch_;  // Execute is never concurrent
};

// A region value: in a slot (an operand or result of the fusion) or a block
// buffer, with its elements per row; a fusion operand is read as each user
// needs it (per_row < 0).
struct Value {
  SlotId slot = -1;
  int32_t local = -1;
  int64_t per_row = -1;
  bool splat = false;  // one element for every row
  // A row broadcast of the per-row value in slot/local: read in place by the
  // ops that read splats (Op::by_row), expanded for the others.
  bool row_splat = false;
  // A broadcast of an operand that is the same on every row (its operand in
  // `slot`): read in place by every row of an Op::by_row kernel.
  bool row_invariant = false;
  const Instruction* broadcast = nullptr;  // the row-invariant or row-contiguous broadcast
  // A broadcast of an operand whose rows are contiguous runs of it (its
  // operand in `slot`): read in place, row by row, by Op::by_row kernels.
  std::shared_ptr<const BroadcastReader> rows;
};

class RowFusionLowering {
 public:
  RowFusionLowering(const Computation& region, const std::vector<SlotId>& inputs,
                    const std::vector<SlotId>& outputs)
      : region_(region), inputs_(inputs), outputs_(outputs) {}

  absl::StatusOr<std::unique_ptr<Thunk>> Lower(int64_t* work);

 private:
  absl::Status FindGeometry();
  absl::StatusOr<int64_t> PerRow(const Instruction& v) const {
    const int64_t n = v.shape().num_elements();
    if (n == rows_ * row_size_) return row_size_;
    if (n == rows_ && !columns_) return int64_t{1};
    return absl::UnimplementedError(absl::StrCat(
        "fusion: a value of ", v.shape().ToString(), " in a row fusion of ", rows_, " rows of ",
        row_size_, " elements is not supported by the cpu backend"));
  }
  // Where `instr`'s value goes: its result slot, or a new block buffer.
  Operand Destination(const Instruction& instr, int64_t per_row) {
    Operand o{-1, -1, per_row, ByteWidth(instr.shape().dtype)};
    if (auto it = output_of_.find(&instr); it != output_of_.end()) {
      o.slot = it->second;
    } else {
      o.local = static_cast<int32_t>(locals_.size());
      locals_.push_back(o);
    }
    return o;
  }
  // `v` read by an op computing `per_row` elements per row, as its operand
  // of the op's element count (`same_count`) or of one element.
  Operand Read(const Instruction& v, int64_t per_row, bool same_count) const {
    const Value& value = values_.at(&v);
    const int64_t p =
        value.splat ? 0 : (value.per_row >= 0 ? value.per_row : (same_count ? per_row : 0));
    return Operand{value.slot, value.local, p, ByteWidth(v.shape().dtype)};
  }
  // Writes a row splat or a row-invariant broadcast out over whole rows (into
  // `instr`'s result slot when it is one), once; `instr`'s value becomes the
  // written one. Nothing for other values.
  absl::Status Expand(const Instruction& instr);
  absl::Status LowerElementwise(const Instruction& instr);
  absl::Status LowerBroadcast(const Instruction& instr);
  absl::Status LowerReduce(const Instruction& instr);
  void AbsorbRowScaling(const Instruction& reduce, Op& sum);

  const Computation& region_;
  const std::vector<SlotId>& inputs_;
  const std::vector<SlotId>& outputs_;
  int64_t rows_ = 0, row_size_ = 0;
  bool columns_ = false;  // reduces of the leading dims: rows_ x row_size_ columns
  absl::flat_hash_map<const Instruction*, SlotId> output_of_;
  absl::flat_hash_map<const Instruction*, Value> values_;
  std::vector<Operand> locals_;
  std::vector<Op> ops_;
  int64_t work_ = 0;
};

absl::Status RowFusionLowering::FindGeometry() {
  bool first = true;
  for (const auto& instr : region_.instructions()) {
    if (instr->opcode() != Opcode::kReduce) continue;
    auto shape = RowReduceShape(*instr);
    bool columns = false;
    if (!shape) {
      shape = ColumnReduceShape(*instr);
      columns = true;
    }
    if (!shape || (!first && (shape->first != rows_ || shape->second != row_size_ ||
                              columns != columns_))) {
      return absl::UnimplementedError(
          "fusion: a region whose reduces are not all of the same trailing dims (or all of the "
          "same leading dims) is not supported by the cpu backend");
    }
    std::tie(rows_, row_size_) = *shape;
    columns_ = columns;
    first = false;
  }
  return absl::OkStatus();
}

absl::Status RowFusionLowering::LowerElementwise(const Instruction& instr) {
  absl::StatusOr<int64_t> per_row = PerRow(instr);
  if (!per_row.ok()) return per_row.status();
  const int64_t n = instr.shape().num_elements();
  const bool is_result = output_of_.contains(&instr);
  // An op of splats only computes one element, unless it is a result.
  bool one_element = !is_result && !instr.operands().empty();
  for (const Instruction* o : instr.operands()) one_element &= values_.at(o).splat;
  // Row splats are read in place by a kernel that reads splats, called per
  // row; otherwise they are written out first.
  const bool by_row_possible = ReadsSplatInPlace(instr.opcode()) && *per_row == row_size_;
  bool by_row = false;
  for (const Instruction* o : instr.operands()) {
    const Value& v = values_.at(o);
    if ((v.row_splat && by_row_possible) ||
        ((v.row_invariant || v.rows != nullptr) && *per_row == row_size_)) {
      by_row = true;
    } else if (absl::Status s = Expand(*o); !s.ok()) {
      return s;
    }
  }
  std::vector<Operand> in;
  std::vector<bool> splat;
  for (const Instruction* o : instr.operands()) {
    const Value& v = values_.at(o);
    if (v.row_splat || v.row_invariant || v.rows != nullptr) {
      in.push_back(Operand{v.slot, v.local, v.row_splat ? 1 : 0, ByteWidth(o->shape().dtype), v.rows});
      splat.push_back(v.row_splat);
      continue;
    }
    Operand read = Read(*o, *per_row, o->shape().num_elements() == n);
    const bool is_splat = values_.at(o).splat;
    if (is_splat && !one_element && !ReadsSplatInPlace(instr.opcode())) {
      auto fill = MakeSplatOp(0, 0, read.width, n);
      if (!fill.ok()) return fill.status();
      Op op;
      op.kernel = (*fill)->kernel();
      op.strides = (*fill)->strides();
      op.inputs = {read};
      op.output = Operand{-1, static_cast<int32_t>(locals_.size()), *per_row, read.width};
      locals_.push_back(op.output);
      op.per_row = *per_row;
      read = op.output;
      ops_.push_back(std::move(op));
      in.push_back(read);
      splat.push_back(false);
      continue;
    }
    in.push_back(read);
    splat.push_back(is_splat);
  }
  std::vector<SlotId> unused_slots(in.size(), 0);
  auto step = MakeElementwiseOp(instr, std::move(unused_slots), 0, splat);
  if (!step.ok()) return step.status();
  Op op;
  op.kernel = (*step)->kernel();
  op.strides = (*step)->strides();
  op.inputs = std::move(in);
  op.per_row = one_element ? 0 : *per_row;
  op.by_row = by_row;
  op.output = Destination(instr, op.per_row);
  values_[&instr] = Value{op.output.slot, op.output.local, op.per_row, one_element};
  ops_.push_back(std::move(op));
  work_ += EstimateInstructionWork(instr);
  return absl::OkStatus();
}

absl::Status RowFusionLowering::LowerBroadcast(const Instruction& instr) {
  const Instruction& source = *instr.operand(0);
  const Value& value = values_.at(&source);
  absl::StatusOr<int64_t> per_row = PerRow(instr);
  if (!per_row.ok()) return per_row.status();
  const int64_t width = ByteWidth(instr.shape().dtype);
  Op op;
  op.per_row = *per_row;
  if (source.shape().num_elements() == 1 || value.splat) {
    Operand read = Read(source, 0, false);
    if (!output_of_.contains(&instr)) {  // read in place by its users
      values_[&instr] = Value{read.slot, read.local, 0, true};
      return absl::OkStatus();
    }
    auto fill = MakeSplatOp(0, 0, width, 1);
    if (!fill.ok()) return fill.status();
    op.kernel = (*fill)->kernel();
    op.strides = (*fill)->strides();
    op.inputs = {read};
  } else if (value.per_row < 0 && *per_row == row_size_ &&
             IsRowBroadcast(instr, rows_, rows_ * row_size_)) {  // an operand's value per row
    values_[&instr] = Value{value.slot, -1, 1, false, true};
    if (output_of_.contains(&instr)) return Expand(instr);
    return absl::OkStatus();
  } else if (value.per_row < 0 && *per_row == row_size_ &&
             IsRowInvariantBroadcast(instr, row_size_)) {  // the same row for every row
    values_[&instr] = Value{value.slot, -1, 0, false, false, true, &instr};
    if (output_of_.contains(&instr)) return Expand(instr);
    return absl::OkStatus();
  } else if (auto reader = std::make_shared<const BroadcastReader>(instr);
             value.per_row < 0 && *per_row == row_size_ && row_size_ >= kMinRowsInPlace &&
             reader->RowsContiguous(row_size_)) {
    // Each row a run of the operand: read in place row by row (its readers
    // then run a kernel call per row, which only long rows repay).
    Value v{value.slot, -1, 0, false, false, false, &instr};
    v.rows = std::move(reader);
    values_[&instr] = std::move(v);
    if (output_of_.contains(&instr)) return Expand(instr);
    return absl::OkStatus();
  } else if (value.per_row < 0) {  // a fusion operand: read in place
    op.kind = Op::Kind::kBroadcastRead;
    op.broadcast = std::make_shared<const BroadcastReader>(instr);
    op.inputs = {Operand{value.slot, -1, 0, ByteWidth(source.shape().dtype)}};
  } else if (value.per_row == 1 && !value.row_splat && *per_row == row_size_ &&
             IsRowBroadcast(instr, rows_, rows_ * row_size_)) {
    values_[&instr] = Value{value.slot, value.local, 1, false, true};
    if (output_of_.contains(&instr)) return Expand(instr);
    return absl::OkStatus();
  } else {
    return absl::UnimplementedError(absl::StrCat(
        "fusion: a broadcast_in_dim to ", instr.shape().ToString(),
        " of a value computed in a row fusion is not supported by the cpu backend"));
  }
  op.output = Destination(instr, op.per_row);
  values_[&instr] = Value{op.output.slot, op.output.local, op.per_row, false};
  ops_.push_back(std::move(op));
  work_ += instr.shape().num_elements();
  return absl::OkStatus();
}

absl::Status RowFusionLowering::Expand(const Instruction& instr) {
  const Value value = values_.at(&instr);
  Op op;
  if (value.row_invariant || value.rows != nullptr) {
    op.kind = Op::Kind::kBroadcastRead;
    op.broadcast = std::make_shared<const BroadcastReader>(*value.broadcast);
    op.inputs = {Operand{value.slot, -1, 0, ByteWidth(instr.shape().dtype)}};
  } else if (value.row_splat) {
    op.kind = Op::Kind::kExpand;
    op.expand = ExpandFor(ByteWidth(instr.shape().dtype));
    if (op.expand == nullptr) return absl::InternalError("fusion: expand of an odd element width");
    op.inputs = {Operand{value.slot, value.local, 1, ByteWidth(instr.shape().dtype)}};
  } else {
    return absl::OkStatus();
  }
  op.per_row = row_size_;
  op.output = Destination(instr, row_size_);
  values_[&instr] = Value{op.output.slot, op.output.local, row_size_, false};
  ops_.push_back(std::move(op));
  work_ += instr.shape().num_elements();
  return absl::OkStatus();
}

// A column sum of rows just multiplied by a per-row value (v[:, None] * x
// summed over rows: what dot strength reduction makes of v @ x) becomes one
// pass: the multiply's op is dropped and the sum scales each row itself,
// where the two ops wrote and read the product back per block row.
void RowFusionLowering::AbsorbRowScaling(const Instruction& reduce, Op& sum) {
  const Instruction& product = *reduce.operand(0);
  if (sum.column->first_rows_scaled == nullptr || product.opcode() != Opcode::kMultiply ||
      output_of_.contains(&product) || ops_.empty()) {
    return;
  }
  const Op& multiply = ops_.back();
  const Value& value = values_.at(&product);
  if (Users(region_).of(product).size() != 1 || multiply.kind != Op::Kind::kKernel || !multiply.by_row ||
      multiply.inputs.size() != 2 || value.local < 0 || multiply.output.local != value.local) {
    return;
  }
  const Operand* row = nullptr;
  const Operand* scale = nullptr;
  for (const Operand& in : multiply.inputs) {
    if (in.rows != nullptr) return;
    if (in.per_row == 1) scale = &in;
    if (in.per_row == row_size_) row = &in;
  }
  if (row == nullptr || scale == nullptr) return;
  sum.inputs = {*row, sum.inputs[1], *scale};
  ops_.pop_back();
}

// A reduce of the rows (kReduce: one value per row) or, in a column fusion,
// of the columns (kColumnReduce: into the chunk's partials, then the
// fusion's result).
absl::Status RowFusionLowering::LowerReduce(const Instruction& instr) {
  if (absl::Status s = Expand(*instr.operand(0)); !s.ok()) return s;
  Op op;
  if (columns_) {
    op.kind = Op::Kind::kColumnReduce;
    op.column = GetColumnReduceKernel(instr);
  } else {
    op.kind = Op::Kind::kReduce;
    op.reduce = GetRowReduceKernel(instr);
  }
  if (op.column == nullptr && op.reduce == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "fusion: reduce of ", instr.operand(0)->shape().ToString(), " in a ",
        columns_ ? "column" : "row", " fusion has no kernel in the cpu backend"));
  }
  const Value& x = values_.at(instr.operand(0));
  if (x.splat || (x.per_row >= 0 && x.per_row != row_size_)) {
    return absl::InternalError("fusion: a reduce of a value that is not whole rows");
  }
  const Value& init = values_.at(instr.operand(1));
  if (init.per_row > 0) return absl::InternalError("fusion: a reduce's init is not one element");
  op.inputs = {Read(*instr.operand(0), row_size_, true), Read(*instr.operand(1), 0, false)};
  if (columns_) AbsorbRowScaling(instr, op);
  if (columns_) {
    // Combined into the result after the blocks: a fusion result, its init
    // a fusion operand.
    auto result = output_of_.find(&instr);
    if (init.slot < 0 || result == output_of_.end()) {
      return absl::InternalError(
          "fusion: a column reduce's init computed in the region, or the reduce not returned");
    }
    op.output = Operand{result->second, -1, 0, ByteWidth(instr.shape().dtype)};
  } else {
    op.per_row = 1;
    op.output = Destination(instr, 1);
  }
  values_[&instr] = Value{op.output.slot, op.output.local, op.per_row, false};
  ops_.push_back(std::move(op));
  work_ += EstimateInstructionWork(instr);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Thunk>> RowFusionLowering::Lower(int64_t* work) {
  if (absl::Status s = FindGeometry(); !s.ok()) return s;
  for (size_t j = 0; j < region_.results().size(); ++j) {
    const Instruction* r = region_.results()[j];
    const Opcode op = r->opcode();
    const bool computed = IsElementwise(op) || op == Opcode::kReduce ||
                          op == Opcode::kBroadcastInDim;
    if (!computed || !output_of_.emplace(r, outputs_[j]).second) {
      return absl::UnimplementedError(
          "fusion: a row fusion returning a parameter, a reshape or one value twice is not "
          "supported by the cpu backend");
    }
  }
  for (const auto& instr : region_.instructions()) {
    const Opcode op = instr->opcode();
    absl::Status s;
    if (op == Opcode::kParameter) {
      values_[instr.get()] = Value{inputs_[instr->attrs<ParameterAttrs>().number], -1, -1, false};
    } else if (op == Opcode::kReshape || op == Opcode::kBitcastConvert) {
      Value aliased = values_.at(instr->operand(0));  // copied: the insert may rehash
      values_[instr.get()] = aliased;
    } else if (op == Opcode::kBroadcastInDim) {
      s = LowerBroadcast(*instr);
    } else if (op == Opcode::kReduce) {
      s = LowerReduce(*instr);
    } else if (IsElementwise(op)) {
      s = LowerElementwise(*instr);
    } else {
      s = absl::UnimplementedError(absl::StrCat(
          "fusion: ", OpcodeName(op), " in a row fusion is not supported by the cpu backend"));
    }
    if (!s.ok()) return s;
  }
  *work = work_;
  return std::unique_ptr<Thunk>(
      new RowFusionThunk(rows_, row_size_, std::move(ops_), locals_, columns_));
}

}  // namespace

bool IsRowFusionRegion(const Computation& region) {
  for (const auto& instr : region.instructions()) {
    if (instr->opcode() == Opcode::kReduce) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeRowFusionThunk(const Instruction& fusion,
                                                          const std::vector<SlotId>& inputs,
                                                          const std::vector<SlotId>& outputs,
                                                          int64_t* work) {
  if (std::unique_ptr<Thunk> generated = MakeRowJitThunk(fusion, inputs, outputs, work)) {
    return generated;
  }
  return RowFusionLowering(*fusion.called_computations()[0], inputs, outputs).Lower(work);
}

}  // namespace xjit::cpu
