// Typed attributes, one struct per attribute set (as XLA's
// DotDimensionNumbers), field names = StableHLO attribute names. An op's row
// in opcode.h names the struct it takes; an Instruction holds it in an
// Attributes, a checked variant: `instr.attrs<SliceAttrs>()` on a non-slice
// is a programming error and aborts with both struct names.
//
// The result type that parameter, iota, reshape, broadcast_in_dim and
// convert take from the caller is not an attribute: it is the op's declared
// result type (DeclaresResultType in opcode.h), given to the builder apart.
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "xjit/ir/attribute_fields.h"
#include "xjit/ir/literal.h"
#include "xjit/ir/opcode.h"

namespace xjit {

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
// kNotype lets the builder pick the type the element type requires.
enum class ComparisonType : uint8_t { kNotype, kFloat, kTotalOrder, kSigned, kUnsigned };

template <>
struct EnumTraits<ComparisonDirection> {
  static constexpr const char* kTypeName = "ComparisonDirection";
  static constexpr const char* kTextKind = "comparison_direction";
  static constexpr const char* kDescription = "comparison direction";
  static constexpr const char* kNames[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
};
template <>
struct EnumTraits<ComparisonType> {
  static constexpr const char* kTypeName = "ComparisonType";
  static constexpr const char* kTextKind = "comparison_type";
  static constexpr const char* kDescription = "compare type";
  static constexpr const char* kNames[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
};

// rng_bit_generator's algorithm; kDefault is kPhilox on the host backends (as XLA's CPU).
enum class RngAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
template <>
struct EnumTraits<RngAlgorithm> {
  static constexpr const char* kTypeName = "RngAlgorithm";
  static constexpr const char* kTextKind = "rng_algorithm";
  static constexpr const char* kDescription = "rng algorithm";
  static constexpr const char* kNames[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
};

inline absl::string_view ComparisonDirectionName(ComparisonDirection d) { return EnumName(d); }
inline absl::string_view ComparisonTypeName(ComparisonType t) { return EnumName(t); }

struct DotDimensionNumbers {
  static constexpr const char* kTypeName = "DotDimensionNumbers";
  static constexpr const char* kTextName = "stablehlo.dot";  // #stablehlo.dot<...>
  std::vector<int64_t> lhs_batching_dimensions;
  std::vector<int64_t> rhs_batching_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  static constexpr auto Fields() {
    using D = DotDimensionNumbers;
    return std::make_tuple(
        MakeField("lhs_batching_dimensions", &D::lhs_batching_dimensions, FieldUse::kOptional),
        MakeField("rhs_batching_dimensions", &D::rhs_batching_dimensions, FieldUse::kOptional),
        MakeField("lhs_contracting_dimensions", &D::lhs_contracting_dimensions,
                  FieldUse::kOptional),
        MakeField("rhs_contracting_dimensions", &D::rhs_contracting_dimensions,
                  FieldUse::kOptional));
  }
  // The dimensions of an lhs (rhs) of rank `rank` that are neither batching
  // nor contracting, in increasing order: after the batch dimensions, the
  // result has the lhs's free dimensions, then the rhs's.
  std::vector<int64_t> LhsFreeDimensions(int64_t rank) const;
  std::vector<int64_t> RhsFreeDimensions(int64_t rank) const;
};

// Most ops take no attributes.
struct NoAttrs {
  static constexpr auto Fields() { return std::make_tuple(); }
};

// Not printed: parameters are the func's arguments.
struct ParameterAttrs {
  int64_t number = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("number", &ParameterAttrs::number));
  }
};

struct ConstantAttrs {
  Literal value;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("value", &ConstantAttrs::value));
  }
};

struct IotaAttrs {
  int64_t iota_dimension = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("iota_dimension", &IotaAttrs::iota_dimension));
  }
};

struct BroadcastInDimAttrs {
  std::vector<int64_t> broadcast_dimensions;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("broadcast_dimensions", &BroadcastInDimAttrs::broadcast_dimensions));
  }
};

struct TransposeAttrs {
  std::vector<int64_t> permutation;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("permutation", &TransposeAttrs::permutation));
  }
};

