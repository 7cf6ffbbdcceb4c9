// Element-wise instructions as CUDA C++ expressions over the prelude's
// helpers (scalar_prelude.cc). Which op accepts which type mirrors shape
// inference and the cpu backend's `supports`; each operand expression is
// used exactly once, so nested expressions never compute an operand twice.
#include "xjit/backends/cuda/scalar_source.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/attributes.h"

namespace xjit::cuda {
namespace {

using Status = absl::Status;
using StringOr = absl::StatusOr<std::string>;

bool IsHalf(DType t) { return t == DType::kF16 || t == DType::kBF16; }
// f16, bf16, f32, f64 (IsFloat also counts the narrow floats).
bool IsWideFloat(DType t) { return IsHalf(t) || t == DType::kF32 || t == DType::kF64; }

// The type a value of `t` is computed in (f16/bf16 in float).
DType ComputeOf(DType t) { return IsHalf(t) ? DType::kF32 : t; }

std::string Paren(const std::string& e) { return absl::StrCat("(", e, ")"); }

// A storage value as its compute type, and back (rounding once).
std::string Load(DType t, const std::string& e) {
  if (t == DType::kF16) return absl::StrCat("xjit_h2f(", e, ")");
  if (t == DType::kBF16) return absl::StrCat("xjit_bf2f(", e, ")");
  return Paren(e);
}
std::string Store(DType t, const std::string& e) {
  if (t == DType::kF16) return absl::StrCat("xjit_f2h(", e, ")");
  if (t == DType::kBF16) return absl::StrCat("xjit_f2bf(", e, ")");
  return Paren(e);
}

std::string Call(absl::string_view fn, const std::vector<std::string>& args) {
  return absl::StrCat(fn, "(", absl::StrJoin(args, ", "), ")");
}

// The unsigned integer of t's width holding its bits, and back
// (bitcast_convert); t is not pred or complex.
std::string ToBits(DType t, const std::string& e) {
  switch (t) {
    case DType::kF16: return absl::StrCat("__half_as_ushort(", e, ")");
    case DType::kBF16: return absl::StrCat("__bfloat16_as_ushort(", e, ")");
    case DType::kF32: return absl::StrCat("__float_as_uint(", e, ")");
    case DType::kF64: return absl::StrCat("(uint64_t)__double_as_longlong(", e, ")");
    default: break;
  }
  const char* u[] = {"uint8_t", "uint16_t", "", "uint32_t", "", "", "", "uint64_t"};
  return absl::StrCat("(", u[ByteWidth(t) - 1], ")(", e, ")");
}
std::string FromBits(DType t, const std::string& type, const std::string& e) {
  switch (t) {
    case DType::kF16: return absl::StrCat("__ushort_as_half(", e, ")");
    case DType::kBF16: return absl::StrCat("__ushort_as_bfloat16(", e, ")");
    case DType::kF32: return absl::StrCat("__uint_as_float(", e, ")");
    case DType::kF64: return absl::StrCat("__longlong_as_double((long long)", e, ")");
    default: return absl::StrCat("((", type, ")", e, ")");
  }
}

// One element-wise instruction: its types and operand expressions.
class Expr {
 public:
  Expr(const Instruction& instr, absl::Span<const std::string> operands)
      : instr_(instr), args_(operands.begin(), operands.end()),
        in_(instr.operand(instr.opcode() == Opcode::kSelect ? 1 : 0)->shape().dtype),
        out_(instr.shape().dtype) {}

  StringOr Build();

 private:
  Status Unsupported() const {
    std::vector<std::string> types;
    for (const Instruction* o : instr_.operands()) types.push_back(o->shape().ToString());
    return absl::UnimplementedError(absl::StrCat(OpcodeName(instr_.opcode()),
                                                 ": the cuda backend has no kernel for ",
                                                 absl::StrJoin(types, ", "), " -> ",
                                                 instr_.shape().ToString()));
  }
  // CudaTypeName; Build checked every type of the instruction first.
  static std::string Type(DType t) { return CudaTypeName(t).value_or("void"); }
  std::string Arg(int i) const { return Paren(args_[i]); }
  std::string LoadArg(int i) const { return Load(in_, args_[i]); }
  // A template helper over the operand storage type: xjit_idiv<int32_t>(a, b).
  std::string IntCall(absl::string_view fn) const {
    std::vector<std::string> a;
    for (size_t i = 0; i < args_.size(); ++i) a.push_back(args_[i]);
    return Call(absl::StrCat(fn, "<", Type(in_), ">"), a);
  }
  // Computes fn over the loaded operands and stores to the result type.
  std::string FloatCall(absl::string_view fn) const {
    std::vector<std::string> a;
    for (size_t i = 0; i < args_.size(); ++i) a.push_back(LoadArg(static_cast<int>(i)));
    return Store(out_, Call(fn, a));
  }

