// The rows of a row fusion (passes/elementwise_fusion.h): a reduce of an
// array's trailing dims sees it as rows x row_size, each row contiguous, and a
// broadcast that spreads one value per row over its row undoes that. A fusion
// region holding such reduces (shape_inference_fusion.cc) computes every value
// over whole rows or one element per row.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "xjit/ir/graph.h"

namespace xjit {

// (rows, row size) of a reduce a row fusion can hold: one input whose
// trailing dims are reduced by a body ir/reduce_body.h recognises, with at
// least two rows of two elements; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> RowReduceShape(const Instruction& reduce);

// (rows, columns) of a reduce a column fusion can hold: one input whose
// leading dims are reduced by a body ir/reduce_body.h recognises, leaving at
// least two columns, over at least two rows: x.sum(axis=0) of [rows, cols].
std::optional<std::pair<int64_t, int64_t>> ColumnReduceShape(const Instruction& reduce);

// A broadcast_in_dim that spreads value r of its `rows`-element operand over
// row r of its `elements`-element result (the rows are the result's leading
// dims whose sizes multiply to `rows`).
bool IsRowBroadcast(const Instruction& broadcast, int64_t rows, int64_t elements);

// A broadcast_in_dim whose `row_size`-element operand becomes every row of the
// result (the result's trailing dims whose sizes multiply to `row_size`), as
// layer norm's scale and offset do.
bool IsRowInvariantBroadcast(const Instruction& broadcast, int64_t row_size);

}  // namespace xjit