struct SliceAttrs {
  std::vector<int64_t> start_indices;
  std::vector<int64_t> limit_indices;
  std::vector<int64_t> strides;  // the builder fills in ones when left empty
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("start_indices", &SliceAttrs::start_indices),
                           MakeField("limit_indices", &SliceAttrs::limit_indices),
                           MakeField("strides", &SliceAttrs::strides, FieldUse::kDefaulted));
  }
};

struct ConcatenateAttrs {
  int64_t dimension = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimension", &ConcatenateAttrs::dimension));
  }
};

struct PadAttrs {
  std::vector<int64_t> edge_padding_low;
  std::vector<int64_t> edge_padding_high;
  std::vector<int64_t> interior_padding;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("edge_padding_low", &PadAttrs::edge_padding_low),
                           MakeField("edge_padding_high", &PadAttrs::edge_padding_high),
                           MakeField("interior_padding", &PadAttrs::interior_padding));
  }
};

struct ReverseAttrs {
  std::vector<int64_t> dimensions;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimensions", &ReverseAttrs::dimensions));
  }
};

struct DotGeneralAttrs {
  DotDimensionNumbers dot_dimension_numbers;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("dot_dimension_numbers", &DotGeneralAttrs::dot_dimension_numbers));
  }
};

struct ReduceAttrs {
  std::vector<int64_t> dimensions;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimensions", &ReduceAttrs::dimensions));
  }
};

struct CompareAttrs {
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType compare_type = ComparisonType::kNotype;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("comparison_direction", &CompareAttrs::comparison_direction),
        MakeField("compare_type", &CompareAttrs::compare_type, FieldUse::kOptional));
  }
};

struct GetTupleElementAttrs {
  int64_t index = 0;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("index", &GetTupleElementAttrs::index, FieldUse::kRequired, "i32"));
  }
};

struct RngBitGeneratorAttrs {
  RngAlgorithm rng_algorithm = RngAlgorithm::kDefault;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("rng_algorithm", &RngBitGeneratorAttrs::rng_algorithm));
  }
};

// sort: `dimension` may be negative (-R <= dimension < R, counted from the
// end, as the spec allows); kernels normalise it.
struct SortAttrs {
  int64_t dimension = -1;
  bool is_stable = false;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimension", &SortAttrs::dimension, FieldUse::kDefaulted),
                           MakeField("is_stable", &SortAttrs::is_stable, FieldUse::kDefaulted));
  }
};

// map: `dimensions` must be range(rank) (spec C3).
struct MapAttrs {
  std::vector<int64_t> dimensions;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimensions", &MapAttrs::dimensions));
  }
};

struct ReducePrecisionAttrs {
  int64_t exponent_bits = 1;
  int64_t mantissa_bits = 0;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("exponent_bits", &ReducePrecisionAttrs::exponent_bits, FieldUse::kRequired,
                  "i32"),
        MakeField("mantissa_bits", &ReducePrecisionAttrs::mantissa_bits, FieldUse::kRequired,
                  "i32"));
  }
};

// gather's dimension numbers (#stablehlo.gather<...>); every field optional.
struct GatherDimensionNumbers {
  static constexpr const char* kTypeName = "GatherDimensionNumbers";
  static constexpr const char* kTextName = "stablehlo.gather";
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  static constexpr auto Fields() {
    using D = GatherDimensionNumbers;
    return std::make_tuple(
        MakeField("offset_dims", &D::offset_dims, FieldUse::kOptional),
        MakeField("collapsed_slice_dims", &D::collapsed_slice_dims, FieldUse::kOptional),
        MakeField("operand_batching_dims", &D::operand_batching_dims, FieldUse::kOptional),
        MakeField("start_indices_batching_dims", &D::start_indices_batching_dims,
                  FieldUse::kOptional),
        MakeField("start_index_map", &D::start_index_map, FieldUse::kOptional),
        MakeField("index_vector_dim", &D::index_vector_dim, FieldUse::kOptional));
  }
};

struct GatherAttrs {
  GatherDimensionNumbers dimension_numbers;
  std::vector<int64_t> slice_sizes;
  bool indices_are_sorted = false;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimension_numbers", &GatherAttrs::dimension_numbers),
                           MakeField("slice_sizes", &GatherAttrs::slice_sizes),
                           MakeField("indices_are_sorted", &GatherAttrs::indices_are_sorted,
                                     FieldUse::kDefaulted));
  }
};

