// The op registry: one X-macro row per op. Everything that needs the list of
// ops (parsing names, printing, coverage docs, backends' dispatch) reads it here.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xjit {

// Operand-count classes used by shape inference and the printer.
enum class OpArity : uint8_t { kNullary, kUnary, kBinary, kTernary, kVariadic };

// V(Enum, "stablehlo_name", arity)
#define XJIT_OPCODES(V)                                            \
  /* structural and creation */                                    \
  V(Parameter, "parameter", kNullary)                              \
  V(Constant, "constant", kNullary)                                \
  V(Iota, "iota", kNullary)                                        \
  /* element-wise unary */                                         \
  V(Abs, "abs", kUnary)                                            \
  V(Cbrt, "cbrt", kUnary)                                          \
  V(Ceil, "ceil", kUnary)                                          \
  V(Cosine, "cosine", kUnary)                                      \
  V(CountLeadingZeros, "count_leading_zeros", kUnary)              \
  V(Erf, "erf", kUnary)                                            \
  V(Exponential, "exponential", kUnary)                            \
  V(ExponentialMinusOne, "exponential_minus_one", kUnary)          \
  V(Floor, "floor", kUnary)                                        \
  V(Imag, "imag", kUnary)                                          \
  V(IsFinite, "is_finite", kUnary)                                 \
  V(Log, "log", kUnary)                                            \
  V(LogPlusOne, "log_plus_one", kUnary)                            \
  V(Logistic, "logistic", kUnary)                                  \
  V(Negate, "negate", kUnary)                                      \
  V(Not, "not", kUnary)                                            \
  V(Popcnt, "popcnt", kUnary)                                      \
  V(Real, "real", kUnary)                                          \
  V(RoundNearestAfz, "round_nearest_afz", kUnary)                  \
  V(RoundNearestEven, "round_nearest_even", kUnary)                \
  V(Rsqrt, "rsqrt", kUnary)                                        \
  V(Sign, "sign", kUnary)                                          \
  V(Sine, "sine", kUnary)                                          \
  V(Sqrt, "sqrt", kUnary)                                          \
  V(Tan, "tan", kUnary)                                            \
  V(Tanh, "tanh", kUnary)                                          \
  V(Convert, "convert", kUnary)                                    \
  /* element-wise binary */                                        \
  V(Add, "add", kBinary)                                           \
  V(Subtract, "subtract", kBinary)                                 \
  V(Multiply, "multiply", kBinary)                                 \
  V(Divide, "divide", kBinary)                                     \
  V(Remainder, "remainder", kBinary)                               \
  V(Power, "power", kBinary)                                       \
  V(Maximum, "maximum", kBinary)                                   \
  V(Minimum, "minimum", kBinary)                                   \
  V(And, "and", kBinary)                                           \
  V(Or, "or", kBinary)                                             \
  V(Xor, "xor", kBinary)                                           \
  V(ShiftLeft, "shift_left", kBinary)                              \
  V(ShiftRightArithmetic, "shift_right_arithmetic", kBinary)       \
  V(ShiftRightLogical, "shift_right_logical", kBinary)             \
  V(Atan2, "atan2", kBinary)                                       \
  V(Complex, "complex", kBinary)                                   \
  V(Compare, "compare", kBinary)                                   \
  /* element-wise ternary */                                       \
  V(Select, "select", kTernary)                                    \
  V(Clamp, "clamp", kTernary)                                      \
  /* shape and data movement */                                    \
  V(BroadcastInDim, "broadcast_in_dim", kUnary)                    \
  V(Reshape, "reshape", kUnary)                                    \
  V(Transpose, "transpose", kUnary)                                \
  V(Slice, "slice", kUnary)                                        \
  V(Concatenate, "concatenate", kVariadic)                         \
  V(Pad, "pad", kBinary)                                           \
  V(Reverse, "reverse", kUnary)                                    \
  /* linear algebra and reductions */                              \
  V(DotGeneral, "dot_general", kBinary)                            \
  V(Reduce, "reduce", kVariadic)                                   \
  /* tuples and calls */                                           \
  V(Tuple, "tuple", kVariadic)                                     \
  V(GetTupleElement, "get_tuple_element", kUnary)                  \
  V(Call, "call", kVariadic)                                       \
  /* produced by passes (passes/elementwise_fusion.h) */           \
  V(Fusion, "fusion", kVariadic)

enum class Opcode : uint16_t {
#define XJIT_OPCODE_ENUM(e, name, arity) k##e,
  XJIT_OPCODES(XJIT_OPCODE_ENUM)
#undef XJIT_OPCODE_ENUM
};

#define XJIT_OPCODE_COUNT(e, name, arity) +1
inline constexpr int kNumOpcodes = 0 XJIT_OPCODES(XJIT_OPCODE_COUNT);
#undef XJIT_OPCODE_COUNT

absl::string_view OpcodeName(Opcode op);  // StableHLO mnemonic without "stablehlo."
OpArity OpcodeArity(Opcode op);
absl::StatusOr<Opcode> ParseOpcode(absl::string_view name);  // accepts "stablehlo.add" or "add"

bool IsElementwiseUnary(Opcode op);   // includes convert
bool IsElementwiseBinary(Opcode op);  // includes compare
bool IsElementwise(Opcode op);        // unary, binary, select, clamp

}  // namespace xjit
