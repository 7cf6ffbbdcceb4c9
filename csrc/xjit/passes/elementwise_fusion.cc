#include "xjit/passes/elementwise_fusion.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/builder/builder.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/row_geometry.h"
#include "xjit/ir/users.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

// Narrow types (ir/dtype.h) stay out of regions: a region computes in its
// ops' types, and only direct converts and byte moves take narrow ones.
bool IsNarrowArray(const Shape& s) { return s.is_array() && IsNarrow(s.dtype); }

// A broadcast to more elements (a splat of one, or a row or column spread
// over a matrix): copied into each region that reads it, with its operand as
// the region's input, so it is read in place and never written out.
bool IsReadInPlace(const Instruction& instr) {
  return instr.opcode() == Opcode::kBroadcastInDim && !instr.shape().is_tuple &&
         !IsNarrowArray(instr.shape()) &&
         !instr.operand(0)->shape().is_tuple &&
         instr.operand(0)->shape().num_elements() < instr.shape().num_elements();
}

// A member that moves no element: a reshape, or a bitcast_convert between
// types of one width (its bytes read as another type, element by element).
// It is the value it aliases inside a region; used outside, it is re-applied
// there to the region's result.
bool IsAlias(const Instruction& instr) {
  if (instr.opcode() != Opcode::kReshape && instr.opcode() != Opcode::kBitcastConvert) return false;
  if (IsNarrowArray(instr.shape()) || IsNarrowArray(instr.operand(0)->shape())) return false;
  if (instr.opcode() == Opcode::kReshape) return true;
  return instr.opcode() == Opcode::kBitcastConvert && !instr.shape().is_tuple &&
         !instr.operand(0)->shape().is_tuple && instr.shape().dims == instr.operand(0)->shape().dims;
}

bool IsFusible(const Instruction& instr) {
  if (!IsElementwise(instr.opcode()) || instr.shape().is_tuple) return false;
  if (IsNarrowArray(instr.shape())) return false;
  for (const Instruction* o : instr.operands()) {
    if (o->shape().is_tuple || IsNarrowArray(o->shape())) return false;
  }
  return true;
}

struct Cluster {
  int64_t elements = 0;
  // A row cluster (rows > 0) also holds reduces of its rows and broadcasts of
  // per-row values back over them (elements = rows * row size).
  int64_t rows = 0;
  // A column cluster (columns > 0) holds reduces of its leading dims, into
  // this many values each; no row reduce.
  int64_t columns = 0;
  std::vector<const Instruction*> members;  // in schedule order
  int64_t num_elementwise = 0, num_reduces = 0;
  // Values from outside that its reduces reduce: a sibling reduce of one of
  // them joins (multi-output fusion: the rows are read once for both).
  std::vector<const Instruction*> reduced_inputs;
  // Element-wise members of other clusters computed again at the start of
  // this region from their operands (PlanRecomputation), not read back.
  std::vector<const Instruction*> recomputed;
  bool reads_broadcast = false;
  bool open = true;
  bool fused() const {
    if (num_reduces > 0) return num_elementwise >= 1 || num_reduces >= 2;
    return num_elementwise >= 2 || (num_elementwise == 1 && reads_broadcast);
  }
};

// How a member of a row cluster is indexed: over every element (a row of
// row-size elements per row) or one element per row.
// (A column reduce's result, one element per column, is kPerColumn: nothing
// joins its cluster through it.)
enum class RowKind : int8_t { kNone, kFull, kPerRow, kPerColumn };

// One value: the same instruction, or reshapes of one value to one shape
// (reduction splitting makes its own reshape of a value a sibling reshaped).
bool SameValue(const Instruction* a, const Instruction* b) {
  return a == b || (a->opcode() == Opcode::kReshape && b->opcode() == Opcode::kReshape &&
                    a->operand(0) == b->operand(0) && a->shape() == b->shape());
}

std::optional<std::pair<int64_t, int64_t>> RowReduceGeometry(const Instruction& x,
                                                             const FusionOptions& options) {
  if (!options.row_reduce || x.opcode() != Opcode::kReduce) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> shape = RowReduceShape(x);
  if (!shape || shape->second > options.max_row_size || !options.row_reduce(x)) return std::nullopt;
  return shape;
}

