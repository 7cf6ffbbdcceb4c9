#include "xjit/runtime/host_transfer_op.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "xjit/runtime/host_transfers.h"

namespace xjit {
namespace {

HostTransferQueue& QueueOf(Opcode op, int64_t channel) {
  const std::string& platform = RunningPlatform();
  switch (op) {
    case Opcode::kInfeed: return InfeedQueue(platform, RunningDevice());
    case Opcode::kOutfeed: return OutfeedQueue(platform, RunningDevice());
    default: return ChannelQueue(platform, channel);
  }
}

}  // namespace

HostTransferOp HostTransferOp::Of(const Instruction& instr) {
  HostTransferOp t;
  t.op_ = instr.opcode();
  if (t.op_ == Opcode::kSend || t.op_ == Opcode::kRecv) {
    t.channel_ = instr.attrs<SendRecvAttrs>().channel_handle.handle;
  }
  if (t.receives()) {
    const std::vector<Shape>& parts = instr.shape().tuple_shapes;
    t.shapes_.assign(parts.begin(), parts.end() - 1);  // all but the token
  } else {
    for (size_t i = 0; i + 1 < instr.operands().size(); ++i) {
      t.shapes_.push_back(instr.operand(i)->shape());
    }
  }
  return t;
}

absl::Status HostTransferOp::Receive(absl::Span<void* const> out) const {
  HostTransferQueue& queue = QueueOf(op_, channel_);
  for (size_t i = 0; i < shapes_.size(); ++i) {
    absl::StatusOr<Literal> value = queue.Pop(shapes_[i], HostTransferTimeout());
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat(OpcodeName(op_), ": ", value.status().message()));
    }
    if (value->size_bytes() > 0) std::memcpy(out[i], value->data(), value->size_bytes());
  }
  return absl::OkStatus();
}

absl::Status HostTransferOp::Transmit(absl::Span<const void* const> in) const {
  HostTransferQueue& queue = QueueOf(op_, channel_);
  for (size_t i = 0; i < shapes_.size(); ++i) queue.Push(Literal(shapes_[i], in[i]));
  return absl::OkStatus();
}

}  // namespace xjit
