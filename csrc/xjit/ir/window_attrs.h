// The window geometry shared by convolution, reduce_window and
// select_and_scatter: the spec's defaults, (low, high) padding pairs read from
// the [N, 2] padding tensor, and the per-dimension window the kernels walk.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/literal.h"
#include "xjit/ir/shape.h"

namespace xjit {

// One dimension of a window over a base (XLA's WindowDimension): the window
// covers `size` elements `window_dilation` apart, stepping `stride` over the
// base dilated by `base_dilation` (holes between elements) and padded by
// padding_low/high (negative values cut). `reversal` reads the window
// backwards (convolution's window_reversal).
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
  bool reversal = false;

  // (d - 1) * dilation + 1, 0 for an empty d (spec: dilated_input_shape).
  static int64_t Dilated(int64_t d, int64_t dilation) { return d == 0 ? 0 : (d - 1) * dilation + 1; }
  // The number of windows over a base of `base` elements (spec: num_windows).
  int64_t NumWindows(int64_t base) const;
  // The base index window element `k` of window `w` reads, or -1 where it
  // falls into padding or a dilation hole.
  int64_t BaseIndex(int64_t base, int64_t w, int64_t k) const {
    int64_t p = w * stride + k * window_dilation - padding_low;
    if (p < 0 || p % base_dilation != 0) return -1;
    p /= base_dilation;
    return p < base ? p : -1;
  }
};

// The (low, high) pairs of a padding tensor; a default (empty) Literal is
// `n` zero pairs. Fails unless it is an integer tensor of shape [n, 2].
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> PaddingPairs(const Literal& padding,
                                                                     int64_t n);
// An s64 [n, 2] padding tensor from pairs.
Literal PaddingLiteral(const std::vector<std::pair<int64_t, int64_t>>& pairs);

// Fills the fields a caller may leave out with the spec's defaults (only
// where they are empty; what is given is left for shape inference to check).
void FillConvolutionDefaults(ConvolutionAttrs& attrs);
void FillReduceWindowDefaults(ReduceWindowAttrs& attrs, int64_t rank);
void FillSelectAndScatterDefaults(SelectAndScatterAttrs& attrs, int64_t rank);

// The windows of attributes that passed shape inference (spatial dimensions
// in the order of input_spatial_dimensions for convolution).
std::vector<WindowDimension> ConvolutionWindow(const ConvolutionAttrs& attrs,
                                               const Shape& rhs);
std::vector<WindowDimension> ReduceWindowWindow(const ReduceWindowAttrs& attrs);
std::vector<WindowDimension> SelectAndScatterWindow(const SelectAndScatterAttrs& attrs);

}  // namespace xjit
