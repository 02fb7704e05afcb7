// npu_apply_momentum / npu_apply_adam_w (the fused optimizers' steps) against
// torch.optim's update rules written with CPU tensor ops, over several steps.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

template <typename Signature>
c10::TypedOperatorHandle<Signature> npuOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

}  // namespace

TEST(NpuOptimizerApply, MomentumMatchesSgd) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, const at::Tensor&, double, double, bool)>(
      "npu::npu_apply_momentum");
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "heavy ball");
    at::Tensor p_cpu = at::randn({1000}), buf_cpu;
    at::Tensor var = p_cpu.to(npu()), accum = at::zeros({1000}).to(npu());
    for (int step = 0; step < 4; ++step) {
      const at::Tensor g = at::randn({1000});
      buf_cpu = step == 0 ? g.clone() : buf_cpu.mul(0.9).add(g);
      p_cpu = p_cpu.add(nesterov ? g.add(buf_cpu, 0.9) : buf_cpu, -0.05);
      op.call(var, accum, g.to(npu()), 0.05, 0.9, nesterov);
    }
    expectClose(var, p_cpu, 1e-5, 1e-6);
    expectClose(accum, buf_cpu, 1e-5, 1e-6);
  }
}

TEST(NpuOptimizerApply, AdamWMatchesAdamAndAdamW) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, at::Tensor&, const at::Tensor&, double, double, double, double,
                              double, double, double, bool)>("npu::npu_apply_adam_w");
  const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.1;
  for (bool decoupled : {true, false}) {
    SCOPED_TRACE(decoupled ? "AdamW" : "Adam");
    at::Tensor p_cpu = at::randn({777}), m_cpu = at::zeros({777}), v_cpu = at::zeros({777});
    at::Tensor var = p_cpu.to(npu()), m = m_cpu.to(npu()), v = v_cpu.to(npu());
    for (int step = 1; step <= 5; ++step) {
      at::Tensor g = at::randn({777});
      const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
      op.call(var, m, v, g.to(npu()), lr, b1, b2, eps, wd, bc1, bc2, decoupled);
      if (decoupled) {
        p_cpu = p_cpu.mul(1 - lr * wd);
      } else {
        g = g.add(p_cpu, wd);
      }
      m_cpu = m_cpu.mul(b1).add(g, 1 - b1);
      v_cpu = v_cpu.mul(b2).addcmul(g, g, 1 - b2);
      p_cpu = p_cpu.addcdiv(m_cpu, v_cpu.sqrt().div(std::sqrt(bc2)).add(eps), -lr / bc1);
    }
    expectClose(var, p_cpu, 1e-5, 1e-6);
    expectClose(m, m_cpu, 1e-5, 1e-6);
    expectClose(v, v_cpu, 1e-5, 1e-7);
  }
}

TEST(NpuOptimizerApply, BadBuffersSayWhatIsWrong) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, const at::Tensor&, double, double, bool)>(
      "npu::npu_apply_momentum");
  at::Tensor var = at::zeros({4}).to(npu()), accum = at::zeros({5}).to(npu());
  EXPECT_THROW_WITH(op.call(var, accum, at::zeros({4}).to(npu()), 0.1, 0.9, false), "every buffer must match var");
  at::Tensor cpu_var = at::zeros({4});
  at::Tensor cpu_accum = at::zeros({4});
  EXPECT_THROW_WITH(op.call(cpu_var, cpu_accum, at::zeros({4}), 0.1, 0.9, false), "CPU");
}
