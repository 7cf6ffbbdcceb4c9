#include "xjit/backends/cpu/custom_call.h"

#include "xjit/runtime/custom_call_runner.h"

namespace xjit::cpu {
namespace {

class CustomCallThunk : public Thunk {
 public:
  CustomCallThunk(CustomCallRunner runner, std::vector<SlotId> in, std::vector<SlotId> out)
      : runner_(std::move(runner)), in_(std::move(in)), out_(std::move(out)) {}

  void Execute(void* const* buffers) const override {
    std::vector<const void*> in;
    std::vector<void*> out;
    for (SlotId s : in_) in.push_back(buffers[s]);
    for (SlotId s : out_) out.push_back(buffers[s]);
    if (absl::Status s = runner_.Run(in, out); !s.ok()) throw ThunkError{std::move(s)};
  }

 private:
  CustomCallRunner runner_;
  std::vector<SlotId> in_, out_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeCustomCallThunk(const Instruction& instr,
                                                           std::vector<SlotId> in,
                                                           std::vector<SlotId> out) {
  absl::StatusOr<CustomCallRunner> runner = CustomCallRunner::Create(instr);
  if (!runner.ok()) return runner.status();
  if (out.size() != runner->result_shapes().size()) {
    return absl::InternalError("custom_call: result buffers do not match the results");
  }
  return std::unique_ptr<Thunk>(
      std::make_unique<CustomCallThunk>(*std::move(runner), std::move(in), std::move(out)));
}

}  // namespace xjit::cpu
