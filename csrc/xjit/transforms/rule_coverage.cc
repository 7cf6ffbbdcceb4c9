#include "xjit/transforms/rule_coverage.h"

#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/jvp_rules.h"
#include "xjit/transforms/transpose_rules.h"

namespace xjit::transforms {

std::vector<std::string> RulesFor(Opcode op) {
  std::vector<std::string> rules;
  if (JvpRuleFor(op) != nullptr) rules.push_back("jvp");
  if (TransposeRuleFor(op) != nullptr) rules.push_back("transpose");
  if (BatchRuleFor(op) != nullptr) rules.push_back("vmap");
  return rules;
}

}  // namespace xjit::transforms
