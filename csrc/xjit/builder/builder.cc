// ComputationBuilder validates and normalises each op before appending it, so
// a graph built through it always verifies. Errors carry the user's source
// location so Python can point at the traced line.
#include "xjit/builder/builder.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/ir/verifier.h"
#include "xjit/ir/window_attrs.h"

namespace xjit {
namespace {

absl::Status WithLocation(const absl::Status& s, absl::string_view loc) {
  if (s.ok() || loc.empty()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), " (at ", loc, ")"));
}

ComparisonType DefaultCompareType(DType t) {
  if (IsSignedInt(t)) return ComparisonType::kSigned;
  if (IsUnsignedInt(t) || IsPred(t)) return ComparisonType::kUnsigned;
  return ComparisonType::kFloat;  // float and complex
}

// Fills what the caller may leave out; the filled values are the only ones
// inference would accept, so nothing user-visible is guessed.
void Normalise(Opcode op, const std::vector<Instruction*>& operands, Attributes& attrs,
               std::optional<Shape>& result_type) {
  if (operands.empty() || operands[0]->shape().is_tuple) return;
  const Shape& x = operands[0]->shape();
  if (op == Opcode::kCompare) {
    CompareAttrs& compare = attrs.get<CompareAttrs>();
    if (compare.compare_type == ComparisonType::kNotype) {
      compare.compare_type = DefaultCompareType(x.is_quantized() ? x.quant->expressed : x.dtype);
    }
  }
  if (op == Opcode::kSlice) {
    SliceAttrs& slice = attrs.get<SliceAttrs>();
    if (slice.strides.empty()) slice.strides.assign(slice.start_indices.size(), 1);
  }
  if (op == Opcode::kConvolution) FillConvolutionDefaults(attrs.get<ConvolutionAttrs>());
  if (op == Opcode::kReduceWindow) FillReduceWindowDefaults(attrs.get<ReduceWindowAttrs>(), x.rank());
  if (op == Opcode::kSelectAndScatter) {
    FillSelectAndScatterDefaults(attrs.get<SelectAndScatterAttrs>(), x.rank());
  }
  if (!result_type || result_type->is_tuple) return;
  // Reshape and broadcast_in_dim cannot change the element type, and a Shape
  // always has one (f32 by default), so a caller that gave only dims gets the
  // operand's.
  if (op == Opcode::kReshape || op == Opcode::kBroadcastInDim) result_type->dtype = x.dtype;
  if (op == Opcode::kConvert && result_type->dims.empty()) result_type->dims = x.dims;
}

}  // namespace

ModuleBuilder::ModuleBuilder(std::string name)
    : module_(std::make_unique<Module>(std::move(name))) {}
ModuleBuilder::~ModuleBuilder() = default;

ComputationBuilder* ModuleBuilder::NewComputation(std::string name) {
  // After Build the module is gone; callers get nullptr rather than a builder
  // writing into nothing.
  if (module_ == nullptr) return nullptr;
  builders_.push_back(std::make_unique<ComputationBuilder>(module_.get(), std::move(name)));
  return builders_.back().get();
}

absl::StatusOr<std::unique_ptr<Module>> ModuleBuilder::Build(Computation* entry) {
  if (module_ == nullptr) {
    return absl::FailedPreconditionError("build: the module was already built");
  }
  bool owned = false;
  for (const auto& c : module_->computations()) owned = owned || c.get() == entry;
  if (entry == nullptr || !owned) {
    return absl::FailedPreconditionError(
        "build: the entry computation must be a finished computation of this module");
  }
  module_->set_entry(entry);
  // Every instruction was checked as it was appended (Append): only what
  // the whole module shows is left to verify.
  if (absl::Status s = VerifyModuleStructure(*module_); !s.ok()) return s;
  builders_.clear();
  return std::move(module_);
}

ComputationBuilder::ComputationBuilder(Module* module, std::string name)
    : module_(module), computation_(std::make_unique<Computation>(std::move(name))) {}

Instruction* ComputationBuilder::Parameter(Shape shape) {
  if (computation_ == nullptr) return nullptr;
  ParameterAttrs attrs{next_parameter_++};
  return computation_->AddInstruction(std::make_unique<Instruction>(
      Opcode::kParameter, std::move(shape), std::vector<Instruction*>{}, std::move(attrs),
      std::vector<Computation*>{}));
}

Instruction* ComputationBuilder::Constant(Literal literal) {
  if (computation_ == nullptr) return nullptr;
  Shape shape = literal.shape();
  ConstantAttrs attrs{std::move(literal)};
  return computation_->AddInstruction(std::make_unique<Instruction>(
      Opcode::kConstant, std::move(shape), std::vector<Instruction*>{}, std::move(attrs),
      std::vector<Computation*>{}));
}

