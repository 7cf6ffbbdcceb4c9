#include "xjit/backends/reference/evaluator.h"
#include "xjit/runtime/custom_call_runner.h"

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/control_flow.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/runtime/host_transfer_op.h"

namespace xjit::reference {
namespace {

absl::Status Annotate(const Instruction& instr, const absl::Status& s) {
  std::string where = instr.source_location().empty()
                          ? std::string()
                          : absl::StrCat(" (", instr.source_location(), ")");
  return absl::Status(s.code(), absl::StrCat("%", instr.id(), " = ", OpcodeName(instr.opcode()),
                                             where, ": ", s.message()));
}

absl::StatusOr<const Literal*> ArrayOperand(const std::vector<const Value*>& operands, size_t i) {
  if (i >= operands.size()) return absl::InvalidArgumentError(absl::StrCat("missing operand ", i));
  if (operands[i]->is_tuple) return absl::InvalidArgumentError(absl::StrCat("operand ", i, " is a tuple"));
  return &operands[i]->array;
}

absl::StatusOr<Value> Wrap(absl::StatusOr<Literal> l) {
  if (!l.ok()) return l.status();
  return Value(std::move(*l));
}

// Every operand as an array (none may be a tuple).
absl::StatusOr<std::vector<const Literal*>> ArrayOperands(
    const std::vector<const Value*>& operands) {
  std::vector<const Literal*> arrays;
  for (size_t i = 0; i < operands.size(); ++i) {
    absl::StatusOr<const Literal*> l = ArrayOperand(operands, i);
    if (!l.ok()) return l.status();
    arrays.push_back(*l);
  }
  return arrays;
}

// A multi-result op's value, as shape inference types it: one result is the
// array itself, several a tuple (`always_tuple`: a tuple even of one).
absl::StatusOr<Value> WrapResults(absl::StatusOr<std::vector<Literal>> results,
                                  bool always_tuple = false) {
  if (!results.ok()) return results.status();
  if (results->size() == 1 && !always_tuple) return Value(std::move((*results)[0]));
  std::vector<Value> elements;
  for (Literal& l : *results) elements.emplace_back(std::move(l));
  return Value::Tuple(std::move(elements));
}

// reduce and reduce_window: N inputs, then N init values, and one body.
struct InputsAndInits {
  std::vector<const Literal*> inputs, inits;
};
absl::StatusOr<InputsAndInits> SplitInputsAndInits(const Instruction& instr,
                                                   const std::vector<const Value*>& operands) {
  if (operands.size() % 2 != 0 || instr.called_computations().size() != 1) {
    return absl::InvalidArgumentError("needs N inputs, N init values and one body");
  }
  absl::StatusOr<std::vector<const Literal*>> arrays = ArrayOperands(operands);
  if (!arrays.ok()) return arrays.status();
  const size_t n = operands.size() / 2;
  return InputsAndInits{{arrays->begin(), arrays->begin() + n}, {arrays->begin() + n, arrays->end()}};
}

absl::StatusOr<Value> EvalReduceInstr(const Instruction& instr,
                                      const std::vector<const Value*>& operands) {
  absl::StatusOr<InputsAndInits> split = SplitInputsAndInits(instr, operands);
  if (!split.ok()) return split.status();
  const std::vector<const Literal*>& inputs = split->inputs;
  const std::vector<const Literal*>& inits = split->inits;
  const Computation& body = *instr.called_computations()[0];
  ReduceBody fn = [&body](std::vector<Literal> args) -> absl::StatusOr<std::vector<Literal>> {
    std::vector<Value> values;
    values.reserve(args.size());
    for (Literal& a : args) values.emplace_back(std::move(a));
    absl::StatusOr<std::vector<Value>> out = EvaluateComputation(body, values);
    if (!out.ok()) return out.status();
    std::vector<Literal> results;
    for (Value& v : *out) {
      if (v.is_tuple) return absl::InvalidArgumentError("reduce body returned a tuple");
      results.push_back(std::move(v.array));
    }
    return results;
  };
  return WrapResults(EvalReduce(inputs, inits, instr.attrs<ReduceAttrs>().dimensions, fn));
}

// Runs `region` on 0-d literal arguments; its results must be arrays.
absl::StatusOr<std::vector<Literal>> RunRegion(const Computation& region,
                                               std::vector<Literal> args) {
  std::vector<Value> values;
  values.reserve(args.size());
  for (Literal& a : args) values.emplace_back(std::move(a));
  absl::StatusOr<std::vector<Value>> out = EvaluateComputation(region, values);
  if (!out.ok()) return out.status();
  std::vector<Literal> results;
  for (Value& v : *out) {
    if (v.is_tuple) return absl::InvalidArgumentError("region returned a tuple");
    results.push_back(std::move(v.array));
  }
  return results;
}

absl::StatusOr<Value> EvalSortInstr(const Instruction& instr,
                                    const std::vector<const Value*>& operands) {
  if (instr.called_computations().size() != 1) {
    return absl::InvalidArgumentError("needs one comparator");
  }
  absl::StatusOr<std::vector<const Literal*>> inputs = ArrayOperands(operands);
  if (!inputs.ok()) return inputs.status();
  const Computation& cmp = *instr.called_computations()[0];
  SortComparator less = [&cmp](std::vector<Literal> args) -> absl::StatusOr<bool> {
    absl::StatusOr<std::vector<Literal>> r = RunRegion(cmp, std::move(args));
    if (!r.ok()) return r.status();
    if (r->size() != 1 || r->front().shape() != Shape(DType::kPred, {})) {
      return absl::InvalidArgumentError("sort comparator must return one i1");
    }
    return r->front().data_as<bool>()[0];
  };
  return WrapResults(EvalSort(*inputs, instr.attrs<SortAttrs>().dimension, less));
}

absl::StatusOr<Value> EvalMapInstr(const Instruction& instr,
                                   const std::vector<const Value*>& operands) {
  if (instr.called_computations().size() != 1) {
    return absl::InvalidArgumentError("needs one computation");
  }
  absl::StatusOr<std::vector<const Literal*>> inputs = ArrayOperands(operands);
  if (!inputs.ok()) return inputs.status();
  const Computation& fn = *instr.called_computations()[0];
  MapComputation apply = [&fn](std::vector<Literal> args) -> absl::StatusOr<Literal> {
    absl::StatusOr<std::vector<Literal>> r = RunRegion(fn, std::move(args));
    if (!r.ok()) return r.status();
    if (r->size() != 1) return absl::InvalidArgumentError("map computation must return one value");
    return std::move(r->front());
  };
  return Wrap(EvalMap(*inputs, instr.shape().dtype, apply));
}

absl::StatusOr<Value> EvalIndexingInstr(const Instruction& instr,
                                        const std::vector<const Value*>& operands) {
  absl::StatusOr<std::vector<const Literal*>> collected = ArrayOperands(operands);
  if (!collected.ok()) return collected.status();
  const std::vector<const Literal*>& arrays = *collected;
  const absl::Span<const Literal* const> all(arrays);
  const Opcode op = instr.opcode();
  if (op == Opcode::kGather) {
    if (arrays.size() != 2) return absl::InvalidArgumentError("gather: needs two operands");
    return Wrap(EvalGather(*arrays[0], *arrays[1], instr.attrs<GatherAttrs>(), instr.shape()));
  }
  if (op == Opcode::kDynamicSlice) {
    if (arrays.empty()) return absl::InvalidArgumentError("dynamic_slice: needs an operand");
    return Wrap(EvalDynamicSlice(*arrays[0], all.subspan(1),
                                 instr.attrs<DynamicSliceAttrs>().slice_sizes));
  }
  if (op == Opcode::kDynamicUpdateSlice) {
    if (arrays.size() < 2) return absl::InvalidArgumentError("dynamic_update_slice: operands");
    return Wrap(EvalDynamicUpdateSlice(*arrays[0], *arrays[1], all.subspan(2)));
  }
  if (op == Opcode::kScatter) {
    if (arrays.size() < 3 || arrays.size() % 2 == 0 || instr.called_computations().size() != 1) {
      return absl::InvalidArgumentError("scatter: needs N inputs, indices, N updates, a body");
    }
    const size_t n = (arrays.size() - 1) / 2;
    const Computation& body = *instr.called_computations()[0];
    ReduceBody fn = [&body](std::vector<Literal> args) { return RunRegion(body, std::move(args)); };
    return WrapResults(EvalScatter(all.subspan(0, n), *arrays[n], all.subspan(n + 1, n),
                                   instr.attrs<ScatterAttrs>(), fn));
  }
  return absl::InternalError("not an indexing op");
}

absl::StatusOr<Value> EvalReduceWindowInstr(const Instruction& instr,
                                            const std::vector<const Value*>& operands) {
  absl::StatusOr<InputsAndInits> split = SplitInputsAndInits(instr, operands);
  if (!split.ok()) return split.status();
  const std::vector<const Literal*>& inputs = split->inputs;
  const std::vector<const Literal*>& inits = split->inits;
  const Computation& body = *instr.called_computations()[0];
  ReduceBody fn = [&body](std::vector<Literal> args) { return RunRegion(body, std::move(args)); };
  return WrapResults(EvalReduceWindow(inputs, inits, instr.attrs<ReduceWindowAttrs>(), fn));
}

absl::StatusOr<Value> EvalSelectAndScatterInstr(const Instruction& instr,
                                                const std::vector<const Value*>& operands) {
  if (operands.size() != 3 || instr.called_computations().size() != 2) {
    return absl::InvalidArgumentError("needs operand, source, init_value and two regions");
  }
  std::vector<const Literal*> in;
  for (size_t i = 0; i < 3; ++i) {
    absl::StatusOr<const Literal*> l = ArrayOperand(operands, i);
    if (!l.ok()) return l.status();
    in.push_back(*l);
  }
  const Computation& sel = *instr.called_computations()[0];
  const Computation& sc = *instr.called_computations()[1];
  SelectFn select = [&sel](const Literal& a, const Literal& b) -> absl::StatusOr<bool> {
    absl::StatusOr<std::vector<Literal>> r = RunRegion(sel, {a, b});
    if (!r.ok()) return r.status();
    if (r->size() != 1 || r->front().shape() != Shape(DType::kPred, {})) {
      return absl::InvalidArgumentError("select must return one i1");
    }
    return r->front().data_as<bool>()[0];
  };
  ScatterFn scatter = [&sc](const Literal& a, const Literal& b) -> absl::StatusOr<Literal> {
    absl::StatusOr<std::vector<Literal>> r = RunRegion(sc, {a, b});
    if (!r.ok()) return r.status();
    if (r->size() != 1) return absl::InvalidArgumentError("scatter must return one value");
    return std::move(r->front());
  };
  return Wrap(EvalSelectAndScatter(*in[0], *in[1], *in[2], instr.attrs<SelectAndScatterAttrs>(),
                                   select, scatter));
}

absl::StatusOr<Value> EvalBatchNormInstr(const Instruction& instr,
                                         const std::vector<const Value*>& operands) {
  absl::StatusOr<std::vector<const Literal*>> in = ArrayOperands(operands);
  if (!in.ok()) return in.status();
  const BatchNormAttrs& attrs = instr.attrs<BatchNormAttrs>();
  if (instr.opcode() == Opcode::kBatchNormInference) {
    return Wrap(EvalBatchNormInference(*in, attrs));
  }
  return WrapResults(instr.opcode() == Opcode::kBatchNormTraining ? EvalBatchNormTraining(*in, attrs)
                                                                  : EvalBatchNormGrad(*in, attrs),
                     /*always_tuple=*/true);
}

// Tokens are placeholder scalars; infeed/recv return (values..., token),
// outfeed/send a token, through the running device's queues.
absl::StatusOr<Value> EvalHostIoInstr(const Instruction& instr,
                                      const std::vector<const Value*>& operands) {
  if (instr.opcode() == Opcode::kAfterAll) return Value(Literal(Shape::Token()));
  const HostTransferOp transfer = HostTransferOp::Of(instr);
  if (transfer.receives()) {
    std::vector<Literal> results;
    std::vector<void*> out;
    for (const Shape& s : transfer.value_shapes()) results.emplace_back(s);
    for (Literal& r : results) out.push_back(r.mutable_data());
    if (absl::Status s = transfer.Receive(out); !s.ok()) return s;
    results.emplace_back(Shape::Token());
    return WrapResults(std::move(results), /*always_tuple=*/true);
  }
  std::vector<const void*> in;
  for (size_t i = 0; i + 1 < operands.size(); ++i) {
    absl::StatusOr<const Literal*> l = ArrayOperand(operands, i);
    if (!l.ok()) return l.status();
    in.push_back((*l)->data());
  }
  if (absl::Status s = transfer.Transmit(in); !s.ok()) return s;
  return Value(Literal(Shape::Token()));
}

absl::StatusOr<Value> EvalInstruction(const Instruction& instr,
                                      const std::vector<const Value*>& operands,
                                      absl::Span<const Value> args) {
  const Opcode op = instr.opcode();
  auto array = [&](size_t i) { return ArrayOperand(operands, i); };
#define XJIT_ARRAY(var, i)                                        \
  absl::StatusOr<const Literal*> var##_or = array(i);             \
  if (!var##_or.ok()) return var##_or.status();                   \
  const Literal& var = **var##_or;

  if (op == Opcode::kConvert) {
    XJIT_ARRAY(x, 0);
    return Wrap(EvalConvert(x, instr.shape().dtype));
  }
  if (op == Opcode::kCompare) {
    XJIT_ARRAY(a, 0);
    XJIT_ARRAY(b, 1);
    const CompareAttrs& attrs = instr.attrs<CompareAttrs>();
    return Wrap(EvalCompare(a, b, attrs.comparison_direction, attrs.compare_type));
  }
  if (op == Opcode::kReducePrecision) {
    XJIT_ARRAY(x, 0);
    const ReducePrecisionAttrs& attrs = instr.attrs<ReducePrecisionAttrs>();
    return Wrap(EvalReducePrecision(x, attrs.exponent_bits, attrs.mantissa_bits));
  }
  if (IsElementwiseUnary(op)) {
    XJIT_ARRAY(x, 0);
    return Wrap(EvalUnary(op, x));
  }
  if (IsElementwiseBinary(op)) {
    XJIT_ARRAY(a, 0);
    XJIT_ARRAY(b, 1);
    return Wrap(EvalBinary(op, a, b));
  }
  switch (op) {
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
      break;  // handled above
    case Opcode::kParameter: {
      int64_t number = instr.attrs<ParameterAttrs>().number;
      if (number < 0 || number >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter ", number, " not supplied (", args.size(), " given)"));
      }
      return args[number];
    }
    case Opcode::kConstant:
      return Value(instr.attrs<ConstantAttrs>().value);
    case Opcode::kIota:
      return Wrap(EvalIota(instr.shape(), instr.attrs<IotaAttrs>().iota_dimension));
    case Opcode::kSelect: {
      XJIT_ARRAY(p, 0);
      XJIT_ARRAY(t, 1);
      XJIT_ARRAY(f, 2);
      return Wrap(EvalSelect(p, t, f));
    }
    case Opcode::kClamp: {
      XJIT_ARRAY(lo, 0);
      XJIT_ARRAY(x, 1);
      XJIT_ARRAY(hi, 2);
      return Wrap(EvalClamp(lo, x, hi));
    }
    case Opcode::kBroadcastInDim: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalBroadcastInDim(x, instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions,
                                     instr.shape()));
    }
    case Opcode::kReshape: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalReshape(x, instr.shape()));
    }
    case Opcode::kTranspose: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalTranspose(x, instr.attrs<TransposeAttrs>().permutation));
    }
    case Opcode::kSlice: {
      XJIT_ARRAY(x, 0);
      const SliceAttrs& attrs = instr.attrs<SliceAttrs>();
      std::vector<int64_t> strides = attrs.strides;
      if (strides.empty()) strides.assign(x.shape().rank(), 1);  // strides are optional
      return Wrap(EvalSlice(x, attrs.start_indices, attrs.limit_indices, strides));
    }
    case Opcode::kConcatenate: {
      std::vector<const Literal*> inputs;
      for (size_t i = 0; i < operands.size(); ++i) {
        XJIT_ARRAY(x, i);
        inputs.push_back(&x);
      }
      return Wrap(EvalConcatenate(inputs, instr.attrs<ConcatenateAttrs>().dimension));
    }
    case Opcode::kPad: {
      XJIT_ARRAY(x, 0);
      XJIT_ARRAY(v, 1);
      const PadAttrs& attrs = instr.attrs<PadAttrs>();
      std::vector<int64_t> interior = attrs.interior_padding;
      if (interior.empty()) interior.assign(x.shape().rank(), 0);
      return Wrap(EvalPad(x, v, attrs.edge_padding_low, attrs.edge_padding_high, interior));
    }
    case Opcode::kReverse: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalReverse(x, instr.attrs<ReverseAttrs>().dimensions));
    }
    case Opcode::kDotGeneral: {
      XJIT_ARRAY(a, 0);
      XJIT_ARRAY(b, 1);
      return Wrap(EvalDotGeneral(a, b, instr.attrs<DotGeneralAttrs>().dot_dimension_numbers));
    }
    case Opcode::kReduce:
      return EvalReduceInstr(instr, operands);
    case Opcode::kSort:
      return EvalSortInstr(instr, operands);
    case Opcode::kMap:
      return EvalMapInstr(instr, operands);
    XJIT_INDEXING_OPS(XJIT_OPCODE_CASE)
      return EvalIndexingInstr(instr, operands);
    case Opcode::kWhile:
      return EvalWhile(instr, operands);
    case Opcode::kIf:
    case Opcode::kCase:
      return EvalBranch(instr, operands);
    case Opcode::kConvolution: {
      XJIT_ARRAY(a, 0);
      XJIT_ARRAY(b, 1);
      return Wrap(EvalConvolution(a, b, instr.attrs<ConvolutionAttrs>(), instr.shape()));
    }
    case Opcode::kReduceWindow:
      return EvalReduceWindowInstr(instr, operands);
    case Opcode::kSelectAndScatter:
      return EvalSelectAndScatterInstr(instr, operands);
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      return EvalBatchNormInstr(instr, operands);
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      return EvalHostIoInstr(instr, operands);
    case Opcode::kCholesky: {
      XJIT_ARRAY(a, 0);
      return Wrap(EvalCholesky(a, instr.attrs<CholeskyAttrs>()));
    }
    case Opcode::kTriangularSolve: {
      XJIT_ARRAY(a, 0);
      XJIT_ARRAY(b, 1);
      return Wrap(EvalTriangularSolve(a, b, instr.attrs<TriangularSolveAttrs>()));
    }
    case Opcode::kBitcastConvert: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalBitcastConvert(x, instr.shape()));
    }
    case Opcode::kTuple: {
      std::vector<Value> elements;
      for (const Value* v : operands) elements.push_back(*v);
      return Value::Tuple(std::move(elements));
    }
    case Opcode::kGetTupleElement: {
      int64_t index = instr.attrs<GetTupleElementAttrs>().index;
      if (operands.size() != 1 || !operands[0]->is_tuple || index < 0 ||
          index >= static_cast<int64_t>(operands[0]->elements.size())) {
        return absl::InvalidArgumentError("needs a tuple operand and an index within it");
      }
      return operands[0]->elements[index];
    }
    case Opcode::kCall:
    case Opcode::kComposite:  // runs its decomposition (issue 11)
    case Opcode::kFusion: {  // a fusion's region is evaluated as a callee
      // A call's further computations are differentiation rules, not run.
      if (instr.called_computations().empty() ||
          (op == Opcode::kFusion && instr.called_computations().size() != 1)) {
        return absl::InvalidArgumentError("needs exactly one callee");
      }
      std::vector<Value> call_args;
      for (const Value* v : operands) call_args.push_back(*v);
      absl::StatusOr<std::vector<Value>> out =
          EvaluateComputation(*instr.called_computations()[0], call_args);
      if (!out.ok()) return out.status();
      // As shape inference: a single result is passed through as is.
      if (out->size() == 1) return std::move((*out)[0]);
      return Value::Tuple(std::move(*out));
    }
    case Opcode::kCustomCall: {
      absl::StatusOr<CustomCallRunner> runner = CustomCallRunner::Create(instr);
      if (!runner.ok()) return runner.status();
      std::vector<const void*> in;
      for (const Value* v : operands) {
        if (v->is_tuple) return absl::InvalidArgumentError("custom_call: tuple operand");
        in.push_back(v->array.data());
      }
      std::vector<Literal> out;
      std::vector<void*> out_data;
      for (const Shape& s : runner->result_shapes()) out.emplace_back(s);
      for (Literal& l : out) out_data.push_back(l.mutable_data());
      if (absl::Status s = runner->Run(in, out_data); !s.ok()) return s;
      return WrapResults(std::move(out), /*always_tuple=*/instr.shape().is_tuple);
    }
    case Opcode::kRngBitGenerator: {
      XJIT_ARRAY(state, 0);
      if (!instr.shape().is_tuple || instr.shape().tuple_shapes.size() != 2) {
        return absl::InvalidArgumentError("rng_bit_generator: needs an (output_state, output) result");
      }
      return WrapResults(EvalRngBitGenerator(state, instr.shape().tuple_shapes[1],
                                             instr.attrs<RngBitGeneratorAttrs>().rng_algorithm),
                         /*always_tuple=*/true);
    }
    // issue 11 (h-fft)
    case Opcode::kFft: {
      XJIT_ARRAY(x, 0);
      return Wrap(EvalFft(x, instr.attrs<FftAttrs>(), instr.shape()));
    }
    case Opcode::kOptimizationBarrier: {  // the identity
      if (operands.size() == 1) return *operands[0];
      std::vector<Value> elements;
      for (const Value* v : operands) elements.push_back(*v);
      return Value::Tuple(std::move(elements));
    }
    case Opcode::kReplicaId:  // one process: replica 0, partition 0
    case Opcode::kPartitionId:
      return Value(Literal::Scalar(DType::kU32, uint32_t{0}));
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
    case Opcode::kUniformQuantize:
    case Opcode::kUniformDequantize:
      return absl::InvalidArgumentError(absl::StrCat(
          OpcodeName(op), ": lowered at compile time (passes::LowerForBackends)"));
  }
