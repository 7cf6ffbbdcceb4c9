// gather, scatter, dynamic_slice and dynamic_update_slice, written from the
// spec's formulas one result (update) index at a time: the ground truth the
// cpu kernels are tested against. gather and the dynamic slices clamp their
// start indices; scatter skips an update whose result index falls outside.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::reference {
namespace {

bool Contains(absl::Span<const int64_t> dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Every element of an integer literal as int64 (row-major).
absl::StatusOr<std::vector<int64_t>> IndexValues(const Literal& x) {
  if (!IsInteger(x.shape().dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices must be integers, got ", x.shape().ToString()));
  }
  std::vector<int64_t> out(x.shape().num_elements());
  DispatchDType(x.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      for (size_t i = 0; i < out.size(); ++i) {
        const T v = x.data_as<T>()[i];
        // An unsigned index beyond int64 is out of range all the same.
        out[i] = (std::is_unsigned_v<T> && v > static_cast<T>(INT64_MAX)) ? INT64_MAX
                                                                          : static_cast<int64_t>(v);
      }
    }
  });
  return out;
}

// The geometry gather and scatter share (spec: start_index, full_start_index,
// full_batching_index, full_offset_index / full_window_index).
struct IndexMap {
  absl::Span<const int64_t> collapsed, operand_batching, indices_batching, start_map;
  int64_t index_vector_dim;
  std::vector<int64_t> indices_dims;
  const std::vector<int64_t>* indices;
  absl::Span<const int64_t> window_dims;  // offset_dims / update_window_dims

  // The operand index for `index` (a result or update index), before
  // clamping: start and batching parts in `start`, the window part in `window`.
  void Map(const std::vector<int64_t>& index, int64_t operand_rank, std::vector<int64_t>& start,
           std::vector<int64_t>& window) const {
    std::vector<int64_t> batch_index, window_index;
    for (size_t d = 0; d < index.size(); ++d) {
      (Contains(window_dims, d) ? window_index : batch_index).push_back(index[d]);
    }
    start.assign(operand_rank, 0);
    const int64_t irank = static_cast<int64_t>(indices_dims.size());
    std::vector<int64_t> pos(irank);
    for (size_t k = 0; k < start_map.size(); ++k) {
      size_t b = 0;
      for (int64_t d = 0; d < irank; ++d) pos[d] = d == index_vector_dim ? k : batch_index[b++];
      start[start_map[k]] = (*indices)[LinearIndex(pos, indices_dims)];
    }
    for (size_t i = 0; i < operand_batching.size(); ++i) {
      const int64_t ds = indices_batching[i];
      start[operand_batching[i]] = batch_index[ds - (ds < index_vector_dim ? 0 : 1)];
    }
    window.assign(operand_rank, 0);
    size_t w = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      if (!Contains(collapsed, d) && !Contains(operand_batching, d)) window[d] = window_index[w++];
    }
  }
};

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

}  // namespace

absl::StatusOr<Literal> EvalGather(const Literal& operand, const Literal& start_indices,
                                   const GatherAttrs& attrs, const Shape& result_shape) {
  const GatherDimensionNumbers& dn = attrs.dimension_numbers;
  absl::StatusOr<std::vector<int64_t>> idx = IndexValues(start_indices);
  if (!idx.ok()) return idx.status();
  const std::vector<int64_t>& odims = operand.shape().dims;
  const int64_t rank = static_cast<int64_t>(odims.size());
  if (static_cast<int64_t>(attrs.slice_sizes.size()) != rank) {
    return absl::InvalidArgumentError("gather: slice_sizes do not match the operand's rank");
  }
  IndexMap map{dn.collapsed_slice_dims, dn.operand_batching_dims, dn.start_indices_batching_dims,
               dn.start_index_map, dn.index_vector_dim, start_indices.shape().dims, &*idx,
               dn.offset_dims};
  Literal result(result_shape);
  const int64_t w = ByteWidth(operand.shape().dtype);
  std::vector<int64_t> start, window, in(rank);
  ForEachIndex(result_shape.dims, [&](const std::vector<int64_t>& out) {
    map.Map(out, rank, start, window);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t s = start[d];
      if (!Contains(dn.operand_batching_dims, d)) {  // batching coordinates are never clamped
        s = Clamp(s, 0, odims[d] - attrs.slice_sizes[d]);
      }
      in[d] = s + window[d];
    }
    std::memcpy(result.mutable_data() + LinearIndex(out, result_shape.dims) * w,
                operand.data() + LinearIndex(in, odims) * w, w);
  });
  return result;
}