  StringOr Unary();
  StringOr Binary();
  StringOr Ternary();
  StringOr Compare();
  StringOr ReducePrecision();
  StringOr BitcastConvert();
  StringOr Convert(DType from, DType to, const std::string& x) const;

  const Instruction& instr_;
  std::vector<std::string> args_;
  DType in_, out_;
};

StringOr Expr::Build() {
  const Opcode op = instr_.opcode();
  if (static_cast<int64_t>(args_.size()) != static_cast<int64_t>(instr_.operands().size())) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": ", args_.size(),
                                                   " operand expressions for ",
                                                   instr_.operands().size(), " operands"));
  }
  for (const Instruction* o : instr_.operands()) {
    if (!CudaTypeName(o->shape().dtype).ok() || o->shape().is_tuple) return Unsupported();
  }
  if (!CudaTypeName(out_).ok() || instr_.shape().is_tuple) return Unsupported();
  if (op == Opcode::kBitcastConvert) return BitcastConvert();
  if (IsElementwiseUnary(op)) return Unary();
  if (IsElementwiseBinary(op)) return Binary();
  if (IsElementwiseTernary(op)) return Ternary();
  return absl::UnimplementedError(absl::StrCat(OpcodeName(op), " is not an element-wise op"));
}

StringOr Expr::Unary() {
  const Opcode op = instr_.opcode();
  const DType t = in_;
  const bool cplx = IsComplex(t), real = IsWideFloat(t), sint = IsSignedInt(t);
  // The result type the op must have (shape inference's rules).
  const DType want = op == Opcode::kConvert                                   ? out_
                     : op == Opcode::kIsFinite                                ? DType::kPred
                     : (op == Opcode::kAbs || op == Opcode::kReal || op == Opcode::kImag)
                         ? ComplexComponent(t)
                         : t;
  if (out_ != want) return Unsupported();
  const char* math = nullptr;  // float and complex ops with a helper of one name
  switch (op) {
    case Opcode::kCbrt: math = "cbrt"; break;
    case Opcode::kCosine: math = "cos"; break;
    case Opcode::kSine: math = "sin"; break;
    case Opcode::kTan: math = "tan"; break;
    case Opcode::kTanh: math = "tanh"; break;
    case Opcode::kExponential: math = "exp"; break;
    case Opcode::kExponentialMinusOne: math = "expm1"; break;
    case Opcode::kLog: math = "log"; break;
    case Opcode::kLogPlusOne: math = "log1p"; break;
    case Opcode::kLogistic: math = "logistic"; break;
    case Opcode::kRsqrt: math = "rsqrt"; break;
    case Opcode::kSqrt: math = "sqrt"; break;
    default: break;
  }
  if (math != nullptr) {
    if (real) return FloatCall(absl::StrCat("xjit_", math));
    if (cplx) return Call(absl::StrCat("xjit_c", math), {args_[0]});
    return Unsupported();
  }
  switch (op) {
    case Opcode::kCeil: if (real) return FloatCall("xjit_ceil"); break;
    case Opcode::kFloor: if (real) return FloatCall("xjit_floor"); break;
    case Opcode::kErf: if (real) return FloatCall("xjit_erf"); break;
    case Opcode::kRoundNearestAfz: if (real) return FloatCall("xjit_round_afz"); break;
    case Opcode::kRoundNearestEven: if (real) return FloatCall("xjit_round_even"); break;
    case Opcode::kIsFinite: if (real) return Call("xjit_isfinite", {LoadArg(0)}); break;
    case Opcode::kAbs:
      if (sint) return IntCall("xjit_iabs");
      if (real) return FloatCall("xjit_fabs");
      if (cplx) return Call("xjit_cabs", {args_[0]});
      break;
    case Opcode::kSign:
      if (sint) return IntCall("xjit_isign");
      if (real) return FloatCall("xjit_fsign");
      if (cplx) return Call("xjit_csign", {args_[0]});
      break;
    case Opcode::kNegate:
      if (IsInteger(t)) return IntCall("xjit_ineg");
      if (real) return Store(t, absl::StrCat("-", LoadArg(0)));
      if (cplx) return Call("xjit_cneg", {args_[0]});
      break;
    case Opcode::kReal:
      if (real) return Store(t, LoadArg(0));
      if (cplx) return absl::StrCat(Arg(0), ".re");
      break;
    case Opcode::kImag:
      // The input still appears once, so a nested expression is evaluated.
      if (real) return Store(t, absl::StrCat("((void)", Arg(0), t == DType::kF64 ? ", 0.0)" : ", 0.0f)"));
      if (cplx) return absl::StrCat(Arg(0), ".im");
      break;
    case Opcode::kNot:
      if (IsPred(t)) return absl::StrCat("(!", Arg(0), ")");
      if (IsInteger(t)) return absl::StrCat("((", Type(t), ")~", Arg(0), ")");
      break;
    case Opcode::kPopcnt: if (IsInteger(t)) return IntCall("xjit_popcnt"); break;
    case Opcode::kCountLeadingZeros: if (IsInteger(t)) return IntCall("xjit_clz"); break;
    case Opcode::kConvert: return Convert(t, out_, args_[0]);
    case Opcode::kReducePrecision: return ReducePrecision();
    default: break;
  }
  return Unsupported();
}

