// at_npu::native::OpCommand: launches one CANN op on the current NPU stream, through the task queue.
//
//   at::Tensor out = at::empty_like(x);
//   at_npu::native::OpCommand cmd;
//   cmd.Name("Add").Input(x).Input(y).Output(out).Run();
//
// Inputs may be any strided NPU tensors (they are made contiguous); outputs must be contiguous NPU
// tensors of the same device. A host 0-d input: Input(c10::Scalar, dtype).
// Attributes: Attr(name, bool | int | int64_t | float | double | string | IntArrayRef | vector<float>
// | ScalarType). Run() refuses an op type the simulated NPU does not have. The op runs asynchronously:
// an operand its kernel rejects is reported by the next launch or synchronize, naming the op.
//
// An Ascend C kernel (docs/ascend_c.md) is launched through the same queue with a custom handler:
//   auto stream = c10_npu::getCurrentNPUStream().stream(false);
//   at_npu::native::OpCommand cmd;
//   cmd.Name("add_custom").SetCustomHandler([=]() -> int {
//     return ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, x_ptr, y_ptr, z_ptr, n);
//   }).Run();
#pragma once

#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {

using OpCommand = ::torch_npu::OpCommand;

}  // namespace native
}  // namespace at_npu