// scatter's dimension numbers (#stablehlo.scatter<...>); every field optional.
struct ScatterDimensionNumbers {
  static constexpr const char* kTypeName = "ScatterDimensionNumbers";
  static constexpr const char* kTextName = "stablehlo.scatter";
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  static constexpr auto Fields() {
    using D = ScatterDimensionNumbers;
    return std::make_tuple(
        MakeField("update_window_dims", &D::update_window_dims, FieldUse::kOptional),
        MakeField("inserted_window_dims", &D::inserted_window_dims, FieldUse::kOptional),
        MakeField("input_batching_dims", &D::input_batching_dims, FieldUse::kOptional),
        MakeField("scatter_indices_batching_dims", &D::scatter_indices_batching_dims,
                  FieldUse::kOptional),
        MakeField("scatter_dims_to_operand_dims", &D::scatter_dims_to_operand_dims,
                  FieldUse::kOptional),
        MakeField("index_vector_dim", &D::index_vector_dim, FieldUse::kOptional));
  }
};

// scatter: operands are inputs..., scatter_indices, updates... (N + 1 + N).
struct ScatterAttrs {
  ScatterDimensionNumbers scatter_dimension_numbers;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("scatter_dimension_numbers", &ScatterAttrs::scatter_dimension_numbers),
        MakeField("indices_are_sorted", &ScatterAttrs::indices_are_sorted, FieldUse::kDefaulted),
        MakeField("unique_indices", &ScatterAttrs::unique_indices, FieldUse::kDefaulted));
  }
};

// dynamic_slice: operands are the operand then one 0-d start index per dimension.
struct DynamicSliceAttrs {
  std::vector<int64_t> slice_sizes;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("slice_sizes", &DynamicSliceAttrs::slice_sizes));
  }
};

// convolution's dimension numbers. Text: the compact form of the spec,
// #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> (ir/window_attrs.cc
// prints and parses it: ToText/FromText), or the raw field list.
struct ConvDimensionNumbers {
  static constexpr const char* kTypeName = "ConvDimensionNumbers";
  static constexpr const char* kTextName = "stablehlo.conv";
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 1;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 1;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 1;
  std::vector<int64_t> output_spatial_dimensions;
  static constexpr auto Fields() {
    using D = ConvDimensionNumbers;
    return std::make_tuple(
        MakeField("input_batch_dimension", &D::input_batch_dimension),
        MakeField("input_feature_dimension", &D::input_feature_dimension),
        MakeField("input_spatial_dimensions", &D::input_spatial_dimensions),
        MakeField("kernel_input_feature_dimension", &D::kernel_input_feature_dimension),
        MakeField("kernel_output_feature_dimension", &D::kernel_output_feature_dimension),
        MakeField("kernel_spatial_dimensions", &D::kernel_spatial_dimensions),
        MakeField("output_batch_dimension", &D::output_batch_dimension),
        MakeField("output_feature_dimension", &D::output_feature_dimension),
        MakeField("output_spatial_dimensions", &D::output_spatial_dimensions));
  }
  // "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"; FromText reads it back.
  std::string ToText() const;
  static absl::StatusOr<ConvDimensionNumbers> FromText(absl::string_view text);
};

// convolution. The window fields may be left empty (the builder fills in the
// spec's defaults: strides and dilations 1, no reversal, zero padding);
// `padding` is the spec's [N-2, 2] integer tensor of (low, high) pairs.
// precision_config is accepted in text and Python and not stored: xjit
// always computes at the operands' full precision, which every setting allows.
struct ConvolutionAttrs {
  std::vector<int64_t> window_strides;
  Literal padding;
  std::vector<int64_t> lhs_dilation;
  std::vector<int64_t> rhs_dilation;
  std::vector<int64_t> window_reversal;  // 0/1 per spatial dimension; printed array<i1: ...>
  ConvDimensionNumbers dimension_numbers;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  static constexpr auto Fields() {
    using A = ConvolutionAttrs;
    return std::make_tuple(
        MakeField("window_strides", &A::window_strides, FieldUse::kOptional),
        MakeField("padding", &A::padding, FieldUse::kOptional),
        MakeField("lhs_dilation", &A::lhs_dilation, FieldUse::kOptional),
        MakeField("rhs_dilation", &A::rhs_dilation, FieldUse::kOptional),
        MakeField("window_reversal", &A::window_reversal, FieldUse::kOptional, "i1"),
        MakeField("dimension_numbers", &A::dimension_numbers),
        MakeField("feature_group_count", &A::feature_group_count, FieldUse::kDefaulted),
        MakeField("batch_group_count", &A::batch_group_count, FieldUse::kDefaulted));
  }
};

