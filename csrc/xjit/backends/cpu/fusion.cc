#include "xjit/backends/cpu/fusion.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/backends/cpu/fused_patterns.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/row_fusion.h"
#include "xjit/backends/cpu/work_estimate.h"

namespace xjit::cpu {
namespace {

// Where a region value is read from: a slot (negative: a tile buffer), and
// whether it is one element splat over all positions.
struct Value {
  SlotId slot;
  bool splat;
};

// A pattern's kernel over its operands (each read in place, stride 0 when a splat).
std::unique_ptr<ElementwiseThunk> MakePatternOp(const FusedPattern& pattern,
                                                const Instruction& root, std::vector<SlotId> in,
                                                const std::vector<bool>& splat, SlotId out) {
  std::vector<int64_t> strides, widths;
  for (size_t i = 0; i < pattern.operands.size(); ++i) {
    strides.push_back(splat[i] ? 0 : 1);
    widths.push_back(ByteWidth(pattern.operands[i]->shape().dtype));
  }
  return std::make_unique<ElementwiseThunk>(pattern.kernel, std::move(in), std::move(strides),
                                            std::move(widths), out,
                                            ByteWidth(root.shape().dtype),
                                            root.shape().num_elements());
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
  if (IsRowFusionRegion(region)) return MakeRowFusionThunk(fusion, inputs, outputs, work);
  if (std::unique_ptr<Thunk> jit = MakeJitFusionThunk(fusion, inputs, outputs, work)) return jit;
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
  const RegionPatterns patterns = FindFusedPatterns(region);
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
    // Aliases: a reshape, and a bitcast_convert between types of one width
    // (elementwise_fusion.h): the same bytes, read by the next op as its type.
    if (op == Opcode::kReshape || op == Opcode::kBitcastConvert) {
      Value aliased = values.at(instr->operand(0));  // copied: the insert may rehash
      values[instr.get()] = aliased;
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
    if (patterns.absorbed.contains(instr.get())) {  // run by its pattern's kernel
      *work += n;
      continue;
    }
    auto pattern = patterns.at_root.find(instr.get());
    const bool is_pattern = pattern != patterns.at_root.end();
    const std::vector<const Instruction*> operands =
        is_pattern ? pattern->second.operands
                   : std::vector<const Instruction*>(instr->operands().begin(),
                                                     instr->operands().end());
    auto result = output_of.find(instr.get());
    // An op of splats only (a convert of a scalar constant, a product of two)
    // computes one element per tile and is itself a splat, unless it is a
    // result of the region, which must be written in full.
    bool one_element = result == output_of.end() && !operands.empty();
    for (const Instruction* o : operands) one_element &= values.at(o).splat;
    std::vector<SlotId> in;
    std::vector<bool> splat;
    for (const Instruction* o : operands) {
      Value v = values.at(o);
      if (v.splat && !one_element && !is_pattern && !ReadsSplatInPlace(op)) {
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
    SlotId out = result != output_of.end() ? result->second : new_local();
    absl::StatusOr<std::unique_ptr<ElementwiseThunk>> step =
        is_pattern ? absl::StatusOr<std::unique_ptr<ElementwiseThunk>>(
                         MakePatternOp(pattern->second, *instr, std::move(in), splat, out))
                   : MakeElementwiseOp(*instr, std::move(in), out, splat);
    if (!step.ok()) return step.status();
    if (one_element) (*step)->ComputeOneElement();
    chain.push_back(std::move(*step));
    *work += EstimateInstructionWork(*instr);
    values[instr.get()] = {out, one_element};
  }
  if (chain.empty()) return absl::InternalError("fusion: region without element-wise ops");
  if (chain.size() == 1) return std::unique_ptr<Thunk>(std::move(chain.front()));
  return std::unique_ptr<Thunk>(new FusedElementwiseThunk(std::move(chain), tile_local));
}

}  // namespace xjit::cpu
