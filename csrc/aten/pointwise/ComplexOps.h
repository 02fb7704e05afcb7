// Shared by the ops whose complex64 form is another CANN op (Note [complex64 on the NPU] in
// ComplexOps.cpp).
#pragma once

#include <ATen/ATen.h>

namespace torch_npu {

// complex64 `self` (lazy conjugate / negative views resolved) -> `out` of `out_dtype` through the
// one-input CANN op `acl_op`.
at::Tensor& complexUnaryInto(const char* acl_op, const at::Tensor& self, at::ScalarType out_dtype, at::Tensor& out);

}  // namespace torch_npu