std::optional<std::pair<int64_t, int64_t>> ColumnReduceGeometry(const Instruction& x,
                                                                const FusionOptions& options) {
  if (!options.column_reduce || x.opcode() != Opcode::kReduce) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> shape = ColumnReduceShape(x);
  if (!shape || !options.column_reduce(x)) return std::nullopt;
  return shape;
}

// Which cluster each instruction of the entry joins, and where each cluster
// closes (it is emitted just before that position; n = after the last one).
struct FusionPlan {
  std::vector<Cluster> clusters;
  std::vector<int32_t> cluster_of;                 // per instruction id; -1: none
  std::vector<std::vector<int32_t>> closes_before;  // per position, size n + 1
  // Instructions moved after a cluster (`defer` in Plan): emitted just after
  // the clusters closing at a position, not at their own.
  std::vector<std::vector<const Instruction*>> deferred_before;  // per position
  std::vector<bool> deferred;                                     // per instruction id
};

// Live instructions (ir/walk.h) plus the parameters: the signature stays.
std::vector<bool> LiveInstructionsAndParameters(const Computation& c) {
  std::vector<bool> live = LiveInstructions(c);
  for (const Instruction* p : c.parameters()) live[p->id()] = true;
  return live;
}

// Ops cheap enough to compute twice (no transcendental): recomputing one
// costs less than writing its value out and reading it back.
bool IsCheapToRecompute(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kNegate: case Opcode::kAbs:
    case Opcode::kSign: case Opcode::kFloor: case Opcode::kCeil: case Opcode::kConvert:
    case Opcode::kCompare: case Opcode::kSelect: case Opcode::kClamp: case Opcode::kAnd:
    case Opcode::kOr: case Opcode::kXor: case Opcode::kNot:
      return true;
    default:
      return false;
  }
}

// XLA's producer duplication, for the cheap case: a cluster value P computed
// from values outside its cluster, at most one of them read element by
// element (the rest broadcasts read in place), and used outside only by
// other fused clusters, is computed again inside each of those instead of
// written out and read back ((x - mean) feeding both a variance's column
// fusion and the final divide of a standardisation). That saves a write and
// trades a read of P for a read of its one input. P leaves its own cluster
// when nothing there uses it.
void PlanRecomputation(const Computation& c, FusionPlan& plan) {
  const Users users(c);
  for (size_t k = 0; k < plan.clusters.size(); ++k) {
    if (!plan.clusters[k].fused()) continue;
    const std::vector<const Instruction*> members = plan.clusters[k].members;
    for (const Instruction* p : members) {
      if (!IsFusible(*p) || !IsCheapToRecompute(p->opcode()) || users.IsResult(*p)) continue;
      const int64_t elements = p->shape().num_elements();
      if (elements != plan.clusters[k].elements) continue;
      int full_reads = 0;
      bool outside = true;
      for (const Instruction* o : p->operands()) {
        outside = outside && plan.cluster_of[o->id()] != static_cast<int32_t>(k);
        if (!IsReadInPlace(*o)) ++full_reads;
      }
      if (!outside || full_reads > 1) continue;
      std::vector<int32_t> into;
      bool used_inside = false, candidate = true;
      for (const Instruction* u : users.of(*p)) {
        const int32_t ku = plan.cluster_of[u->id()];
        if (ku == static_cast<int32_t>(k)) {
          used_inside = true;
          continue;
        }
        if (ku < 0 || !plan.clusters[ku].fused() || plan.clusters[ku].elements != elements ||
            plan.deferred[u->id()]) {
          candidate = false;
          break;
        }
        for (const Instruction* o : p->operands()) {
          candidate = candidate && plan.cluster_of[o->id()] != ku;
        }
        if (std::find(into.begin(), into.end(), ku) == into.end()) into.push_back(ku);
      }
      if (!candidate || into.empty()) continue;
      for (int32_t ku : into) plan.clusters[ku].recomputed.push_back(p);
      if (used_inside) continue;
      Cluster& cluster = plan.clusters[k];
      cluster.members.erase(std::find(cluster.members.begin(), cluster.members.end(), p));
      --cluster.num_elementwise;
      plan.cluster_of[p->id()] = -1;
    }
  }
}

