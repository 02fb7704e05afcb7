// Helpers of the reduction / scan / sorting / statistics suites.
#pragma once

#include <tuple>

#include "npu_test_util.h"

namespace torch_npu_test {

using UnaryFn = std::function<at::Tensor(const at::Tensor&)>;
using PairFn = std::function<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&)>;

// Whether the NPU has a kernel for operator `op` (e.g. "aten::flip"), for
// checks that depend on another family's operators.
inline bool npuImplements(const char* op, const char* overload = "") {
  const auto handle = c10::Dispatcher::singleton().findOp({op, overload});
  return handle && handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1);
}

// Whether the device saturates fp16 results (the Ascend910A default: NaN
// becomes 0 and ±inf ±65504 in every fp16 output; OPS.md "Device numerics and launch behaviour"), found by
// computing 0/0 in fp16 once.
inline bool deviceSaturatesFp16() {
  static const bool saturates = [] {
    const at::Tensor z = at::zeros({1}, at::TensorOptions().dtype(at::kHalf).device(npu()));
    return !z.div(z).cpu().isnan().item<bool>();
  }();
  return saturates;
}

// The CPU reference of `fn` on x, as a tensor of `dtype` (the NPU result's):
// fp16 inputs are computed in fp32 and an fp16 result is rounded once (the
// simulator's numerics), then saturated as the device does.
inline at::Tensor cpuReference(const UnaryFn& fn, const at::Tensor& x, at::ScalarType dtype) {
  if (x.scalar_type() != at::kHalf) return fn(x);
  const at::Tensor r = fn(x.to(at::kFloat)).to(dtype);
  return dtype == at::kHalf && deviceSaturatesFp16() ? r.nan_to_num(0, 65504, -65504) : r;
}

// fn on the NPU against cpuReference, with the dtype's tolerances (scaled).
inline void expectMatchesCpu(const UnaryFn& fn, const at::Tensor& x, double scale = 1) {
  const at::Tensor got = fn(x.to(npu()));
  const auto t = got.scalar_type();
  expectClose(got, cpuReference(fn, x, t), scale * rtolFor(t), scale * atolFor(t));
}

// Both outputs of a (values, indices)-style op; integer outputs exactly.
inline void expectPairMatchesCpu(const PairFn& fn, const at::Tensor& x, double scale = 1) {
  for (int k : {0, 1}) {
    SCOPED_TRACE(k == 0 ? "output 0" : "output 1");
    expectMatchesCpu(
        [&](const at::Tensor& t) {
          const auto r = fn(t);
          return k == 0 ? std::get<0>(r) : std::get<1>(r);
        },
        x, scale);
  }
}

}  // namespace torch_npu_test
