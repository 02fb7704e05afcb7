// Output handling of the generated structured wrappers (see Note [Structured
// NPU kernels] in codegen/structured.py): what a meta function's
// set_output_* call does on the NPU for each form of an operator.
#pragma once

#include <ATen/ATen.h>

namespace torch_npu {

// functional: a new contiguous NPU tensor of `sizes` with the dtype (and
// device) of `options`. When `like` is defined (TensorIterator-based ops,
// i.e. elementwise ops) the output follows like's private storage format if
// the sizes agree (see emptyFollowingFormat).
at::Tensor emptyStructuredOutput(const at::Tensor& like, at::IntArrayRef sizes, const at::TensorOptions& options);

// in-place: self must already have the meta function's sizes, dtype and device.
void checkStructuredInplace(const at::Tensor& self, at::IntArrayRef sizes, const at::TensorOptions& options);

// out=: out must have the meta function's dtype and device; it is resized to
// `sizes` as PyTorch's resize_output does (a warning when a non-empty out
// is resized). Strides are kept: the kernel handles non-contiguous outs.
void resizeStructuredOut(const at::Tensor& out, at::IntArrayRef sizes, const at::TensorOptions& options);

}  // namespace torch_npu
