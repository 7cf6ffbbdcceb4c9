#include "xjit/backends/cpu/map.h"

#include <cstring>
#include <utility>

#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_evaluator.h"

namespace xjit::cpu {
namespace {

class MapThunk : public Thunk {
 public:
  MapThunk(ScalarEvaluator fn, std::vector<SlotId> inputs, std::vector<int64_t> widths,
           SlotId output, int64_t out_width, int64_t n, int64_t cost)
      : fn_(std::move(fn)), inputs_(std::move(inputs)), widths_(std::move(widths)),
        output_(output), out_width_(out_width), n_(n), cost_(cost) {}

  void Execute(void* const* buffers) const override {
    auto* out = static_cast<unsigned char*>(buffers[output_]);
    ParallelFor(n_, 4096, cost_, [&](int64_t begin, int64_t end) {
      ScalarEvaluator::Frame frame = fn_.NewFrame();
      std::vector<const void*> params(inputs_.size());
      for (int64_t i = begin; i < end; ++i) {
        for (size_t k = 0; k < inputs_.size(); ++k) {
          params[k] = static_cast<const unsigned char*>(buffers[inputs_[k]]) + i * widths_[k];
        }
        fn_.Evaluate(frame, params.data());
        std::memcpy(out + i * out_width_, fn_.Result(frame, 0), out_width_);
      }
    });
  }

 private:
  ScalarEvaluator fn_;
  std::vector<SlotId> inputs_;
  std::vector<int64_t> widths_;
  SlotId output_;
  int64_t out_width_, n_, cost_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeMapThunk(const Instruction& instr,
                                                    std::vector<SlotId> inputs, SlotId output) {
  if (instr.called_computations().size() != 1 || inputs.size() != instr.operands().size()) {
    return absl::InternalError("map: operand count mismatch in the cpu lowering");
  }
  const Computation& region = *instr.called_computations()[0];
  absl::StatusOr<ScalarEvaluator> fn = ScalarEvaluator::Compile(region);
  if (!fn.ok()) return fn.status();
  if (fn->num_results() != 1) return absl::InternalError("map: computation must return one value");
  std::vector<int64_t> widths;
  for (const Instruction* o : instr.operands()) widths.push_back(ByteWidth(o->shape().dtype));
  const int64_t n = instr.shape().num_elements();
  const int64_t cost = n * static_cast<int64_t>(region.instructions().size());
  return std::unique_ptr<Thunk>(new MapThunk(*std::move(fn), std::move(inputs), std::move(widths),
                                             output, ByteWidth(instr.shape().dtype), n, cost));
}

}  // namespace xjit::cpu
