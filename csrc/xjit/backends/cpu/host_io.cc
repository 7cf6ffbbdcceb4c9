#include "xjit/backends/cpu/host_io.h"

#include "absl/strings/str_cat.h"
#include "xjit/runtime/host_transfer_op.h"

namespace xjit::cpu {
namespace {

// A token is one placeholder byte nothing reads; it is written anyway so
// that no result buffer is left uninitialised.
void WriteToken(void* token) { *static_cast<uint8_t*>(token) = 0; }

class AfterAllThunk : public Thunk {
 public:
  explicit AfterAllThunk(SlotId token) : token_(token) {}
  void Execute(void* const* buffers) const override { WriteToken(buffers[token_]); }

 private:
  SlotId token_;
};

// infeed/recv: (token) -> (values..., token); outfeed/send: (values..., token) -> token.
class HostTransferThunk : public Thunk {
 public:
  HostTransferThunk(HostTransferOp transfer, std::vector<SlotId> values, SlotId token)
      : transfer_(std::move(transfer)), values_(std::move(values)), token_(token) {}

  void Execute(void* const* buffers) const override {
    absl::Status status;
    if (transfer_.receives()) {
      std::vector<void*> out;
      for (SlotId v : values_) out.push_back(buffers[v]);
      status = transfer_.Receive(out);
    } else {
      std::vector<const void*> in;
      for (SlotId v : values_) in.push_back(buffers[v]);
      status = transfer_.Transmit(in);
    }
    if (!status.ok()) throw ThunkError{std::move(status)};
    WriteToken(buffers[token_]);
  }

 private:
  HostTransferOp transfer_;
  std::vector<SlotId> values_;
  SlotId token_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeHostIoThunk(const Instruction& instr,
                                                       const std::vector<SlotId>& in,
                                                       const std::vector<SlotId>& out) {
  if (instr.opcode() == Opcode::kAfterAll) {
    return std::unique_ptr<Thunk>(std::make_unique<AfterAllThunk>(out.at(0)));
  }
  HostTransferOp transfer = HostTransferOp::Of(instr);
  const size_t n = transfer.value_shapes().size();
  const std::vector<SlotId>& values = transfer.receives() ? out : in;
  if (values.size() != n + 1 || out.empty()) {
    return absl::InternalError(absl::StrCat(OpcodeName(instr.opcode()),
                                            ": unexpected buffer count (bug in lowering)"));
  }
  return std::unique_ptr<Thunk>(std::make_unique<HostTransferThunk>(
      std::move(transfer), std::vector<SlotId>(values.begin(), values.begin() + n), out.back()));
}

}  // namespace xjit::cpu
