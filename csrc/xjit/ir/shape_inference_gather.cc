// Indexing ops whose positions are data: gather, scatter, dynamic_slice and
// dynamic_update_slice. Each check names the StableHLO constraint it enforces
// (C<n> of the op's section in the spec).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

using Dims = absl::Span<const int64_t>;

absl::Status Error(absl::string_view op, absl::string_view constraint, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat(op, ": ", msg, " (", constraint, ")"));
}

absl::Status CheckSorted(absl::string_view op, absl::string_view c, absl::string_view what,
                         Dims dims) {
  if (!std::is_sorted(dims.begin(), dims.end())) {
    return Error(op, c, absl::StrCat(what, " must be sorted, got ", DimsToString(dims)));
  }
  return absl::OkStatus();
}

absl::Status CheckUnique(absl::string_view op, absl::string_view c, absl::string_view what,
                         Dims dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = i + 1; j < dims.size(); ++j) {
      if (dims[i] == dims[j]) {
        return Error(op, c, absl::StrCat(what, " must not repeat a dimension, got ",
                                         DimsToString(dims)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRange(absl::string_view op, absl::string_view c, absl::string_view what,
                        Dims dims, int64_t rank) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Error(op, c, absl::StrCat(what, " ", DimsToString(dims), " has dimension ", d,
                                       " out of range [0, ", rank, ")"));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Concat(Dims a, Dims b) {
  std::vector<int64_t> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool Contains(Dims dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

#define XJIT_RETURN_IF_ERROR(expr)          \
  do {                                      \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

// The checks gather and scatter share, on (operand/input, indices) with the
// field names of each op. `c` holds the constraint labels in order:
// index_vector_dim range, index vector size, window-dims uniqueness,
// collapsed sorted, collapsed range, batching sorted, batching range, indices
// batching unique, indices batching range, ivd not batching, batching sizes
// equal, batching dims equal, start map unique, start map range.
struct IndexingNames {
  const char* op;
  const char* collapsed;        // collapsed_slice_dims / inserted_window_dims
  const char* operand_batching; // operand_batching_dims / input_batching_dims
  const char* indices_batching; // start_indices_batching_dims / scatter_indices_batching_dims
  const char* start_map;        // start_index_map / scatter_dims_to_operand_dims
  const char* operand;          // operand / inputs[0]
  const char* indices;          // start_indices / scatter_indices
  const char* c[14];
};

absl::Status CheckIndexing(const IndexingNames& n, const Shape& operand, const Shape& indices,
                           Dims collapsed, Dims operand_batching, Dims indices_batching,
                           Dims start_map, int64_t index_vector_dim) {
  const int64_t rank = operand.rank(), irank = indices.rank();
  if (!IsInteger(indices.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(n.op, ": ", n.indices,
                                                   " must have an integer type, got ",
                                                   indices.ToString()));
  }
  if (index_vector_dim < 0 || index_vector_dim > irank) {
    return Error(n.op, n.c[0], absl::StrCat("index_vector_dim ", index_vector_dim,
                                            " is out of range [0, ", irank, "]"));
  }
  const int64_t vec = index_vector_dim < irank ? indices.dims[index_vector_dim] : 1;
  if (static_cast<int64_t>(start_map.size()) != vec) {
    return Error(n.op, n.c[1], absl::StrCat("size of ", n.start_map, " ", DimsToString(start_map),
                                            " must equal the index vector size ", vec));
  }
  XJIT_RETURN_IF_ERROR(CheckUnique(n.op, n.c[2],
                                   absl::StrCat(n.collapsed, " + ", n.operand_batching),
                                   Concat(collapsed, operand_batching)));
  XJIT_RETURN_IF_ERROR(CheckSorted(n.op, n.c[3], n.collapsed, collapsed));
  XJIT_RETURN_IF_ERROR(CheckRange(n.op, n.c[4], n.collapsed, collapsed, rank));
  XJIT_RETURN_IF_ERROR(CheckSorted(n.op, n.c[5], n.operand_batching, operand_batching));
  XJIT_RETURN_IF_ERROR(CheckRange(n.op, n.c[6], n.operand_batching, operand_batching, rank));
  XJIT_RETURN_IF_ERROR(CheckUnique(n.op, n.c[7], n.indices_batching, indices_batching));
  XJIT_RETURN_IF_ERROR(CheckRange(n.op, n.c[8], n.indices_batching, indices_batching, irank));
  if (Contains(indices_batching, index_vector_dim)) {
    return Error(n.op, n.c[9], absl::StrCat("index_vector_dim ", index_vector_dim,
                                            " must not be in ", n.indices_batching));
  }
  if (operand_batching.size() != indices_batching.size()) {
    return Error(n.op, n.c[10], absl::StrCat(n.operand_batching, " and ", n.indices_batching,
                                             " must have the same size, got ",
                                             DimsToString(operand_batching), " and ",
                                             DimsToString(indices_batching)));
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    if (operand.dims[operand_batching[i]] != indices.dims[indices_batching[i]]) {
      return Error(n.op, n.c[11],
                   absl::StrCat(n.operand, " dimension ", operand_batching[i], " (size ",
                                operand.dims[operand_batching[i]], ") and ", n.indices,
                                " dimension ", indices_batching[i], " (size ",
                                indices.dims[indices_batching[i]], ") are batched together and ",
                                "must have the same size"));
    }
  }
  XJIT_RETURN_IF_ERROR(CheckUnique(n.op, n.c[12],
                                   absl::StrCat(n.start_map, " + ", n.operand_batching),
                                   Concat(start_map, operand_batching)));
  XJIT_RETURN_IF_ERROR(CheckRange(n.op, n.c[13], n.start_map, start_map, rank));
  return absl::OkStatus();
}

// The sizes of `indices` without index_vector_dim: gather's batch dims,
// scatter's update scatter dims.
std::vector<int64_t> IndexBatchSizes(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != index_vector_dim) out.push_back(indices.dims[d]);
  }
  return out;
}

absl::Status CheckStartScalars(absl::string_view op, Operands starts, int64_t rank,
                               absl::string_view c_count, absl::string_view c_type) {
  if (static_cast<int64_t>(starts.size()) != rank) {
    return Error(op, c_count, absl::StrCat("expected ", rank,
                                           " start indices (one per operand dimension), got ",
                                           starts.size()));
  }
  for (const Shape* s : starts) {
    if (s->rank() != 0 || !IsInteger(s->dtype) || s->dtype != starts[0]->dtype) {
      return Error(op, c_type, absl::StrCat("start indices must be 0-d integer tensors of one "
                                            "type, got ",
                                            ShapesToString(starts)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferGather(const Shape& operand, const Shape& start_indices,
                                  const GatherAttrs& attrs) {
  const GatherDimensionNumbers& dn = attrs.dimension_numbers;
  const char* op = "gather";
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(dn.offset_dims.size() + dn.collapsed_slice_dims.size() +
                           dn.operand_batching_dims.size()) != rank) {
    return Error(op, "C1", absl::StrCat("size(offset_dims) + size(collapsed_slice_dims) + "
                                        "size(operand_batching_dims) must equal the operand's "
                                        "rank ", rank, ", got ", DimsToString(dn.offset_dims),
                                        ", ", DimsToString(dn.collapsed_slice_dims), ", ",
                                        DimsToString(dn.operand_batching_dims)));
  }
  static const IndexingNames kNames = {
      "gather", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
      "start_index_map", "operand", "start_indices",
      {"C2", "C3", "C6", "C7", "C8", "C10", "C11", "C13", "C14", "C15", "C16", "C17", "C18",
       "C19"}};
  XJIT_RETURN_IF_ERROR(CheckIndexing(kNames, operand, start_indices, dn.collapsed_slice_dims,
                                     dn.operand_batching_dims, dn.start_indices_batching_dims,
                                     dn.start_index_map, dn.index_vector_dim));
  XJIT_RETURN_IF_ERROR(CheckSorted(op, "C4", "offset_dims", dn.offset_dims));
  XJIT_RETURN_IF_ERROR(CheckUnique(op, "C4", "offset_dims", dn.offset_dims));
  if (static_cast<int64_t>(attrs.slice_sizes.size()) != rank) {
    return Error(op, "C20", absl::StrCat("slice_sizes ", DimsToString(attrs.slice_sizes),
                                         " must have one size per operand dimension (rank ",
                                         rank, ")"));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (attrs.slice_sizes[d] < 0 || attrs.slice_sizes[d] > operand.dims[d]) {
      return Error(op, "C21", absl::StrCat("slice_sizes ", DimsToString(attrs.slice_sizes),
                                           " must lie within the operand's shape ",
                                           operand.ToString()));
    }
  }
  for (int64_t d : dn.collapsed_slice_dims) {
    if (attrs.slice_sizes[d] > 1) {
      return Error(op, "C9", absl::StrCat("collapsed_slice_dims dimension ", d,
                                          " must have slice size <= 1, got ",
                                          attrs.slice_sizes[d]));
    }
  }
  for (int64_t d : dn.operand_batching_dims) {
    if (attrs.slice_sizes[d] > 1) {
      return Error(op, "C12", absl::StrCat("operand_batching_dims dimension ", d,
                                           " must have slice size <= 1, got ",
                                           attrs.slice_sizes[d]));
    }
  }
  std::vector<int64_t> batch = IndexBatchSizes(start_indices, dn.index_vector_dim);
  std::vector<int64_t> offset;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) && !Contains(dn.operand_batching_dims, d)) {
      offset.push_back(attrs.slice_sizes[d]);
    }
  }
  const int64_t result_rank = static_cast<int64_t>(batch.size() + offset.size());
  XJIT_RETURN_IF_ERROR(CheckRange(op, "C5", "offset_dims", dn.offset_dims, result_rank));
  std::vector<int64_t> dims;
  size_t b = 0, o = 0;
  for (int64_t d = 0; d < result_rank; ++d) {  // C22
    dims.push_back(Contains(dn.offset_dims, d) ? offset[o++] : batch[b++]);
  }
  return Shape(operand.dtype, std::move(dims));
}

absl::StatusOr<Shape> InferScatter(Operands operands, const ScatterAttrs& attrs, Called called) {
  const char* op = "scatter";
  if (operands.size() < 3 || operands.size() % 2 == 0) {
    return Error(op, "C5", absl::StrCat("expected N inputs, the scatter indices and N updates "
                                        "(N >= 1), got ", operands.size(), " operands"));
  }
  const size_t n = (operands.size() - 1) / 2;
  Operands inputs = operands.subspan(0, n), updates = operands.subspan(n + 1, n);
  const Shape& indices = *operands[n];
  const Shape& input = *inputs[0];
  const ScatterDimensionNumbers& dn = attrs.scatter_dimension_numbers;
  for (const Shape* s : inputs) {
    if (s->dims != input.dims) {
      return Error(op, "C1", absl::StrCat("inputs must have the same shape, got ",
                                          ShapesToString(inputs)));
    }
  }
  for (const Shape* s : updates) {
    if (s->dims != updates[0]->dims) {
      return Error(op, "C3", absl::StrCat("updates must have the same shape, got ",
                                          ShapesToString(updates)));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (updates[i]->dtype != inputs[i]->dtype) {
      return Error(op, "C6", absl::StrCat("update ", i, " ", updates[i]->ToString(),
                                          " must have the element type of input ", i, " ",
                                          inputs[i]->ToString()));
    }
  }
  const int64_t rank = input.rank();
  if (static_cast<int64_t>(dn.update_window_dims.size() + dn.inserted_window_dims.size() +
                           dn.input_batching_dims.size()) != rank) {
    return Error(op, "C2", absl::StrCat("size(update_window_dims) + size(inserted_window_dims) + "
                                        "size(input_batching_dims) must equal the inputs' rank ",
                                        rank));
  }
  static const IndexingNames kNames = {
      "scatter", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
      "scatter_dims_to_operand_dims", "inputs[0]", "scatter_indices",
      {"C22", "C19", "C9", "C10", "C11", "C12", "C13", "C14", "C15", "C16", "C17", "C18", "C20",
       "C21"}};
  XJIT_RETURN_IF_ERROR(CheckIndexing(kNames, input, indices, dn.inserted_window_dims,
                                     dn.input_batching_dims, dn.scatter_indices_batching_dims,
                                     dn.scatter_dims_to_operand_dims, dn.index_vector_dim));
  XJIT_RETURN_IF_ERROR(CheckSorted(op, "C7", "update_window_dims", dn.update_window_dims));
  XJIT_RETURN_IF_ERROR(CheckUnique(op, "C7", "update_window_dims", dn.update_window_dims));
  const Shape& update = *updates[0];
  XJIT_RETURN_IF_ERROR(
      CheckRange(op, "C8", "update_window_dims", dn.update_window_dims, update.rank()));
  // C4: updates = scatter sizes (indices without index_vector_dim) at the
  // non-window dims, window sizes (bounded by the input's non-inserted,
  // non-batching dims) at update_window_dims.
  std::vector<int64_t> scatter_sizes = IndexBatchSizes(indices, dn.index_vector_dim);
  std::vector<int64_t> window_bounds;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_bounds.push_back(input.dims[d]);
    }
  }
  if (update.rank() != static_cast<int64_t>(scatter_sizes.size() + window_bounds.size())) {
    return Error(op, "C4", absl::StrCat("updates must have rank ",
                                        scatter_sizes.size() + window_bounds.size(),
                                        " (scatter dims + window dims), got ",
                                        update.ToString()));
  }
  size_t s = 0, w = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (Contains(dn.update_window_dims, d)) {
      if (update.dims[d] < 0 || update.dims[d] > window_bounds[w]) {
        return Error(op, "C4", absl::StrCat("updates dimension ", d, " (size ", update.dims[d],
                                            ") exceeds the inputs' window bound ",
                                            window_bounds[w]));
      }
      ++w;
    } else {
      if (update.dims[d] != scatter_sizes[s]) {
        return Error(op, "C4", absl::StrCat("updates dimension ", d, " (size ", update.dims[d],
                                            ") must match scatter_indices' size ",
                                            scatter_sizes[s]));
      }
      ++s;
    }
  }
  if (called.size() != 1 || called[0] == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("scatter: expected one update_computation region, got ", called.size()));
  }
  // C23: (tensor<E0>, ..., tensor<EN-1>, tensor<E0>, ..., tensor<EN-1>) ->
  // (tensor<E0>, ..., tensor<EN-1>); xjit takes Ei = the inputs' element types.
  const Computation& body = *called[0];
  std::vector<Shape> want_params, want_results, got_params, got_results;
  for (int pass = 0; pass < 2; ++pass) {
    for (const Shape* in : inputs) want_params.push_back(Shape(in->dtype, {}));
  }
  for (const Shape* in : inputs) want_results.push_back(Shape(in->dtype, {}));
  bool gap = false;
  for (const Instruction* p : body.parameters()) {
    if (p == nullptr) gap = true; else got_params.push_back(p->shape());
  }
  for (const Instruction* r : body.results()) {
    if (r == nullptr) gap = true; else got_results.push_back(r->shape());
  }
  if (gap || got_params != want_params || got_results != want_results) {
    std::vector<const Shape*> wp, gp, gr;
    for (const Shape& x : want_params) wp.push_back(&x);
    for (const Shape& x : got_params) gp.push_back(&x);
    for (const Shape& x : got_results) gr.push_back(&x);
    return Error(op, "C23", absl::StrCat("update_computation ", body.name(), " must take (",
                                         ShapesToString(wp),
                                         ") and return one scalar of each input's element type, "
                                         "got (", ShapesToString(gp), ") -> (",
                                         ShapesToString(gr), ")"));
  }
  if (n == 1) return input;  // C24, C25
  std::vector<Shape> parts;
  for (const Shape* in : inputs) parts.push_back(*in);
  return Shape::Tuple(std::move(parts));
}

absl::StatusOr<Shape> InferDynamicSlice(Operands operands, const DynamicSliceAttrs& attrs) {
  const char* op = "dynamic_slice";
  if (operands.empty()) return absl::InvalidArgumentError("dynamic_slice: expected an operand");
  const Shape& x = *operands[0];
  if (static_cast<int64_t>(attrs.slice_sizes.size()) != x.rank()) {
    return Error(op, "C2", absl::StrCat("slice_sizes ", DimsToString(attrs.slice_sizes),
                                        " must have one size per operand dimension (rank ",
                                        x.rank(), ")"));
  }
  XJIT_RETURN_IF_ERROR(CheckStartScalars(op, operands.subspan(1), x.rank(), "C2", "C3"));
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (attrs.slice_sizes[d] < 0 || attrs.slice_sizes[d] > x.dims[d]) {
      return Error(op, "C4", absl::StrCat("slice_sizes ", DimsToString(attrs.slice_sizes),
                                          " must lie within the operand's shape ",
                                          x.ToString()));
    }
  }
  return Shape(x.dtype, attrs.slice_sizes);  // C1, C5
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(Operands operands) {
  const char* op = "dynamic_update_slice";
  if (operands.size() < 2) {
    return absl::InvalidArgumentError("dynamic_update_slice: expected an operand and an update");
  }
  const Shape &x = *operands[0], &update = *operands[1];
  if (update.dtype != x.dtype) {
    return Error(op, "C2", absl::StrCat("update ", update.ToString(),
                                        " must have the operand's element type ", x.ToString()));
  }
  if (update.rank() != x.rank()) {
    return Error(op, "C3", absl::StrCat("update ", update.ToString(),
                                        " must have the operand's rank ", x.ToString()));
  }
  XJIT_RETURN_IF_ERROR(CheckStartScalars(op, operands.subspan(2), x.rank(), "C4", "C5"));
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (update.dims[d] > x.dims[d]) {
      return Error(op, "C6", absl::StrCat("update ", update.ToString(),
                                          " must fit in the operand ", x.ToString()));
    }
  }
  return x;  // C1
}

#undef XJIT_RETURN_IF_ERROR

}  // namespace shape_inference
}  // namespace xjit