StringOr Expr::Binary() {
  const Opcode op = instr_.opcode();
  const DType t = in_;
  if (instr_.operand(1)->shape().dtype != t) return Unsupported();
  if (op == Opcode::kCompare) return Compare();
  if (op == Opcode::kComplex) {
    if (t == DType::kF32 && out_ == DType::kC64) return absl::StrCat("xjit_c64{", args_[0], ", ", args_[1], "}");
    if (t == DType::kF64 && out_ == DType::kC128) return absl::StrCat("xjit_c128{", args_[0], ", ", args_[1], "}");
    return Unsupported();
  }
  if (out_ != t) return Unsupported();
  const bool pred = IsPred(t), integer = IsInteger(t), cplx = IsComplex(t);
  const bool f32 = ComputeOf(t) == DType::kF32, f64 = t == DType::kF64;
  const bool real = f32 || f64;
  // +, -, *, / as round-to-nearest intrinsics: never contracted into an fma.
  auto arith = [&](const char* name, const char* int_fn, const char* cplx_fn) -> StringOr {
    if (integer && int_fn != nullptr) return IntCall(int_fn);
    if (real) return FloatCall(absl::StrCat(f32 ? "__f" : "__d", name, "_rn"));
    if (cplx) return Call(cplx_fn, {args_[0], args_[1]});
    return Unsupported();
  };
  switch (op) {
    case Opcode::kAdd:
      if (pred) return absl::StrCat("(", Arg(0), " || ", Arg(1), ")");
      return arith("add", "xjit_iadd", "xjit_cadd");
    case Opcode::kSubtract: return arith("sub", "xjit_isub", "xjit_csub");
    case Opcode::kMultiply:
      if (pred) return absl::StrCat("(", Arg(0), " && ", Arg(1), ")");
      return arith("mul", "xjit_imul", "xjit_cmul");
    case Opcode::kDivide: return arith("div", "xjit_idiv", "xjit_cdiv");
    case Opcode::kRemainder:
      if (integer) return IntCall("xjit_irem");
      if (real) return FloatCall("xjit_fmod");
      if (cplx) return Call("xjit_crem", {args_[0], args_[1]});
      break;
    case Opcode::kPower:
      if (integer) return IntCall("xjit_ipow");
      if (real) return FloatCall("xjit_pow");
      if (cplx) return Call("xjit_cpow", {args_[0], args_[1]});
      break;
    case Opcode::kMaximum:
    case Opcode::kMinimum: {
      const bool max = op == Opcode::kMaximum;
      if (pred) return absl::StrCat("(", Arg(0), max ? " || " : " && ", Arg(1), ")");
      if (integer) return IntCall(max ? "xjit_imax" : "xjit_imin");
      if (real) return FloatCall(max ? "xjit_fmax" : "xjit_fmin");
      if (cplx) return Call(max ? "xjit_cmax" : "xjit_cmin", {args_[0], args_[1]});
      break;
    }
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor: {
      const char* sym = op == Opcode::kAnd ? " & " : op == Opcode::kOr ? " | " : " ^ ";
      if (pred || integer) return absl::StrCat("((", Type(t), ")(", Arg(0), sym, Arg(1), "))");
      break;
    }
    case Opcode::kShiftLeft: if (integer) return IntCall("xjit_shl"); break;
    case Opcode::kShiftRightLogical: if (integer) return IntCall("xjit_shr_logical"); break;
    case Opcode::kShiftRightArithmetic: if (integer) return IntCall("xjit_shr_arithmetic"); break;
    case Opcode::kAtan2:
      if (real) return FloatCall("xjit_atan2");
      if (cplx) return Call("xjit_catan2", {args_[0], args_[1]});
      break;
    default: break;
  }
  return Unsupported();
}

