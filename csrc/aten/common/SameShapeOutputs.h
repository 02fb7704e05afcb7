// Outputs of common binary ops sized without PyTorch's meta function.
//
// Note [Outputs without TensorIterator]
// A structured op's generated wrapper (Note [Structured NPU kernels] in
// codegen/structured.py) runs PyTorch's meta function only to check the
// arguments and to learn the output's sizes and dtype. For elementwise ops
// that meta function builds a whole TensorIterator (broadcast shape, type
// promotion, memory-overlap checks, a dimension permutation), about 0.45 us
// of a 2.9 us `torch.add` of two 1 K tensors. torch_npu's own kernels size
// their outputs directly from the operands' shapes instead.
//
// The functions here do the same for the cases nearly every call is: both
// operands NPU tensors of one device, one dtype and one shape, or the second
// a Python number (a wrapped 0-d CPU tensor) beside a floating self; no
// named dimensions. There the meta function's answer is known without
// building anything: the output has self's sizes and dtype (a Python number
// never promotes a floating tensor). Each function applies the meta
// function's own checks in the meta function's order (sub_check; for the
// in-place forms, whose output is self, TensorIterator's overlap checks;
// alpha_check) and returns the output dtype, or nullopt for any other case,
// which then takes the meta function as before. `yaml/npu_native_functions.yaml`
// lists them under `same_shape_outputs`; the generated functional wrapper then
// makes the output as the meta path does (emptyStructuredOutput with self as
// `like`, so a private format of self is followed), and the in-place wrapper
// calls the kernel with self as the output.
#pragma once

#include <ATen/ATen.h>

namespace torch_npu {

// in_place: the in-place form (self is the output), which also runs TensorIterator's overlap
// checks: no internal overlap in self, no partial overlap between self and other.
c10::optional<c10::ScalarType> sameShapeAdd(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                            bool in_place);
c10::optional<c10::ScalarType> sameShapeSub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                            bool in_place);
c10::optional<c10::ScalarType> sameShapeMul(const at::Tensor& self, const at::Tensor& other, bool in_place);
// true division: only floating operands keep their dtype
c10::optional<c10::ScalarType> sameShapeTrueDiv(const at::Tensor& self, const at::Tensor& other, bool in_place);

}  // namespace torch_npu