FusionPlan Plan(const Computation& c, const std::vector<bool>& live,
               const FusionOptions& options) {
  const auto& instrs = c.instructions();
  const size_t n = instrs.size();
  FusionPlan plan;
  plan.cluster_of.assign(n, -1);
  plan.closes_before.resize(n + 1);
  plan.deferred_before.resize(n + 1);
  plan.deferred.assign(n, false);
  // The open cluster each deferred instruction waits for (-1: none).
  std::vector<int32_t> waits_for(n, -1);
  std::vector<std::vector<const Instruction*>> waiting;  // per cluster
  std::vector<int32_t> open;  // few: one per element count in flight
  auto open_cluster_of = [&](const Instruction* o) -> int32_t {
    int32_t k = plan.cluster_of[o->id()];
    return k >= 0 && plan.clusters[k].open ? k : -1;
  };
  auto close = [&](int32_t k, size_t position) {
    plan.clusters[k].open = false;
    plan.closes_before[position].push_back(k);
    for (const Instruction* w : waiting[k]) {
      plan.deferred_before[position].push_back(w);
      waits_for[w->id()] = -1;
    }
    waiting[k].clear();
    open.erase(std::find(open.begin(), open.end(), k));
  };
  auto join = [&](int32_t k, const Instruction* instr) {
    plan.cluster_of[instr->id()] = k;
    plan.clusters[k].members.push_back(instr);
  };
  std::vector<RowKind> kind(n, RowKind::kNone);
  // A value of another open cluster must be computed before x: close it.
  auto close_others = [&](const Instruction* x, int32_t target, size_t position) {
    for (const Instruction* o : x->operands()) {
      int32_t k = open_cluster_of(o);
      if (k >= 0 && k != target) close(k, position);
    }
  };
  auto new_cluster = [&](int64_t elements) {
    plan.clusters.push_back(Cluster{elements});
    waiting.emplace_back();
    open.push_back(static_cast<int32_t>(plan.clusters.size() - 1));
    return open.back();
  };
  // An instruction that uses values of one open row cluster with reduces of
  // values from outside (which a sibling reduce may still join), and of no
  // other open cluster, waits for the cluster to close instead of closing it:
  // x.min() then x.max() are reduce, finishing reduce, reduce, finishing
  // reduce once split (passes/reduction_splitting.h). A use of it closes the
  // cluster.
  auto defer = [&](const Instruction* x) {
    int32_t k = -1;
    for (const Instruction* o : x->operands()) {
      const int32_t ko = open_cluster_of(o);
      if (ko < 0) continue;
      if (k >= 0 && ko != k) return false;
      k = ko;
    }
    if (k < 0 || plan.clusters[k].reduced_inputs.empty() || HasSideEffects(*x)) return false;
    waits_for[x->id()] = k;
    waiting[k].push_back(x);
    plan.deferred[x->id()] = true;
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    const Instruction* x = instrs[i].get();
    if (!live[i]) continue;
    for (const Instruction* o : x->operands()) {
      if (waits_for[o->id()] >= 0) close(waits_for[o->id()], i);
    }
    if (auto geometry = RowReduceGeometry(*x, options)) {
      const auto [rows, row_size] = *geometry;
      // Joins the cluster computing its input, unless that one has other rows.
      int32_t target = open_cluster_of(x->operand(0));
      if (target >= 0 && (kind[x->operand(0)->id()] != RowKind::kFull ||
                          plan.clusters[target].elements != rows * row_size ||
                          plan.clusters[target].columns != 0 ||
                          (plan.clusters[target].rows != 0 && plan.clusters[target].rows != rows))) {
        target = -1;
      }
      const Instruction* input = x->operand(0);
      const bool outside = open_cluster_of(input) < 0;
      if (target < 0 && !outside && defer(x)) continue;
      if (target < 0 && outside) {
        for (int32_t k : open) {
          const Cluster& c = plan.clusters[k];
          if (c.rows == rows && c.elements == rows * row_size &&
              std::any_of(c.reduced_inputs.begin(), c.reduced_inputs.end(),
                          [&](const Instruction* r) { return SameValue(r, input); })) {
            target = k;
          }
        }
      }
      close_others(x, target, i);
      if (target < 0) target = new_cluster(rows * row_size);
      plan.clusters[target].rows = rows;
      if (outside) plan.clusters[target].reduced_inputs.push_back(input);
      join(target, x);
      ++plan.clusters[target].num_reduces;
      kind[i] = RowKind::kPerRow;
      continue;
    }
    if (auto geometry = ColumnReduceGeometry(*x, options)) {
      // Joins the cluster computing its input (without row reduces; column
      // reduces of the same rows and columns).
      const auto [rows, columns] = *geometry;
      const int32_t target = open_cluster_of(x->operand(0));
      if (target >= 0 && kind[x->operand(0)->id()] == RowKind::kFull &&
          plan.clusters[target].rows == 0 && plan.clusters[target].elements == rows * columns &&
          (plan.clusters[target].columns == 0 || plan.clusters[target].columns == columns)) {
        close_others(x, target, i);
        plan.clusters[target].columns = columns;
        join(target, x);
        ++plan.clusters[target].num_reduces;
        kind[i] = RowKind::kPerColumn;
        continue;
      }
    }
    if (IsFusible(*x)) {
      const int64_t elements = x->shape().num_elements();
      int32_t target = -1;
      RowKind x_kind = RowKind::kFull;
      // An op of per-row values joins their row cluster.
      for (const Instruction* o : x->operands()) {
        int32_t k = open_cluster_of(o);
        if (k >= 0 && kind[o->id()] == RowKind::kPerRow && plan.clusters[k].rows == elements) {
          target = k;
          x_kind = RowKind::kPerRow;
        }
      }
      if (target < 0) {
        for (int32_t k : open) {
          if (plan.clusters[k].elements == elements) target = k;
        }
      }
      close_others(x, target, i);
      if (target < 0) target = new_cluster(elements);
      join(target, x);
      kind[i] = x_kind;
      ++plan.clusters[target].num_elementwise;
      for (const Instruction* o : x->operands()) {
        if (IsReadInPlace(*o)) plan.clusters[target].reads_broadcast = true;
      }
      continue;
    }
    if (x->opcode() == Opcode::kBroadcastInDim) {
      const int32_t k = open_cluster_of(x->operand(0));
      if (k >= 0 && kind[x->operand(0)->id()] == RowKind::kPerRow &&
          IsRowBroadcast(*x, plan.clusters[k].rows, plan.clusters[k].elements)) {
        join(k, x);
        kind[i] = RowKind::kFull;
        continue;
      }
    }
    if (IsAlias(*x) && open_cluster_of(x->operand(0)) >= 0) {
      join(open_cluster_of(x->operand(0)), x);
      kind[i] = kind[x->operand(0)->id()];
      continue;
    }
    if (defer(x)) continue;
    for (const Instruction* o : x->operands()) {
      int32_t k = open_cluster_of(o);
      if (k >= 0) close(k, i);
    }
  }
  while (!open.empty()) close(open.front(), n);
  PlanRecomputation(c, plan);
  // Members of clusters left unfused are ordinary instructions again.
  for (const Cluster& cluster : plan.clusters) {
    if (cluster.fused()) continue;
    for (const Instruction* m : cluster.members) plan.cluster_of[m->id()] = -1;
  }
  return plan;
}

