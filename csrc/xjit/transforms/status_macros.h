// Early-return helpers for the transforms' StatusOr-heavy graph building.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define XJIT_TF_CONCAT_INNER(a, b) a##b
#define XJIT_TF_CONCAT(a, b) XJIT_TF_CONCAT_INNER(a, b)

// `lhs` = the value of StatusOr `expr`, or return its status.
#define XJIT_TF_ASSIGN_OR_RETURN(lhs, expr) \
  XJIT_TF_ASSIGN_OR_RETURN_IMPL(XJIT_TF_CONCAT(_xjit_tf_status_or_, __LINE__), lhs, expr)
#define XJIT_TF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = *std::move(tmp)

#define XJIT_TF_RETURN_IF_ERROR(expr)                   \
  do {                                                  \
    absl::Status _xjit_tf_status = (expr);              \
    if (!_xjit_tf_status.ok()) return _xjit_tf_status;  \
  } while (0)
