// npu_swiglu / npu_geglu (GatedLinearUnitOps.cpp) and their backward ops on the NPU against CPU
// expressions of the same math (silu / gelu of one chunk times the other), forward and backward,
// fp32 and fp16, every split dim; one kernel each way; empty inputs and argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using SwiGlu = at::Tensor(const at::Tensor&, int64_t);
using GeGlu = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, int64_t, int64_t, bool);

// fn(in) runs the custom op on NPU inputs and `ref` on CPU inputs.
TensorFn npuOrRef(std::function<at::Tensor(const std::vector<at::Tensor>&)> custom,
                  std::function<at::Tensor(const std::vector<at::Tensor>&)> ref) {
  return [=](const std::vector<at::Tensor>& in) { return in[0].device() == npu() ? custom(in) : ref(in); };
}

// CPU GELU of an fp16 tensor in fp32 (the CPU has no fp16 GELU), back in its dtype.
at::Tensor geluRef(const at::Tensor& t, int64_t approximate) {
  return at::gelu(t.to(at::kFloat), approximate == 1 ? "tanh" : "none").to(t.scalar_type());
}

}  // namespace

TEST(NpuGatedLinearUnits, SwiGluMatchesTheCpuExpression) {
  const auto swiglu = npuOp<SwiGlu>("npu::npu_swiglu");
  for (auto dtype : floatAndHalf())
    for (int64_t dim : {-1, 0, 1}) {
      SCOPED_TRACE(c10::toString(dtype) + std::string(" dim ") + std::to_string(dim));
      const auto ref = [dim](const std::vector<at::Tensor>& in) {
        const auto halves = in[0].chunk(2, dim);
        return at::silu(halves[0].to(at::kFloat)).to(in[0].scalar_type()) * halves[1];
      };
      expectSameAutograd(npuOrRef([&](const auto& in) { return swiglu.call(in[0], dim); }, ref),
                         {at::randn({4, 6, 8}).mul(3).to(dtype)}, rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
    }
}

TEST(NpuGatedLinearUnits, GeGluMatchesTheCpuExpression) {
  const auto geglu = npuOp<GeGlu>("npu::npu_geglu");
  for (auto dtype : floatAndHalf())
    for (int64_t approximate : {0, 1})
      for (bool left : {false, true}) {
        SCOPED_TRACE(c10::toString(dtype) + std::string(" approximate ") + std::to_string(approximate) +
                     (left ? " left" : " right"));
        const auto ref = [&](const std::vector<at::Tensor>& in) {
          const auto halves = in[0].chunk(2, 1);
          return left ? geluRef(halves[0], approximate) * halves[1] : halves[0] * geluRef(halves[1], approximate);
        };
        const auto npu_fn = [&](const auto& in) { return std::get<0>(geglu.call(in[0], 1, approximate, left)); };
        expectSameAutograd(npuOrRef(npu_fn, ref), {at::randn({3, 10, 5}).mul(2).to(dtype)}, rtolTwoRoundings(dtype),
                           atolTwoRoundings(dtype));
        // the second output is gelu of the activated half, not differentiable
        const at::Tensor x = at::randn({3, 10, 5}).to(dtype);
        auto [y, gelu] = geglu.call(x.to(npu()).requires_grad_(), 1, approximate, left);
        expectClose(gelu, geluRef(x.chunk(2, 1)[left ? 0 : 1], approximate), rtolTwoRoundings(dtype),
                    atolTwoRoundings(dtype));
        EXPECT_FALSE(gelu.requires_grad());
        EXPECT_TRUE(y.requires_grad());
      }
}

TEST(NpuGatedLinearUnits, OneKernelEachWayEmptyInputsAndErrors) {
  const auto swiglu = npuOp<SwiGlu>("npu::npu_swiglu");
  const auto geglu = npuOp<GeGlu>("npu::npu_geglu");
  for (const bool gated_gelu : {false, true}) {
    const at::Tensor x = at::randn({4, 8}).to(npu()).requires_grad_();
    at::Tensor y;
    {
      OpRecorder rec;
      y = gated_gelu ? std::get<0>(geglu.call(x, -1, 1, false)) : swiglu.call(x, -1);
      EXPECT_EQ(rec.opTypes(), std::vector<std::string>{gated_gelu ? "GeGluV2" : "SwiGlu"}) << rec.summary();
    }
    const at::Tensor grad = at::ones({4, 4}).to(npu());
    torch_npu::synchronize(0);
    OpRecorder rec;
    y.backward(grad);
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{gated_gelu ? "GeGluGradV2" : "SwiGluGrad"}) << rec.summary();
  }
  EXPECT_EQ(swiglu.call(at::randn({0, 6}).to(npu()), -1).sizes(), at::IntArrayRef({0, 3}));
  EXPECT_EQ(std::get<1>(geglu.call(at::randn({2, 0}).to(npu()), -1, 1, false)).sizes(), at::IntArrayRef({2, 0}));
  EXPECT_THROW_WITH(swiglu.call(at::randn({3, 5}).to(npu()), -1), "npu_swiglu", "odd size");
  EXPECT_THROW_WITH(swiglu.call(at::randn({3, 4}).to(npu()), 2), "npu_swiglu", "out of range");
  EXPECT_THROW_WITH(swiglu.call(at::randn({}).to(npu()), -1), "npu_swiglu", "0-d");
  EXPECT_THROW_WITH(swiglu.call(at::ones({2, 4}, at::kInt).to(npu()), -1), "npu_swiglu",
                    "float32, float16 or bfloat16");
  EXPECT_THROW_WITH(geglu.call(at::randn({2, 4}).to(npu()), -1, 2, false), "npu_geglu", "approximate");
  const auto backward = npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, int64_t)>("npu::npu_swiglu_backward");
  EXPECT_THROW_WITH(backward.call(at::randn({2, 4}).to(npu()), at::randn({2, 4}).to(npu()), -1), "grad_output",
                    "must have shape [2, 2]");
}
