// gather and dynamic_slice on the cpu: per index vector (gather) or once
// (dynamic_slice), clamp the start and copy the window as a strided box
// whose innermost contiguous run is one memcpy (a gather of rows is one
// memcpy per index). Parallel over the index vectors above the threshold.
// scatter and dynamic_update_slice are in scatter.h.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/index_wrap.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// wrap != 0: `inputs`' indices are the raw ones of an absorbed normalisation
// (index_wrap.h); `fill`: the gather applies an absorbed fill (index_wrap.h),
// writing `output` as the fill's fusion. Only a gather of rows (GatherOfRows)
// takes them, a fill only where GatherFillsRows(instr), or a gather of
// columns of 4- or 8-byte elements (GatherOfColumns: both at once).
absl::StatusOr<std::unique_ptr<Thunk>> MakeGatherThunk(const Instruction& instr,
                                                       std::vector<SlotId> inputs, SlotId output,
                                                       int64_t wrap = 0,
                                                       const IndexFill* fill = nullptr);
// Whether the gather runs on the row kernel (row_indexing.h).
bool GatherOfRows(const Instruction& instr);
// Whether that kernel can apply a fill for it.
bool GatherFillsRows(const Instruction& instr);
// Whether the gather runs as a gather of columns (x[..., idx]) of 4- or
// 8-byte elements, which can wrap raw indices and apply a fill.
bool GatherOfColumns(const Instruction& instr);
absl::StatusOr<std::unique_ptr<Thunk>> MakeDynamicSliceThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             SlotId output);

// The element offset of a `sizes` window in a row-major array of `dims`
// (`strides`) at the starts read from `starts[d]` (of `index_type`), each
// clamped so the window fits: dynamic_slice's and dynamic_update_slice's rule.
int64_t ClampedStartOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& strides, DType index_type,
                           const void* const* starts);
// The bytes of a box of `sizes` elements of `width` bytes in a row-major
// array of `dims` when the box is one contiguous run of it (dims of one,
// then any, then whole dims), else -1.
int64_t ContiguousBoxBytes(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                           int64_t width);
// Copies a box of `sizes` elements of `width` bytes from src (element strides
// src_strides) to dst (dst_strides); the last dimension is one memcpy when
// `inner_contiguous`.
void CopyBox(const unsigned char* src, unsigned char* dst, int64_t width,
             const std::vector<int64_t>& sizes, const std::vector<int64_t>& src_strides,
             const std::vector<int64_t>& dst_strides, bool inner_contiguous);

}  // namespace xjit::cpu