class FusionEmitter {
 public:
  FusionEmitter(const Computation& entry, const FusionPlan& plan, ModuleBuilder& mb,
                Cloner& cloner)
      : entry_(entry), plan_(plan), mb_(mb), cloner_(cloner) {}

  absl::StatusOr<Computation*> Emit();

 private:
  int32_t FusedClusterOf(const Instruction* instr) const {
    int32_t k = plan_.cluster_of[instr->id()];
    return k >= 0 && plan_.clusters[k].fused() ? k : -1;
  }
  // The element-wise member an alias member of a cluster stands for (through
  // aliases).
  const Instruction* Root(const Instruction* m) const {
    const int32_t k = plan_.cluster_of[m->id()];
    while (IsAlias(*m) && plan_.cluster_of[m->operand(0)->id()] == k) m = m->operand(0);
    return m;
  }
  // Whether `o` is a value of cluster k's region: a member, or recomputed there.
  bool Inside(const Instruction* o, int32_t k) const {
    if (plan_.cluster_of[o->id()] == k) return true;
    const std::vector<const Instruction*>& r = plan_.clusters[k].recomputed;
    return std::find(r.begin(), r.end(), o) != r.end();
  }
  void MarkNeeded();
  absl::Status EmitCluster(int32_t k);
  absl::StatusOr<Instruction*> Copy(const Instruction& instr);

  const Computation& entry_;
  const FusionPlan& plan_;
  ModuleBuilder& mb_;
  Cloner& cloner_;  // copies instructions (and the computations they call)
  ComputationBuilder* cb_ = nullptr;
  std::vector<bool> needed_;   // non-members emitted in the new entry
  std::vector<bool> escapes_;  // members used outside their cluster
  // Indexed by old entry id: its value in the new entry, and (while one
  // cluster is emitted) its value inside the region, as a region parameter,
  // as a broadcast copied in. Vectors, not maps: 10,000 ops are common.
  std::vector<Instruction*> value_, inside_, param_of_, broadcast_of_;
  int64_t fusions_ = 0;
};