// reduce_window; empty fields get the spec's defaults from the builder.
struct ReduceWindowAttrs {
  std::vector<int64_t> window_dimensions;
  std::vector<int64_t> window_strides;
  std::vector<int64_t> base_dilations;
  std::vector<int64_t> window_dilations;
  Literal padding;  // [rank, 2] integer tensor
  static constexpr auto Fields() {
    using A = ReduceWindowAttrs;
    return std::make_tuple(MakeField("window_dimensions", &A::window_dimensions),
                           MakeField("window_strides", &A::window_strides, FieldUse::kOptional),
                           MakeField("base_dilations", &A::base_dilations, FieldUse::kOptional),
                           MakeField("window_dilations", &A::window_dilations, FieldUse::kOptional),
                           MakeField("padding", &A::padding, FieldUse::kOptional));
  }
};

struct SelectAndScatterAttrs {
  std::vector<int64_t> window_dimensions;
  std::vector<int64_t> window_strides;
  Literal padding;  // [rank, 2] integer tensor
  static constexpr auto Fields() {
    using A = SelectAndScatterAttrs;
    return std::make_tuple(MakeField("window_dimensions", &A::window_dimensions),
                           MakeField("window_strides", &A::window_strides, FieldUse::kOptional),
                           MakeField("padding", &A::padding, FieldUse::kOptional));
  }
};

// batch_norm_inference/training/grad: epsilon is an f32 attribute; the
// feature dimension is the one normalisation does not reduce over.
struct BatchNormAttrs {
  float epsilon = 0.0f;
  int64_t feature_index = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("epsilon", &BatchNormAttrs::epsilon, FieldUse::kRequired, "f32"),
                           MakeField("feature_index", &BatchNormAttrs::feature_index));
  }
};

// send/recv: the channel (#stablehlo.channel_handle<handle = 1, type = 2>;
// type 1 device-to-device, 2 device-to-host, 3 host-to-device) and whether
// the transfer is with the host. On one device every channel is an
// in-process queue keyed by its handle (runtime/host_transfers.h).
struct ChannelHandle {
  static constexpr const char* kTypeName = "ChannelHandle";
  static constexpr const char* kTextName = "stablehlo.channel_handle";
  int64_t handle = 0;
  int64_t type = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("handle", &ChannelHandle::handle, FieldUse::kOptional),
                           MakeField("type", &ChannelHandle::type, FieldUse::kOptional));
  }
};

struct SendRecvAttrs {
  ChannelHandle channel_handle;
  bool is_host_transfer = false;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("channel_handle", &SendRecvAttrs::channel_handle),
        MakeField("is_host_transfer", &SendRecvAttrs::is_host_transfer, FieldUse::kDefaulted));
  }
};

// triangular_solve's op(a): a, its transpose, or its conjugate transpose.
enum class TransposeKind : uint8_t { kTransposeInvalid, kNoTranspose, kTranspose, kAdjoint };
template <>
struct EnumTraits<TransposeKind> {
  static constexpr const char* kTypeName = "Transpose";
  static constexpr const char* kTextKind = "transpose";  // #stablehlo<transpose NO_TRANSPOSE>
  static constexpr const char* kDescription = "transpose";
  static constexpr const char* kNames[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE",
                                           "ADJOINT"};
};

// cholesky: `lower` picks the triangle of the factor (and of `a` that is read).
struct CholeskyAttrs {
  bool lower = false;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("lower", &CholeskyAttrs::lower, FieldUse::kDefaulted));
  }
};

