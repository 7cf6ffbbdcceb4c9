// The oneDNN CPU engine every primitive of the cpu backend is created on
// (defined in matmul.cc, which caps oneDNN's ISA first).
#pragma once

#include "dnnl.hpp"

namespace xjit::cpu {

dnnl::engine& OneDnnEngine();

}  // namespace xjit::cpu
