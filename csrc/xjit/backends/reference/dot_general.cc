// dot_general: result dims are the batch dims, then lhs free dims, then rhs
// free dims (each in operand order); every result element is a sum over the
// contracting index space in row-major order.
#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

absl::Status BadDims(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("reference backend: dot_general: ", what));
}

bool ValidDims(absl::Span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// Multiply-accumulate with the element type's arithmetic; f16/bf16
// accumulate in float and round once at the end; pred uses or/and.
template <typename T>
void MultiplyAdd(ComputeType<T>& acc, ComputeType<T> a, ComputeType<T> b) {
  if constexpr (std::is_same_v<T, bool>) acc = acc || (a && b);
  else if constexpr (is_int_v<T>) acc = Add(acc, Multiply(a, b));
  else acc += a * b;
}

}  // namespace

absl::StatusOr<Literal> EvalDotGeneral(const Literal& lhs, const Literal& rhs,
                                       const DotDimensionNumbers& dn) {
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (ls.dtype != rs.dtype) return BadDims("operand element types differ");
  if (dn.lhs_batching_dimensions.size() != dn.rhs_batching_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() != dn.rhs_contracting_dimensions.size()) {
    return BadDims("batching/contracting dimension counts differ");
  }
  std::vector<int64_t> lhs_used = dn.lhs_batching_dimensions;
  lhs_used.insert(lhs_used.end(), dn.lhs_contracting_dimensions.begin(),
                  dn.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_used = dn.rhs_batching_dimensions;
  rhs_used.insert(rhs_used.end(), dn.rhs_contracting_dimensions.begin(),
                  dn.rhs_contracting_dimensions.end());
  if (!ValidDims(lhs_used, ls.rank()) || !ValidDims(rhs_used, rs.rank())) {
    return BadDims("dimension numbers out of range or repeated");
  }
  for (size_t k = 0; k < lhs_used.size(); ++k) {
    if (ls.dims[lhs_used[k]] != rs.dims[rhs_used[k]]) return BadDims("paired dimension sizes differ");
  }
  const std::vector<int64_t> lhs_free = dn.LhsFreeDimensions(ls.rank());
  const std::vector<int64_t> rhs_free = dn.RhsFreeDimensions(rs.rank());

  std::vector<int64_t> result_dims;
  for (int64_t d : dn.lhs_batching_dimensions) result_dims.push_back(ls.dims[d]);
  for (int64_t d : lhs_free) result_dims.push_back(ls.dims[d]);
  for (int64_t d : rhs_free) result_dims.push_back(rs.dims[d]);
  std::vector<int64_t> contract_dims;
  for (int64_t d : dn.lhs_contracting_dimensions) contract_dims.push_back(ls.dims[d]);

  Literal out(Shape(ls.dtype, result_dims));
  const size_t nb = dn.lhs_batching_dimensions.size();
  DispatchDType(ls.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeType<T>;
    const T* a = lhs.data_as<T>();
    const T* b = rhs.data_as<T>();
    T* o = out.mutable_data_as<T>();
    std::vector<int64_t> li(ls.rank()), rj(rs.rank());
    ForEachIndex(result_dims, [&](const std::vector<int64_t>& ri) {
      size_t p = 0;
      for (size_t k = 0; k < nb; ++k, ++p) {
        li[dn.lhs_batching_dimensions[k]] = ri[p];
        rj[dn.rhs_batching_dimensions[k]] = ri[p];
      }
      for (int64_t d : lhs_free) li[d] = ri[p++];
      for (int64_t d : rhs_free) rj[d] = ri[p++];
      C acc = C(0);
      ForEachIndex(contract_dims, [&](const std::vector<int64_t>& ci) {
        for (size_t k = 0; k < ci.size(); ++k) {
          li[dn.lhs_contracting_dimensions[k]] = ci[k];
          rj[dn.rhs_contracting_dimensions[k]] = ci[k];
        }
        MultiplyAdd<T>(acc, static_cast<C>(a[LinearIndex(li, ls.dims)]),
                       static_cast<C>(b[LinearIndex(rj, rs.dims)]));
      });
      o[LinearIndex(ri, result_dims)] = static_cast<T>(acc);
    });
  });
  return out;
}

}  // namespace xjit::reference
