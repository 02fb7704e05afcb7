// Helpers of the pointwise math and activation kernels (UnaryMathOps.cpp,
// BinaryMathOps.cpp, EluSoftplusShrinkOps.cpp, PointwiseLossOps.cpp).
//
// Note [Compute dtype of structured pointwise kernels]
// A structured out= kernel receives an `out` already sized by PyTorch's meta
// function, whose dtype is the TensorIterator's output dtype: the common
// dtype for functional and in-place calls, but the user's dtype for out=
// (e.g. float16 out of a float32 op, or float out of a bool-valued op). The
// kernel therefore runs the NPU op in the *common* dtype (what the CPU
// computes in) and lets prepareOut/finishOut cast into `out` when it differs.
#pragma once

#include <functional>
#include <initializer_list>

#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace torch_npu {

using AttrSetter = std::function<void(OpCommand&)>;
// The attribute setter of an op without attributes.
inline void noAttrs(OpCommand&) {}

// The common dtype of a TensorIterator over `inputs` (at::result_type
// rules, CPU scalars included); with `to_float`, integral/bool results
// promote to the default float dtype (PyTorch's unary/binary float ops).
c10::ScalarType commonDtype(std::initializer_list<at::Tensor> inputs, bool to_float);

// Runs `acl_op` over the broadcast of `inputs`, each given in `compute`
// (CPU scalars become host scalars), writing a `result`-dtype output into
// `out`, which the caller sized (or which is resized to the broadcast shape).
at::Tensor& pointwiseInto(const char* acl_op, std::initializer_list<at::Tensor> inputs, c10::ScalarType compute,
                          c10::ScalarType result, at::Tensor& out, const AttrSetter& attrs = nullptr);

// A new output of the broadcast shape of `inputs`, following the private
// format of the first NPU operand (emptyFollowingFormat).
at::Tensor pointwiseResult(std::initializer_list<at::Tensor> inputs, c10::ScalarType dtype);

// TORCH_CHECK that `t` is a floating tensor, naming `op`.
void checkFloatingInput(const char* op, const at::Tensor& t);

}  // namespace torch_npu
