#include "xjit/backends/cpu/program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/work_estimate.h"

namespace xjit::cpu {

namespace {
constexpr int64_t kArenaAlignment = 64;
}

CpuProgram::CpuProgram(std::vector<Slot> slots, ThunkList thunks, std::vector<Literal> constants,
                       int64_t arena_bytes, int64_t num_parameters, int64_t num_results,
                       int64_t work, std::vector<bool> reusable)
    : slots_(std::move(slots)), thunks_(std::move(thunks)), constants_(std::move(constants)),
      arena_bytes_(arena_bytes), num_parameters_(num_parameters), num_results_(num_results),
      work_(work), reusable_(std::move(reusable)),
      arena_storage_(new unsigned char[arena_bytes + kArenaAlignment]) {
  auto base = reinterpret_cast<uintptr_t>(arena_storage_.get());
  unsigned char* arena = arena_storage_.get() + ((kArenaAlignment - base % kArenaAlignment) % kArenaAlignment);
  table_.assign(slots_.size(), nullptr);
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Slot& slot = slots_[s];
    switch (slot.kind) {
      case Slot::Kind::kArena: table_[s] = arena + slot.offset; break;
      case Slot::Kind::kConstant: table_[s] = constants_[slot.number].mutable_data(); break;
      case Slot::Kind::kParameter: parameter_slots_.push_back(static_cast<SlotId>(s)); break;
      case Slot::Kind::kResult: result_slots_.push_back(static_cast<SlotId>(s)); break;
    }
  }
}

bool CpuProgram::PrefersInlineExecution() const { return work_ <= kInlineWorkLimit; }

bool CpuProgram::ResultMayReuseParameter(int result, int parameter) const {
  if (result < 0 || result >= num_results_ || parameter < 0 || parameter >= num_parameters_) {
    return false;
  }
  const size_t index = static_cast<size_t>(result * num_parameters_ + parameter);
  return index < reusable_.size() && reusable_[index];
}

void CpuProgram::RunRegion(const void* const* args, void* const* results) {
  for (SlotId s : parameter_slots_) table_[s] = const_cast<void*>(args[slots_[s].number]);
  for (SlotId s : result_slots_) table_[s] = results[slots_[s].number];
  for (const auto& thunk : thunks_) thunk->Execute(table_.data());
}

bool CpuProgram::FlattenRegion(const void* const* args, void* const* results,
                               std::vector<KernelStep>* steps) {
  for (SlotId s : parameter_slots_) table_[s] = const_cast<void*>(args[slots_[s].number]);
  for (SlotId s : result_slots_) table_[s] = results[slots_[s].number];
  for (const auto& thunk : thunks_) {
    if (!thunk->AppendSteps(table_.data(), steps)) return false;
  }
  return true;
}

absl::Status CpuProgram::Run(absl::Span<const void* const> args,
                             absl::Span<void* const> results) {
  if (static_cast<int64_t>(args.size()) != num_parameters_ ||
      static_cast<int64_t>(results.size()) != num_results_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu program takes ", num_parameters_, " arguments and ", num_results_,
        " results; got ", args.size(), " and ", results.size()));
  }
  for (SlotId s : parameter_slots_) table_[s] = const_cast<void*>(args[slots_[s].number]);
  for (SlotId s : result_slots_) table_[s] = results[slots_[s].number];
  try {
    for (const auto& thunk : thunks_) thunk->Execute(table_.data());
  } catch (const ThunkError& e) {
    return e.status;
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN failed while running: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace xjit::cpu
