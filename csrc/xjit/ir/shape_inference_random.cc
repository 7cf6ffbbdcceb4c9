// Shape rule of rng_bit_generator: the state is a 1-D vector of u64 words
// (or of u32 halves, read little-endian in pairs), the output any 8/16/32/64-bit
// integer or float type the caller declares.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit::shape_inference {
namespace {

absl::Status Error(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("rng_bit_generator: ", what));
}

// Number of 64-bit words in a valid state, or an error naming the constraint.
absl::StatusOr<int64_t> StateWords(const Shape& state, RngAlgorithm algorithm) {
  if (state.rank() != 1 || (state.dtype != DType::kU64 && state.dtype != DType::kU32)) {
    return Error(absl::StrCat("initial_state must be a 1-D ui64 (or ui32) tensor, got ",
                              state.ToString()));
  }
  int64_t words = state.dims[0];
  if (state.dtype == DType::kU32) {
    if (words % 2 != 0) {
      return Error(absl::StrCat("a ui32 initial_state holds 64-bit words as pairs and must have "
                                "an even size, got ", state.ToString()));
    }
    words /= 2;
  }
  const bool three_fry = algorithm == RngAlgorithm::kThreeFry;
  if (three_fry ? words != 2 : (words != 2 && words != 3)) {
    return Error(absl::StrCat("the ", EnumName(algorithm), " algorithm takes a state of ",
                              three_fry ? "2" : "2 or 3", " 64-bit words, got ",
                              state.ToString()));
  }
  return words;
}

}  // namespace

absl::StatusOr<Shape> InferRngBitGenerator(const Shape& state, const RngBitGeneratorAttrs& attrs,
                                           const Shape* declared) {
  if (absl::StatusOr<int64_t> w = StateWords(state, attrs.rng_algorithm); !w.ok()) {
    return w.status();
  }
  if (declared == nullptr) return Error("missing output type");
  // The declared type is the output's, or the whole (output_state, output) pair.
  const Shape* output = declared;
  if (declared->is_tuple) {
    if (declared->tuple_shapes.size() != 2 || declared->tuple_shapes[0].is_tuple ||
        declared->tuple_shapes[1].is_tuple) {
      return Error(absl::StrCat("results must be (output_state, output), got ",
                                declared->ToString()));
    }
    if (declared->tuple_shapes[0] != state) {
      return Error(absl::StrCat("output_state must have the type of initial_state ",
                                state.ToString(), ", got ", declared->tuple_shapes[0].ToString()));
    }
    output = &declared->tuple_shapes[1];
  }
  const DType t = output->dtype;
  if (!(IsInteger(t) || IsFloat(t))) {
    return Error(absl::StrCat("output must have an integer or floating-point element type, got ",
                              output->ToString()));
  }
  return Shape::Tuple({state, *output});
}

}  // namespace xjit::shape_inference