void FusionEmitter::MarkNeeded() {
  const auto& instrs = entry_.instructions();
  needed_.assign(instrs.size(), false);
  escapes_.assign(instrs.size(), false);
  auto mark = [&](const Instruction* v) {
    (FusedClusterOf(v) >= 0 ? escapes_ : needed_)[v->id()] = true;
  };
  for (const Instruction* r : entry_.results()) mark(r);
  for (const Instruction* p : entry_.parameters()) needed_[p->id()] = true;
  for (const auto& instr : instrs) {
    if (HasSideEffects(*instr)) needed_[instr->id()] = true;
  }
  for (size_t i = instrs.size(); i-- > 0;) {
    const Instruction* x = instrs[i].get();
    const int32_t k = FusedClusterOf(x);
    if (k < 0) {
      if (needed_[i]) {
        for (const Instruction* o : x->operands()) mark(o);
      }
      continue;
    }
    // A value recomputed in the region needs its own operands instead.
    auto mark_operands = [&](const Instruction* m, auto& self) -> void {
      for (const Instruction* o : m->operands()) {
        if (plan_.cluster_of[o->id()] == k) continue;
        if (Inside(o, k)) {
          self(o, self);
        } else if (IsElementwise(m->opcode()) && IsReadInPlace(*o)) {
          mark(o->operand(0));  // a broadcast feeding an element-wise op is copied in
        } else {
          mark(o);
        }
      }
    };
    mark_operands(x, mark_operands);
  }
  // An alias used outside is re-applied outside, with every alias between it
  // and its root (each keeps its own type), to the root's result.
  for (size_t i = instrs.size(); i-- > 0;) {
    const Instruction* m = instrs[i].get();
    if (!escapes_[i] || !IsAlias(*m) || FusedClusterOf(m) < 0) continue;
    const int32_t k = plan_.cluster_of[m->id()];
    for (; IsAlias(*m) && plan_.cluster_of[m->operand(0)->id()] == k; m = m->operand(0)) {
      escapes_[m->operand(0)->id()] = true;
    }
  }
}

absl::Status FusionEmitter::EmitCluster(int32_t k) {
  const Cluster& cluster = plan_.clusters[k];
  ComputationBuilder* rb = mb_.NewComputation(absl::StrCat(entry_.name(), ".fusion.", fusions_++));
  std::vector<Instruction*> operands;
  std::vector<int64_t> touched;  // ids whose per-cluster entries are reset at the end
  auto parameter = [&](const Instruction* outer) {
    Instruction*& p = param_of_[outer->id()];
    if (p == nullptr) {
      p = rb->Parameter(outer->shape());
      operands.push_back(value_[outer->id()]);
      touched.push_back(outer->id());
    }
    return p;
  };
  std::vector<const Instruction*> returned;
  std::vector<Instruction*> results;
  std::vector<const Instruction*> computed = cluster.recomputed;  // first: operands outside
  computed.insert(computed.end(), cluster.members.begin(), cluster.members.end());
  for (const Instruction* m : computed) {
    std::vector<Instruction*> ops;
    for (const Instruction* o : m->operands()) {
      if (Inside(o, k)) {
        ops.push_back(inside_[o->id()]);
      } else if (IsElementwise(m->opcode()) && IsReadInPlace(*o)) {
        Instruction*& copied = broadcast_of_[o->id()];
        if (copied == nullptr) {
          auto b = cloner_.CloneInstruction(*o, {parameter(o->operand(0))}, *rb);
          if (!b.ok()) return b.status();
          copied = *b;
          touched.push_back(o->id());
        }
        ops.push_back(copied);
      } else {
        ops.push_back(parameter(o));
      }
    }
    auto added = cloner_.CloneInstruction(*m, std::move(ops), *rb);
    if (!added.ok()) return added.status();
    inside_[m->id()] = *added;
    if (plan_.cluster_of[m->id()] == k && escapes_[m->id()] && !IsAlias(*m)) {
      returned.push_back(m);
      results.push_back(*added);
    }
  }
  for (int64_t id : touched) param_of_[id] = broadcast_of_[id] = nullptr;
  auto region = rb->Finish(results);
  if (!region.ok()) return region.status();
  auto fusion = cb_->Add(Opcode::kFusion, std::move(operands), {}, {*region});
  if (!fusion.ok()) return fusion.status();
  for (size_t j = 0; j < returned.size(); ++j) {
    if (returned.size() == 1) {
      value_[returned[j]->id()] = *fusion;
      continue;
    }
    auto element = cb_->Add(Opcode::kGetTupleElement, {*fusion},
                            GetTupleElementAttrs{static_cast<int64_t>(j)});
    if (!element.ok()) return element.status();
    value_[returned[j]->id()] = *element;
  }
  // In schedule order: an alias's operand (the root or an alias) is outside by then.
  for (const Instruction* m : cluster.members) {
    if (!escapes_[m->id()] || !IsAlias(*m)) continue;
    auto aliased = cloner_.CloneInstruction(*m, {value_[m->operand(0)->id()]}, *cb_);
    if (!aliased.ok()) return aliased.status();
    value_[m->id()] = *aliased;
  }
  return absl::OkStatus();
}