struct TriangularSolveAttrs {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TransposeKind transpose_a = TransposeKind::kNoTranspose;
  static constexpr auto Fields() {
    using A = TriangularSolveAttrs;
    return std::make_tuple(MakeField("left_side", &A::left_side),
                           MakeField("lower", &A::lower),
                           MakeField("unit_diagonal", &A::unit_diagonal),
                           MakeField("transpose_a", &A::transpose_a));
  }
};

// custom_call: the host function `call_target_name` runs on the operands.
// backend_config (a string or, for typed FFI calls, a dictionary) and the
// layouts are kept as written; ir/custom_call_config.h reads them.
// mhlo.backend_config is the dictionary JAX's FFI lowering writes.
struct CustomCallAttrs {
  std::string call_target_name;
  bool has_side_effect = false;
  AttrText backend_config;
  AttrText mhlo_backend_config;
  int64_t api_version = 0;
  AttrText operand_layouts;
  AttrText result_layouts;
  AttrText output_operand_aliases;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("call_target_name", &CustomCallAttrs::call_target_name),
        MakeField("has_side_effect", &CustomCallAttrs::has_side_effect, FieldUse::kOptional),
        MakeField("backend_config", &CustomCallAttrs::backend_config, FieldUse::kOptional),
        MakeField("mhlo.backend_config", &CustomCallAttrs::mhlo_backend_config,
                  FieldUse::kOptional),
        MakeField("api_version", &CustomCallAttrs::api_version, FieldUse::kOptional, "i32"),
        MakeField("operand_layouts", &CustomCallAttrs::operand_layouts, FieldUse::kOptional),
        MakeField("result_layouts", &CustomCallAttrs::result_layouts, FieldUse::kOptional),
        MakeField("output_operand_aliases", &CustomCallAttrs::output_operand_aliases,
                  FieldUse::kOptional));
  }
};

// ---- issue 11 (h-fft) ----

// fft's kind: FFT/IFFT complex -> complex, RFFT real -> complex (the last
// dimension becomes n/2 + 1), IRFFT complex -> real (n = fft_length's last).
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
template <>
struct EnumTraits<FftType> {
  static constexpr const char* kTypeName = "FftType";
  static constexpr const char* kTextKind = "fft_type";
  static constexpr const char* kDescription = "fft type";
  static constexpr const char* kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
};

// fft: the lengths of the fft_length.size() (1 to 3) innermost dimensions.
struct FftAttrs {
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("fft_type", &FftAttrs::fft_type),
                           MakeField("fft_length", &FftAttrs::fft_length));
  }
};

// rng's distribution (the spec numbers them from 1; only the names matter here).
enum class RngDistribution : uint8_t { kUniform, kNormal };
template <>
struct EnumTraits<RngDistribution> {
  static constexpr const char* kTypeName = "RngDistribution";
  static constexpr const char* kTextKind = "rng_distribution";
  static constexpr const char* kDescription = "rng distribution";
  static constexpr const char* kNames[] = {"UNIFORM", "NORMAL"};
};

// rng: operands (a, b, shape); UNIFORM on [a, b), NORMAL with mean a, stddev b.
struct RngAttrs {
  RngDistribution rng_distribution = RngDistribution::kUniform;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("rng_distribution", &RngAttrs::rng_distribution));
  }
};

// dynamic_broadcast_in_dim: broadcast_in_dim whose result shape is operand 1.
struct DynamicBroadcastInDimAttrs {
  std::vector<int64_t> broadcast_dimensions;
  std::vector<int64_t> known_expanding_dimensions;
  std::vector<int64_t> known_nonexpanding_dimensions;
  static constexpr auto Fields() {
    using A = DynamicBroadcastInDimAttrs;
    return std::make_tuple(
        MakeField("broadcast_dimensions", &A::broadcast_dimensions),
        MakeField("known_expanding_dimensions", &A::known_expanding_dimensions,
                  FieldUse::kOptional),
        MakeField("known_nonexpanding_dimensions", &A::known_nonexpanding_dimensions,
                  FieldUse::kOptional));
  }
};

// dynamic_gather: gather whose slice_sizes is operand 2.
struct DynamicGatherAttrs {
  GatherDimensionNumbers dimension_numbers;
  bool indices_are_sorted = false;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("dimension_numbers", &DynamicGatherAttrs::dimension_numbers),
        MakeField("indices_are_sorted", &DynamicGatherAttrs::indices_are_sorted,
                  FieldUse::kDefaulted));
  }
};

