// npu_alloc_float_status / npu_get_float_status / npu_clear_float_status (the
// npu:: custom ops) through the dispatcher: the status follows the device's
// sticky fp16 overflow flag (910A saturation mode), and bad status tensors are
// rejected with a message that says what to pass.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

at::Tensor callStatusOp(const char* name, const at::Tensor& t) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<at::Tensor(const at::Tensor&)>();
  return op.call(t);
}

}  // namespace

TEST(NpuFloatStatus, AllocGetClearFollowTheOverflowFlag) {
  const at::Tensor x = at::ones({4}, at::kHalf).to(npu());
  const at::Tensor status = callStatusOp("npu::npu_alloc_float_status", x);
  EXPECT_EQ(status.device(), npu());
  expectClose(status, at::zeros({8}));
  callStatusOp("npu::npu_clear_float_status", status);
  x.mul(2).cpu();
  EXPECT_EQ(callStatusOp("npu::npu_get_float_status", status)[0].item<float>(), 0.0f);
  const at::Tensor big = at::full({4}, 60000, at::kHalf).to(npu());
  const at::Tensor saturated = big.add(big).cpu();  // beyond 65504: saturates, sets the flag
  EXPECT_EQ(saturated[0].item<float>(), 65504.0f);
  EXPECT_NE(callStatusOp("npu::npu_get_float_status", status)[0].item<float>(), 0.0f);
  callStatusOp("npu::npu_clear_float_status", status);
  EXPECT_EQ(callStatusOp("npu::npu_get_float_status", status)[0].item<float>(), 0.0f);
}

TEST(NpuFloatStatus, BadStatusTensors) {
  EXPECT_THROW_WITH(callStatusOp("npu::npu_get_float_status", at::zeros({8}, at::kHalf).to(npu())),
                    "8-element float32 status tensor of torch_npu.npu_alloc_float_status");
  EXPECT_THROW_WITH(callStatusOp("npu::npu_clear_float_status", at::zeros({4}).to(npu())), "shape [4]");
  EXPECT_THROW_WITH(callStatusOp("npu::npu_alloc_float_status", at::zeros({8})),
                    "npu_alloc_float_status' with arguments from the 'CPU' backend");
}
