// Building blocks of elementwise ops (broadcasting, promotion, out=).
#pragma once

#include <functional>

#include "csrc/aten/common/NPUTensorUtils.h"

namespace torch_npu {

// at::result_type(self, other). Operands of one dtype promote to it whatever their kinds (dimensioned,
// 0-d, wrapped number), so that case, nearly every call, skips the dispatcher.
inline c10::ScalarType commonType(const at::Tensor& self, const at::Tensor& other) {
  const c10::ScalarType t = self.scalar_type();
  return t == other.scalar_type() ? t : at::result_type(self, other);
}

// An uninitialised NPU tensor of the broadcast shape of self and other.
at::Tensor binaryResult(const at::Tensor& self, const at::Tensor& other, c10::ScalarType dtype);
// Runs acl_op(self, other) with both operands in `compute` dtype, producing
// `result` dtype, into `out` (resized to the broadcast shape).
at::Tensor& binaryOut(const char* acl_op, const at::Tensor& self, const at::Tensor& other, c10::ScalarType compute,
                      c10::ScalarType result, at::Tensor& out);
at::Tensor binaryNew(const char* acl_op, const at::Tensor& self, const at::Tensor& other, c10::ScalarType compute,
                     c10::ScalarType result);
// In-place ops cannot grow self: "output with shape [3] doesn't match the broadcast shape [2, 3]".
void checkInplaceShape(const at::Tensor& self, const at::Tensor& other);

// Activation gradients: acl_op(first, second) in grad_output's dtype and
// shape (format-agnostic), `attrs` adding the op's attributes.
at::Tensor& gradientOut(const char* acl_op, const at::Tensor& first, const at::Tensor& second,
                        const at::Tensor& grad_output, at::Tensor& out,
                        const std::function<void(OpCommand&)>& attrs = nullptr);

// The grad_output an activation gradient should run on, given the saved
// forward tensor `saved` (its input or output). When internal formats are
// allowed, `saved` is a whole private-format storage and grad_output is a
// base-format tensor of the same shape, dtype and device, grad_output is
// converted to saved's format (one TransData): the gradient then runs on the
// private storages and keeps the format the backward of the producing op
// (conv, batch norm, pooling) reads natively, where converting `saved`
// instead would cost the same TransData and give a base-format gradient.
// Otherwise grad_output itself.
at::Tensor gradInFormatOf(const at::Tensor& grad_output, const at::Tensor& saved);

// acl_op(self) in `compute` dtype, result in `result` dtype, into out.
at::Tensor& unaryOut(const char* acl_op, const at::Tensor& self, c10::ScalarType compute, c10::ScalarType result,
                     at::Tensor& out);
at::Tensor unaryNew(const char* acl_op, const at::Tensor& self, c10::ScalarType compute, c10::ScalarType result);
// Dtype of a floating unary op (exp, log, sigmoid...): integers promote to the default float dtype.
c10::ScalarType floatOpType(const at::Tensor& self);

}  // namespace torch_npu
