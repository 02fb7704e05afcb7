// Building blocks of the reduction kernels (ReduceOps.cpp and the
// reduction / statistics family's files).
#pragma once

#include <ATen/ATen.h>

#include "csrc/framework/OpCommand.h"

namespace torch_npu {

// Runs the axis reduction `op` (ReduceSum, ReduceProd, ReduceNansum, ...) of
// self over `dim` (all dims when absent or empty) computed in `compute`
// (self is cast to it first), writing into `out` (any strides or dtype).
at::Tensor& reduceOut(const char* op, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                      c10::ScalarType compute, at::Tensor& out);

// The result dtype of sum-like reductions (sum, prod, nansum): `dtype` if
// given, else out's dtype if `out` is given and defined, else self's dtype
// with integral (and bool) types promoted to int64.
c10::ScalarType sumType(const at::Tensor& self, c10::optional<at::ScalarType> dtype, const at::Tensor* out);

}  // namespace torch_npu
