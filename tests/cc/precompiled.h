// Headers nearly every test includes, parsed once for the whole test binary
// (CMake's target_precompile_headers). Tests still include what they use.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/runtime/backend.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"