#undef XJIT_ARRAY
  return absl::UnimplementedError("op not handled by the reference backend");
}

}  // namespace

absl::StatusOr<std::vector<Value>> EvaluateComputation(const Computation& computation,
                                                       absl::Span<const Value> args) {
  const auto& instructions = computation.instructions();
  std::vector<Value> values(instructions.size());
  std::vector<const Value*> operands;
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction& instr = *instructions[i];
    operands.clear();
    for (const Instruction* operand : instr.operands()) {
      // SSA: operands are earlier instructions of this same computation.
      const int64_t id = operand->id();
      if (id < 0 || id >= static_cast<int64_t>(i) || instructions[id].get() != operand) {
        return Annotate(instr, absl::InvalidArgumentError("operand is not an earlier value of "
                                                          "this computation"));
      }
      operands.push_back(&values[id]);
    }
    absl::StatusOr<Value> v = EvalInstruction(instr, operands, args);
    if (!v.ok()) return Annotate(instr, v.status());
    Shape got = v->shape();
    if (got != instr.shape()) {
      return Annotate(instr, absl::InternalError(absl::StrCat("computed ", got.ToString(),
                                                              " but the graph declares ",
                                                              instr.shape().ToString())));
    }
    values[i] = std::move(*v);
  }
  std::vector<Value> results;
  for (const Instruction* r : computation.results()) {
    const int64_t id = r->id();
    if (id < 0 || id >= static_cast<int64_t>(instructions.size()) || instructions[id].get() != r) {
      return absl::InvalidArgumentError(
          absl::StrCat("computation ", computation.name(), " returns a value it does not own"));
    }
    results.push_back(values[id]);
  }
  return results;
}

}  // namespace xjit::reference