absl::StatusOr<Instruction*> FusionEmitter::Copy(const Instruction& instr) {
  if (instr.opcode() == Opcode::kParameter) return cb_->Parameter(instr.shape());
  std::vector<Instruction*> operands;
  for (const Instruction* o : instr.operands()) operands.push_back(value_[o->id()]);
  return cloner_.CloneInstruction(instr, std::move(operands), *cb_);
}

absl::StatusOr<Computation*> FusionEmitter::Emit() {
  MarkNeeded();
  cb_ = mb_.NewComputation(entry_.name());
  const auto& instrs = entry_.instructions();
  for (auto* v : {&value_, &inside_, &param_of_, &broadcast_of_}) v->assign(instrs.size(), nullptr);
  for (size_t i = 0; i <= instrs.size(); ++i) {
    for (int32_t k : plan_.closes_before[i]) {
      if (!plan_.clusters[k].fused()) continue;
      if (absl::Status s = EmitCluster(k); !s.ok()) return s;
    }
    for (const Instruction* x : plan_.deferred_before[i]) {  // never cluster members
      if (!needed_[x->id()]) continue;
      auto copied = Copy(*x);
      if (!copied.ok()) return copied.status();
      value_[x->id()] = *copied;
    }
    if (i == instrs.size()) break;
    const Instruction* x = instrs[i].get();
    if (FusedClusterOf(x) >= 0 || !needed_[i] || plan_.deferred[i]) continue;
    auto copied = Copy(*x);
    if (!copied.ok()) return copied.status();
    value_[x->id()] = *copied;
  }
  std::vector<Instruction*> results;
  for (const Instruction* r : entry_.results()) results.push_back(value_[r->id()]);
  return cb_->Finish(std::move(results));
}

}  // namespace

namespace {

// The fused copy of `module`, or null when `only_if_changed` and nothing fuses.
absl::StatusOr<std::unique_ptr<Module>> Fuse(const Module& module, bool only_if_changed,
                                              const FusionOptions& options) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("fusion: module has no entry computation");
  FusionPlan plan = Plan(*entry, LiveInstructionsAndParameters(*entry), options);
  const bool fuses = std::any_of(plan.clusters.begin(), plan.clusters.end(),
                                 [](const Cluster& c) { return c.fused(); });
  if (only_if_changed && !fuses) return std::unique_ptr<Module>();
  ModuleBuilder mb(module.name());
  Cloner cloner(mb);
  auto fused = FusionEmitter(*entry, plan, mb, cloner).Emit();
  if (!fused.ok()) return fused.status();
  return mb.Build(*fused);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> FuseElementwise(const Module& module,
                                                        const FusionOptions& options) {
  return Fuse(module, /*only_if_changed=*/false, options);
}

absl::StatusOr<std::unique_ptr<Module>> FuseElementwiseIfChanged(const Module& module,
                                                                  const FusionOptions& options) {
  return Fuse(module, /*only_if_changed=*/true, options);
}

absl::StatusOr<bool> RunElementwiseFusion(Module& module, const FusionOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseElementwiseIfChanged(module, options);
  if (!fused.ok()) return fused.status();
  if (*fused == nullptr) return false;  // nothing to fuse: no copy
  module = std::move(**fused);
  return true;
}


}  // namespace xjit::passes