StringOr Expr::Compare() {
  if (out_ != DType::kPred) return Unsupported();
  const CompareAttrs& attrs = instr_.attrs<CompareAttrs>();
  const DType t = in_;
  const ComparisonType ct = attrs.compare_type;
  static const char* const kOps[] = {" == ", " != ", " >= ", " > ", " <= ", " < "};
  static const char* const kNames[] = {"eq", "ne", "ge", "gt", "le", "lt"};
  const int dir = static_cast<int>(attrs.comparison_direction);
  auto apply = [&](const std::string& a, const std::string& b) {
    return absl::StrCat("(", a, kOps[dir], b, ")");
  };
  if (IsComplex(t)) {
    if (ct != ComparisonType::kNotype && ct != ComparisonType::kFloat) return Unsupported();
    return Call(absl::StrCat("xjit_ccmp_", kNames[dir]), {args_[0], args_[1]});
  }
  if (IsWideFloat(t)) {
    if (ct == ComparisonType::kTotalOrder) {
      return apply(Call("xjit_total_order_key", {args_[0]}), Call("xjit_total_order_key", {args_[1]}));
    }
    if (ct != ComparisonType::kNotype && ct != ComparisonType::kFloat) return Unsupported();
    return apply(LoadArg(0), LoadArg(1));  // IEEE quiet predicates
  }
  if (ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder) return Unsupported();
  if (IsPred(t)) return apply(absl::StrCat("(int)", Arg(0)), absl::StrCat("(int)", Arg(1)));
  // SIGNED / UNSIGNED order the bit pattern as that kind of integer.
  if (ct == ComparisonType::kSigned || ct == ComparisonType::kUnsigned) {
    const std::string as = absl::StrCat("(typename xjit_int<", Type(t), ">::",
                                        ct == ComparisonType::kSigned ? "signed_t" : "unsigned_t",
                                        ")");
    return apply(as + Arg(0), as + Arg(1));
  }
  return apply(Arg(0), Arg(1));
}

StringOr Expr::ReducePrecision() {
  if (!IsWideFloat(in_) || out_ != in_) return Unsupported();
  const ReducePrecisionAttrs& a = instr_.attrs<ReducePrecisionAttrs>();
  const std::string tail = absl::StrCat(", ", a.exponent_bits, "LL, ", a.mantissa_bits, "LL)");
  auto rp = [&](const char* u, int bits, int mantissa) {
    return absl::StrCat("xjit_reduce_precision<", u, ", ", bits, ", ", mantissa, ">(",
                        ToBits(in_, args_[0]), tail);
  };
  switch (in_) {
    case DType::kF16: return FromBits(in_, "", rp("uint16_t", 16, 10));
    case DType::kBF16: return FromBits(in_, "", rp("uint16_t", 16, 7));
    case DType::kF32: return FromBits(in_, "", rp("uint32_t", 32, 23));
    default: return FromBits(in_, "", rp("uint64_t", 64, 52));
  }
}

StringOr Expr::BitcastConvert() {
  const DType from = in_, to = out_;
  if (ByteWidth(from) != ByteWidth(to) || IsPred(from) || IsPred(to) ||
      IsComplex(from) != IsComplex(to) || instr_.shape().dims != instr_.operand(0)->shape().dims) {
    return Unsupported();
  }
  if (from == to) return Arg(0);
  if (IsComplex(from)) return Unsupported();  // c64 <-> c64 only (widths differ otherwise)
  return FromBits(to, Type(to), ToBits(from, args_[0]));
}