absl::StatusOr<std::vector<Literal>> EvalScatter(absl::Span<const Literal* const> inputs,
                                                 const Literal& scatter_indices,
                                                 absl::Span<const Literal* const> updates,
                                                 const ScatterAttrs& attrs,
                                                 const ReduceBody& update_computation) {
  const ScatterDimensionNumbers& dn = attrs.scatter_dimension_numbers;
  if (inputs.empty() || inputs.size() != updates.size()) {
    return absl::InvalidArgumentError("scatter: needs N inputs and N updates");
  }
  absl::StatusOr<std::vector<int64_t>> idx = IndexValues(scatter_indices);
  if (!idx.ok()) return idx.status();
  const std::vector<int64_t>& idims = inputs[0]->shape().dims;
  const int64_t rank = static_cast<int64_t>(idims.size());
  IndexMap map{dn.inserted_window_dims, dn.input_batching_dims, dn.scatter_indices_batching_dims,
               dn.scatter_dims_to_operand_dims, dn.index_vector_dim,
               scatter_indices.shape().dims, &*idx, dn.update_window_dims};
  std::vector<Literal> results;
  for (const Literal* x : inputs) results.emplace_back(*x);
  const std::vector<int64_t>& udims = updates[0]->shape().dims;
  std::vector<int64_t> start, window, ri(rank);
  absl::Status status;
  ForEachIndex(udims, [&](const std::vector<int64_t>& ui) {
    if (!status.ok()) return;
    map.Map(ui, rank, start, window);
    for (int64_t d = 0; d < rank; ++d) ri[d] = start[d] + window[d];
    if (!InBounds(ri, idims)) return;  // skipped, as the spec says
    const int64_t r = LinearIndex(ri, idims), u = LinearIndex(ui, udims);
    std::vector<Literal> args;
    for (const Literal& res : results) {
      const int64_t w = ByteWidth(res.shape().dtype);
      args.emplace_back(Shape(res.shape().dtype, {}), res.data() + r * w);
    }
    for (const Literal* up : updates) {
      const int64_t w = ByteWidth(up->shape().dtype);
      args.emplace_back(Shape(up->shape().dtype, {}), up->data() + u * w);
    }
    absl::StatusOr<std::vector<Literal>> out = update_computation(std::move(args));
    if (!out.ok()) {
      status = out.status();
      return;
    }
    if (out->size() != results.size()) {
      status = absl::InvalidArgumentError("scatter: update_computation returned the wrong count");
      return;
    }
    for (size_t i = 0; i < results.size(); ++i) {
      const int64_t w = ByteWidth(results[i].shape().dtype);
      if ((*out)[i].shape() != Shape(results[i].shape().dtype, {})) {
        status = absl::InvalidArgumentError("scatter: update_computation returned a wrong type");
        return;
      }
      std::memcpy(results[i].mutable_data() + r * w, (*out)[i].data(), w);
    }
  });
  if (!status.ok()) return status;
  return results;
}

namespace {

// The clamped starts of dynamic_slice / dynamic_update_slice.
absl::StatusOr<std::vector<int64_t>> ClampedStarts(absl::Span<const Literal* const> starts,
                                                   const std::vector<int64_t>& dims,
                                                   absl::Span<const int64_t> sizes) {
  if (starts.size() != dims.size() || sizes.size() != dims.size()) {
    return absl::InvalidArgumentError("expected one start index per operand dimension");
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    absl::StatusOr<std::vector<int64_t>> v = IndexValues(*starts[d]);
    if (!v.ok()) return v.status();
    if (v->size() != 1) return absl::InvalidArgumentError("start indices must be 0-d");
    out.push_back(Clamp((*v)[0], 0, dims[d] - sizes[d]));
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalDynamicSlice(const Literal& operand,
                                         absl::Span<const Literal* const> starts,
                                         absl::Span<const int64_t> slice_sizes) {
  const std::vector<int64_t>& dims = operand.shape().dims;
  absl::StatusOr<std::vector<int64_t>> s = ClampedStarts(starts, dims, slice_sizes);
  if (!s.ok()) return s.status();
  std::vector<int64_t> limit(dims.size()), strides(dims.size(), 1);
  for (size_t d = 0; d < dims.size(); ++d) limit[d] = (*s)[d] + slice_sizes[d];
  return EvalSlice(operand, *s, limit, strides);
}

absl::StatusOr<Literal> EvalDynamicUpdateSlice(const Literal& operand, const Literal& update,
                                               absl::Span<const Literal* const> starts) {
  const std::vector<int64_t>& dims = operand.shape().dims;
  if (update.shape().dtype != operand.shape().dtype ||
      update.shape().rank() != operand.shape().rank()) {
    return absl::InvalidArgumentError("dynamic_update_slice: update does not match the operand");
  }
  absl::StatusOr<std::vector<int64_t>> s = ClampedStarts(starts, dims, update.shape().dims);
  if (!s.ok()) return s.status();
  Literal result(operand);
  const int64_t w = ByteWidth(operand.shape().dtype);
  std::vector<int64_t> at(dims.size());
  ForEachIndex(update.shape().dims, [&](const std::vector<int64_t>& u) {
    for (size_t d = 0; d < dims.size(); ++d) at[d] = (*s)[d] + u[d];
    std::memcpy(result.mutable_data() + LinearIndex(at, dims) * w,
                update.data() + LinearIndex(u, update.shape().dims) * w, w);
  });
  return result;
}

}  // namespace xjit::reference
