// Helpers shared by the op implementations in csrc/aten.
#pragma once

#include <ATen/ATen.h>

#include "csrc/framework/OpCommand.h"

namespace torch_npu {

// The index of the NPU device a factory call asks for: `device`'s index (checked; it must be an npu
// device then), or the current device when there is no device or no index.
c10::DeviceIndex targetDeviceIndex(c10::optional<c10::Device> device);

// A new contiguous NPU tensor (on `device`, or the current device).
at::Tensor emptyNpu(at::IntArrayRef sizes, c10::ScalarType dtype, c10::optional<c10::Device> device = c10::nullopt);
at::Tensor emptyNpuLike(const at::Tensor& t, c10::optional<c10::ScalarType> dtype = c10::nullopt);
// A 0-element NPU tensor of t's dtype and device, for an out= path to resize.
inline at::Tensor emptyNpuToResize(const at::Tensor& t) { return emptyNpu({0}, t.scalar_type(), t.device()); }

// The output of an elementwise op whose first tensor operand is `first`:
// with torch.npu.config.allow_internal_format, a private storage format of
// `first` carries over when the shapes agree (CANN's format inference);
// otherwise a base-format tensor.
at::Tensor emptyFollowingFormat(const at::Tensor& first, at::IntArrayRef sizes, c10::ScalarType dtype,
                                c10::Device device);

// True if a copy of `self` (clone, empty_like) with `memory_format` keeps
// self's private storage format: internal formats are allowed, self is
// exactly its private-format storage (so its strides are the contiguous
// ones) and the memory format asks for nothing else (Preserve, the default,
// or Contiguous). As in Ascend's torch_npu, a FRACTAL_Z weight's clone or
// zeros_like is then FRACTAL_Z too, so optimizer state (SGD's momentum
// buffer, Adam's moments) shares the parameter's format and the update runs
// without TransData.
bool copyKeepsPrivateFormat(const at::Tensor& self, c10::optional<at::MemoryFormat> memory_format);

// A new tensor stored in `preferred` when internal formats are allowed
// (conv/BN/pool outputs: NC1HWC0, conv weight gradients: FRACTAL_Z), else in
// its base format.
at::Tensor emptyPreferringFormat(at::IntArrayRef sizes, c10::ScalarType dtype, c10::Device device,
                                 aclFormat preferred);

// A CPU 0-d tensor (a wrapped Python number or torch.tensor(2.)) used with
// NPU tensors: PyTorch lets such scalars mix with any device.
bool isCpuScalar(const at::Tensor& t);

// Adds `t` as an op input in `dtype`: CPU scalars become host scalar inputs,
// NPU tensors of another dtype are cast first (by the NPU's Cast op).
void addInputAs(OpCommand& cmd, const at::Tensor& t, c10::ScalarType dtype);

// The NPU device of an op with these operands (the first non-CPU-scalar one).
c10::Device opDevice(std::initializer_list<const at::Tensor*> operands);

// Checks `out` can receive a `dtype` result of `sizes` (resizing it if needed,
// as PyTorch's resize_output does) and returns the tensor the op should write:
// `out` itself when it is contiguous with dtype `dtype`, otherwise a temporary
// to pass to finishOut.
at::Tensor prepareOut(const char* op, at::Tensor& out, at::IntArrayRef sizes, c10::ScalarType dtype);
// Copies `result` into `out` if prepareOut returned a temporary.
at::Tensor& finishOut(at::Tensor& out, const at::Tensor& result);

// Runs a single-output op whose inputs are added by `add_inputs`, writing
// into `out` (any strides/dtype, via prepareOut/finishOut).
template <typename AddInputs>
at::Tensor& runInto(const char* acl_op, at::Tensor& out, at::IntArrayRef sizes, c10::ScalarType dtype,
                    AddInputs&& add_inputs) {
  at::Tensor result = prepareOut(acl_op, out, sizes, dtype);
  OpCommand cmd(acl_op);
  add_inputs(cmd);
  cmd.Output(result).Run();
  return finishOut(out, result);
}

// Dims after wrapping negative values; an empty/absent list means all dims.
std::vector<int64_t> reductionDims(const at::Tensor& self, at::OptionalIntArrayRef dim);
// Sizes after reducing `dims` (kept as 1 with keepdim).
std::vector<int64_t> reducedSizes(const at::Tensor& self, const std::vector<int64_t>& dims, bool keepdim);

// The shape of a normalization's per-row statistics (mean, rstd): x's, with the
// trailing dims that gamma covers set to 1; raises, naming `op`, unless gamma's
// shape is x's trailing dims.
std::vector<int64_t> normStatShape(const char* op, const at::Tensor& x, const at::Tensor& gamma);

// A parameter (gamma, beta, bias) as the fused kernels take it: float32 as it
// is, any other dtype cast to x's (Note [Layer norm parameter dtypes]).
inline at::Tensor kernelParam(const at::Tensor& p, const at::Tensor& x) {
  return p.scalar_type() == at::kFloat ? p : p.to(x.scalar_type());
}

// An optional tensor argument that is there: given and defined (None and an
// undefined tensor both mean absent, as the dispatcher passes either).
inline bool given(const c10::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

}  // namespace torch_npu