// get_dimension_size / set_dimension_size: which dimension.
struct DimensionSizeAttrs {
  int64_t dimension = 0;
  static constexpr auto Fields() {
    return std::make_tuple(MakeField("dimension", &DimensionSizeAttrs::dimension));
  }
};

// composite: `name` (namespaced, e.g. "my_namespace.my_op"), the attributes
// it carries for whoever recognises it (never read by xjit), and `version`.
struct CompositeAttrs {
  std::string name;
  AttrText composite_attributes;  // the dictionary as written
  int64_t version = 0;
  static constexpr auto Fields() {
    return std::make_tuple(
        MakeField("name", &CompositeAttrs::name),
        MakeField("composite_attributes", &CompositeAttrs::composite_attributes,
                  FieldUse::kOptional),
        MakeField("version", &CompositeAttrs::version, FieldUse::kOptional, "i32"));
  }
};

template <typename Tuple>
struct VariantOfTuple;
template <typename... Ts>
struct VariantOfTuple<std::tuple<Ts...>> {
  using type = std::variant<Ts...>;
};
// std::variant<NoAttrs, ParameterAttrs, ...>, in XJIT_ATTRS_STRUCTS order.
using AttrsVariant = typename VariantOfTuple<decltype(std::tuple_cat(
#define XJIT_ATTRS_TUPLE(s) std::tuple<s>(),
    XJIT_ATTRS_STRUCTS(XJIT_ATTRS_TUPLE)
#undef XJIT_ATTRS_TUPLE
        std::tuple<>()))>::type;

// The AttrsKind of struct T (its index in AttrsVariant).
template <typename T, typename V = AttrsVariant>
struct AttrsKindOfImpl;
template <typename T, typename... Ts>
struct AttrsKindOfImpl<T, std::variant<Ts...>> {
  static constexpr int Index() {
    constexpr bool same[] = {std::is_same_v<T, Ts>...};
    for (int i = 0; i < static_cast<int>(sizeof...(Ts)); ++i) {
      if (same[i]) return i;
    }
    return -1;
  }
  static_assert(Index() >= 0, "not an attribute struct");
};
template <typename T>
constexpr AttrsKind AttrsKindOf() {
  return static_cast<AttrsKind>(AttrsKindOfImpl<T>::Index());
}

// Aborts: asking an Attributes for a struct it does not hold is a bug.
[[noreturn]] void AttrsKindMismatch(AttrsKind held, AttrsKind wanted);

class Attributes {
 public:
  Attributes() = default;  // NoAttrs
  template <typename T, typename = std::enable_if_t<HasFields<std::decay_t<T>>::value>>
  Attributes(T&& attrs) : v_(std::forward<T>(attrs)) {}  // NOLINT: implicit by design

  // The default-valued struct of `kind`.
  static Attributes Default(AttrsKind kind);

  AttrsKind kind() const { return static_cast<AttrsKind>(v_.index()); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(v_);
  }
  template <typename T>
  const T& get() const {
    if (!is<T>()) AttrsKindMismatch(kind(), AttrsKindOf<T>());
    return *std::get_if<T>(&v_);
  }
  template <typename T>
  T& get() {
    if (!is<T>()) AttrsKindMismatch(kind(), AttrsKindOf<T>());
    return *std::get_if<T>(&v_);
  }
  // f(const S&) with the struct held.
  template <typename F>
  decltype(auto) Visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }
  template <typename F>
  decltype(auto) Visit(F&& f) {
    return std::visit(std::forward<F>(f), v_);
  }

  bool operator==(const Attributes& o) const { return v_ == o.v_; }
  bool operator!=(const Attributes& o) const { return !(v_ == o.v_); }
  template <typename H>
  friend H AbslHashValue(H h, const Attributes& a) {
    h = H::combine(std::move(h), a.v_.index());
    return std::visit([&h](const auto& s) { return H::combine(std::move(h), s); }, a.v_);
  }

 private:
  AttrsVariant v_;
};

// The fields of the struct `kind` names (for the op schema).
std::vector<FieldInfo> DescribeAttrsFields(AttrsKind kind);

}  // namespace xjit