absl::StatusOr<Instruction*> ComputationBuilder::Add(Opcode op, std::vector<Instruction*> operands,
                                                     Attributes attrs,
                                                     std::vector<Computation*> called,
                                                     std::string source_location) {
  return Append(op, std::nullopt, std::move(operands), std::move(attrs), std::move(called),
                std::move(source_location));
}

absl::StatusOr<Instruction*> ComputationBuilder::AddWithResultType(
    Opcode op, Shape result_type, std::vector<Instruction*> operands, Attributes attrs,
    std::vector<Computation*> called, std::string source_location) {
  return Append(op, std::move(result_type), std::move(operands), std::move(attrs),
                std::move(called), std::move(source_location));
}

absl::StatusOr<Instruction*> ComputationBuilder::Append(Opcode op,
                                                        std::optional<Shape> result_type,
                                                        std::vector<Instruction*> operands,
                                                        Attributes attrs,
                                                        std::vector<Computation*> called,
                                                        std::string source_location) {
  absl::string_view name = OpcodeName(op);
  if (computation_ == nullptr) {
    return WithLocation(absl::FailedPreconditionError(absl::StrCat(
                            name, ": computation ", finished_->name(), " is already finished")),
                        source_location);
  }
  if (absl::Status s = CheckOperandsOwned(name, operands); !s.ok()) {
    return WithLocation(s, source_location);
  }
  for (size_t i = 0; i < called.size(); ++i) {
    if (called[i] == nullptr) {
      return WithLocation(
          absl::InvalidArgumentError(absl::StrCat(name, ": called computation ", i, " is null")),
          source_location);
    }
  }
  if (attrs.kind() == AttrsKind::kNoAttrs) attrs = Attributes::Default(OpcodeAttrsKind(op));
  if (attrs.kind() != OpcodeAttrsKind(op)) {
    return WithLocation(absl::InvalidArgumentError(absl::StrCat(
                            name, ": takes ", AttrsKindName(OpcodeAttrsKind(op)), ", got ",
                            AttrsKindName(attrs.kind()))),
                        source_location);
  }
  if (op == Opcode::kParameter) attrs.get<ParameterAttrs>().number = next_parameter_;
  Normalise(op, operands, attrs, result_type);

  std::vector<const Shape*> shapes;
  for (const Instruction* o : operands) shapes.push_back(&o->shape());
  std::vector<const Computation*> called_const(called.begin(), called.end());
  absl::StatusOr<Shape> shape =
      InferShape(op, shapes, attrs, called_const, result_type ? &*result_type : nullptr);
  if (!shape.ok()) return WithLocation(shape.status(), source_location);
  if (op == Opcode::kParameter) ++next_parameter_;

  auto instr = std::make_unique<Instruction>(op, *std::move(shape), std::move(operands),
                                             std::move(attrs), std::move(called));
  instr->set_source_location(std::move(source_location));
  return computation_->AddInstruction(std::move(instr));
}

absl::StatusOr<Instruction*> ComputationBuilder::AddCopyOf(const Instruction& old,
                                                           std::vector<Instruction*> operands,
                                                           std::vector<Computation*> called) {
  // Parameters take the next number: Append assigns it.
  if (computation_ == nullptr || old.opcode() == Opcode::kParameter) {
    return Append(old.opcode(), old.shape(), std::move(operands), old.attributes(),
                  std::move(called), old.source_location());
  }
  if (absl::Status s = CheckOperandsOwned(OpcodeName(old.opcode()), operands); !s.ok()) return s;
  auto instr = std::make_unique<Instruction>(old.opcode(), old.shape(), std::move(operands),
                                             old.attributes(), std::move(called));
  instr->set_source_location(old.source_location());
  return computation_->AddInstruction(std::move(instr));
}

absl::Status ComputationBuilder::CheckOperandsOwned(
    absl::string_view name, const std::vector<Instruction*>& operands) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    Instruction* o = operands[i];
    if (!Owns(o)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": operand ", i, o == nullptr ? " is null" : " belongs to another computation",
          " (computation ", computation_->name(), ")"));
    }
  }
  return absl::OkStatus();
}

bool ComputationBuilder::Owns(const Instruction* instr) const {
  const auto& instrs = computation_->instructions();
  return instr != nullptr && instr->id() >= 0 &&
         instr->id() < static_cast<int64_t>(instrs.size()) && instrs[instr->id()].get() == instr;
}

absl::StatusOr<Computation*> ComputationBuilder::Finish(std::vector<Instruction*> results) {
  if (computation_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("finish: computation ", finished_->name(), " is already finished"));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    Instruction* r = results[i];
    if (!Owns(r)) {
      return absl::InvalidArgumentError(absl::StrCat("finish: result ", i, " of computation ",
                                                     computation_->name(),
                                                     " is null or belongs to another computation"));
    }
  }
  computation_->set_results(std::move(results));
  finished_ = module_->AddComputation(std::move(computation_));
  return finished_;
}

}  // namespace xjit
