// Reads an op's parsed attribute dictionary into its attribute struct, driven
// by the struct's field list (ir/attribute_fields.h): each op accepts exactly
// the attributes StableHLO defines for it (and that xjit models), requires
// the ones without a default, and ignores dialect-prefixed
// discardable attributes (mhlo.sharding, mhlo.frontend_attributes) as MLIR
// does. Anything else is an error naming the op and the attribute.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/opcode.h"
#include "xjit/text/attribute_parser.h"

namespace xjit::text {

// `op_name` is the spelling in the text ("stablehlo.add", "func.call");
// `callee` receives the symbol of a call.
absl::Status ApplyOpAttributes(Opcode op, absl::string_view op_name,
                               const std::vector<NamedAttr>& attrs, size_t op_offset,
                               const Lexer& lex, Attributes& out, std::string& callee);

}  // namespace xjit::text
