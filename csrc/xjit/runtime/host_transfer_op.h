// What the backends run for infeed, outfeed, send and recv: the values an op
// moves and the queue it moves them through (host_transfers.h), on the
// device the current thread runs a program for.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"

namespace xjit {

class HostTransferOp {
 public:
  // For an infeed, outfeed, send or recv instruction.
  static HostTransferOp Of(const Instruction& instr);

  // The types of the values moved: infeed/recv's data results, outfeed/send's
  // data operands (the token excluded).
  const std::vector<Shape>& value_shapes() const { return shapes_; }
  bool receives() const { return op_ == Opcode::kInfeed || op_ == Opcode::kRecv; }

  // infeed/recv: takes one value per data result from the queue into `out`
  // (row-major storage of value_shapes()).
  absl::Status Receive(absl::Span<void* const> out) const;
  // outfeed/send: appends each value of `in` to the queue.
  absl::Status Transmit(absl::Span<const void* const> in) const;

 private:
  Opcode op_ = Opcode::kInfeed;
  int64_t channel_ = 0;
  std::vector<Shape> shapes_;
};

}  // namespace xjit