// convert's rules (docs/semantics.md), as the cpu's ConvertElement.
StringOr Expr::Convert(DType from, DType to, const std::string& x) const {
  if (from == to && !IsHalf(from)) return Paren(x);
  if (to == DType::kPred) {
    if (IsComplex(from)) return Call("xjit_cnonzero", {x});
    if (IsPred(from)) return Paren(x);
    return absl::StrCat("(", Load(from, x), " != 0)");  // NaN -> true, -0 -> false
  }
  if (IsComplex(from)) {
    if (IsComplex(to)) return Call(to == DType::kC64 ? "xjit_to_c64" : "xjit_to_c128", {x});
    return Convert(ComplexComponent(from), to, absl::StrCat("(", x, ").re"));  // drops imag
  }
  if (IsComplex(to)) {
    const DType part = ComplexComponent(to);
    absl::StatusOr<std::string> re = Convert(from, part, x);
    if (!re.ok()) return re;
    return absl::StrCat(Type(to), "{", *re, part == DType::kF32 ? ", 0.0f}" : ", 0.0}");
  }
  const std::string src = Load(from, x);
  const DType src_t = ComputeOf(from);
  if (IsHalf(to)) return Store(to, absl::StrCat("(float)", src));  // f64 goes through f32
  const std::string name = Type(to);
  if (IsInteger(to) && (src_t == DType::kF32 || src_t == DType::kF64)) {
    return absl::StrCat("xjit_f2i<", name, ">(", src, ")");
  }
  return absl::StrCat("((", name, ")", src, ")");  // wraps, rounds to nearest, 0/1
}

StringOr Expr::Ternary() {
  const DType t = out_;
  const Opcode op = instr_.opcode();
  if (op == Opcode::kSelect) {
    if (instr_.operand(0)->shape().dtype != DType::kPred ||
        instr_.operand(1)->shape().dtype != t || instr_.operand(2)->shape().dtype != t) {
      return Unsupported();
    }
    return absl::StrCat("(", Arg(0), " ? ", Arg(1), " : ", Arg(2), ")");
  }
  // clamp(lo, x, hi) = minimum(maximum(x, lo), hi), with their NaN rules.
  for (const Instruction* o : instr_.operands()) {
    if (o->shape().dtype != t) return Unsupported();
  }
  const std::string lo = Load(t, args_[0]), x = Load(t, args_[1]), hi = Load(t, args_[2]);
  auto nest = [&](const char* max, const char* min) {
    return absl::StrCat(min, "(", max, "(", x, ", ", lo, "), ", hi, ")");
  };
  if (IsPred(t)) return absl::StrCat("((", x, " || ", lo, ") && ", hi, ")");
  if (IsInteger(t)) {
    const std::string n = Type(t);
    return nest(absl::StrCat("xjit_imax<", n, ">").c_str(), absl::StrCat("xjit_imin<", n, ">").c_str());
  }
  if (IsWideFloat(t)) return Store(t, nest("xjit_fmax", "xjit_fmin"));
  if (IsComplex(t)) return nest("xjit_cmax", "xjit_cmin");
  return Unsupported();
}

}  // namespace

absl::StatusOr<std::string> CudaTypeName(DType t) {
  switch (t) {
    case DType::kPred: return std::string("bool");
    case DType::kS8: return std::string("int8_t");
    case DType::kS16: return std::string("int16_t");
    case DType::kS32: return std::string("int32_t");
    case DType::kS64: return std::string("int64_t");
    case DType::kU8: return std::string("uint8_t");
    case DType::kU16: return std::string("uint16_t");
    case DType::kU32: return std::string("uint32_t");
    case DType::kU64: return std::string("uint64_t");
    case DType::kF16: return std::string("__half");
    case DType::kBF16: return std::string("__nv_bfloat16");
    case DType::kF32: return std::string("float");
    case DType::kF64: return std::string("double");
    case DType::kC64: return std::string("xjit_c64");
    case DType::kC128: return std::string("xjit_c128");
    XJIT_NARROW_DTYPE_CASES
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      "the cuda backend has no element type for ", StableHloName(t),
      " (narrow types are expanded by passes/narrow_type_expansion before backends run)"));
}

absl::StatusOr<std::string> ElementwiseExpression(const Instruction& instr,
                                                  absl::Span<const std::string> operands) {
  return Expr(instr, operands).Build();
}

}  // namespace xjit::cuda
