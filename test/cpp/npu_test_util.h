// Shared helpers of the plugin's GoogleTest suites.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

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

// Tolerances of a floating dtype: fp32 defaults, or the fp16 ones.
inline double rtolFor(at::ScalarType t) { return t == at::kHalf ? kHalfRtol : 1e-4; }
inline double atolFor(at::ScalarType t) { return t == at::kHalf ? kHalfAtol : 1e-5; }

using TensorFn = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

// Runs `fn` on CPU copies and NPU copies of `inputs` (floating inputs require
// grad), compares the outputs, then backpropagates the same random
// grad_output through both and compares every input's .grad. fp16 inputs
// are compared against the fp32 CPU result rounded once to fp16.
inline void expectSameAutograd(const TensorFn& fn, const std::vector<at::Tensor>& inputs, double rtol = 1e-4,
                               double atol = 1e-5) {
  std::vector<at::Tensor> cpu_in, npu_in;
  for (const auto& t : inputs) {
    const bool grad = at::isFloatingType(t.scalar_type());
    const auto ref_type = t.scalar_type() == at::kHalf ? at::kFloat : t.scalar_type();
    cpu_in.push_back(t.to(ref_type).detach().clone().requires_grad_(grad));
    npu_in.push_back(t.to(npu()).detach().requires_grad_(grad));
  }
  at::Tensor npu_out = fn(npu_in);
  at::Tensor cpu_out = fn(cpu_in);
  EXPECT_EQ(npu_out.device(), npu());
  expectClose(npu_out, cpu_out.to(npu_out.scalar_type()), rtol, atol);
  if (!npu_out.requires_grad()) return;
  at::Tensor grad_out = at::randn(cpu_out.sizes());
  cpu_out.backward(grad_out.to(cpu_out.scalar_type()).to(npu_out.scalar_type()).to(cpu_out.scalar_type()));
  npu_out.backward(grad_out.to(npu_out.scalar_type()).to(npu()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!cpu_in[i].requires_grad()) continue;
    SCOPED_TRACE("grad of input " + std::to_string(i));
    ASSERT_TRUE(npu_in[i].grad().defined());
    expectClose(npu_in[i].grad(), cpu_in[i].grad().to(inputs[i].scalar_type()), rtol, atol);
  }
}

// Expects `stmt` to throw a c10::Error whose message contains every fragment.
#define EXPECT_THROW_WITH(stmt, ...)                                                       \
  do {                                                                                     \
    try {                                                                                  \
      stmt;                                                                                \
      ADD_FAILURE() << "expected an exception from " #stmt;                                \
    } catch (const std::exception& e) {                                                   \
      const std::string msg = e.what();                                                    \
      for (const std::string& frag : std::vector<std::string>{__VA_ARGS__}) {              \
        EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg; \
      }                                                                                    \
    }                                                                                      \
  } while (0)

}  // namespace torch_npu_test
