// Shared helpers of the plugin's GoogleTest suites.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace torch_npu_test {

inline at::Device npu(int index = 0) { return at::Device(at::DeviceType::PrivateUse1, index); }

// Expects |actual - expected| <= atol + rtol * |expected| elementwise, where
// `actual` may live on the NPU (it is copied back first). Same dtype & shape.
inline void expectClose(const at::Tensor& actual, const at::Tensor& expected, double rtol = 1e-4,
                        double atol = 1e-5) {
  at::Tensor a = actual.cpu();
  ASSERT_EQ(a.sizes(), expected.sizes());
  ASSERT_EQ(a.scalar_type(), expected.scalar_type());
  if (a.numel() == 0) return;
  if (!at::isFloatingType(a.scalar_type())) {
    EXPECT_TRUE(at::equal(a, expected)) << "actual:\n" << a << "\nexpected:\n" << expected;
    return;
  }
  at::Tensor ad = a.to(at::kDouble), ed = expected.to(at::kDouble);
  at::Tensor both_nan = at::isnan(ad).logical_and(at::isnan(ed));
  at::Tensor err = (ad - ed).abs().masked_fill(both_nan, 0);
  at::Tensor bound = ed.abs().mul(rtol).add(atol).masked_fill(both_nan, 1);
  const bool ok = err.le(bound).logical_or(ad.eq(ed)).all().item<bool>();
  EXPECT_TRUE(ok) << "max error " << err.max().item<double>() << " (rtol " << rtol << ", atol " << atol
                  << ")\nactual:\n" << a << "\nexpected:\n" << expected;
}

// fp16 results: one rounding of a value computed in fp32 (see SIMULATOR.md §3).
constexpr double kHalfRtol = 1e-3;
constexpr double kHalfAtol = 1e-3;

}  // namespace torch_npu_test
