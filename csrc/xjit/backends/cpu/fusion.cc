#include "xjit/backends/cpu/fusion.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/backends/cpu/work_estimate.h"

namespace xjit::cpu {
namespace {

// Where a region value is read from: a slot (negative: a tile buffer), and
// whether it is one element splat over all positions.
struct Value {
  SlotId slot;
  bool splat;
};

bool ReadsSplatInPlace(Opcode op) {
  return IsElementwiseBinary(op) || op == Opcode::kSelect || op == Opcode::kClamp;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeFusionThunk(const Instruction& fusion,
                                                       const std::vector<SlotId>& inputs,
                                                       const std::vector<SlotId>& outputs,
                                                       int64_t* work) {
  if (fusion.called_computations().size() != 1) {
    return absl::InternalError("fusion: expected one region");
  }
  const Computation& region = *fusion.called_computations()[0];
  if (inputs.size() != region.parameters().size() || outputs.size() != region.results().size()) {
    return absl::InternalError("fusion: operand/result count mismatch in the cpu lowering");
  }
  absl::flat_hash_map<const Instruction*, SlotId> output_of;
  for (size_t j = 0; j < region.results().size(); ++j) {
    const Instruction* r = region.results()[j];
    // Each result is written by its own op (elementwise_fusion.cc returns no
    // reshape, broadcast or value twice).
    if (!IsElementwise(r->opcode()) || !output_of.emplace(r, outputs[j]).second) {
      return absl::UnimplementedError(
          "fusion: a region returning a reshape, a broadcast or one value twice is not supported "
          "by the cpu backend");
    }
  }
  absl::flat_hash_map<const Instruction*, Value> values;
  std::vector<std::unique_ptr<ElementwiseThunk>> chain;
  std::vector<SlotId> tile_local;
  auto new_local = [&]() {
    tile_local.push_back(-static_cast<SlotId>(tile_local.size()) - 1);
    return tile_local.back();
  };
  *work = 0;
  for (const auto& instr : region.instructions()) {
    const Opcode op = instr->opcode();
    if (op == Opcode::kParameter) {
      values[instr.get()] = {inputs[instr->attrs<ParameterAttrs>().number], false};
      continue;
    }
    if (op == Opcode::kReshape) {
      values[instr.get()] = values.at(instr->operand(0));
      continue;
    }
    if (op == Opcode::kBroadcastInDim) {
      const Value source = values.at(instr->operand(0));
      if (source.splat || instr->operand(0)->shape().num_elements() == 1) {
        values[instr.get()] = {source.slot, true};
        continue;
      }
      // A row or column spread over the result: read from the operand per
      // tile (elementwise_fusion.cc only brings in broadcasts of inputs).
      if (source.slot < 0) {
        return absl::UnimplementedError(
            "fusion: a broadcast of a value computed inside the region is not supported by the "
            "cpu backend");
      }
      SlotId out = new_local();
      chain.push_back(MakeBroadcastReadOp(*instr, source.slot, out));
      *work += instr->shape().num_elements();
      values[instr.get()] = {out, false};
      continue;
    }
    const int64_t n = instr->shape().num_elements();
    std::vector<SlotId> in;
    std::vector<bool> splat;
    for (const Instruction* o : instr->operands()) {
      Value v = values.at(o);
      if (v.splat && !ReadsSplatInPlace(op)) {
        SlotId filled = new_local();
        auto fill = MakeSplatOp(v.slot, filled, ByteWidth(o->shape().dtype), n);
        if (!fill.ok()) return fill.status();
        chain.push_back(std::move(*fill));
        *work += n;
        v = {filled, false};
      }
      in.push_back(v.slot);
      splat.push_back(v.splat);
    }
    auto result = output_of.find(instr.get());
    SlotId out = result != output_of.end() ? result->second : new_local();
    auto step = MakeElementwiseOp(*instr, std::move(in), out, splat);
    if (!step.ok()) return step.status();
    chain.push_back(std::move(*step));
    *work += EstimateInstructionWork(*instr);
    values[instr.get()] = {out, false};
  }
  if (chain.empty()) return absl::InternalError("fusion: region without element-wise ops");
  if (chain.size() == 1) return std::unique_ptr<Thunk>(std::move(chain.front()));
  return std::unique_ptr<Thunk>(new FusedElementwiseThunk(std::move(chain), tile_local));
}

}  // namespace xjit::cpu
