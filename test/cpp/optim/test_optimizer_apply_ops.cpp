// npu_apply_* (the fused optimizers' steps) against torch.optim's update rules
// (and LAMB's) written with CPU tensor ops, over several steps.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

}  // namespace

TEST(NpuOptimizerApply, MomentumMatchesSgd) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, const at::Tensor&, double, double, bool, double)>(
      "npu::npu_apply_momentum");
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "heavy ball");
    at::Tensor p_cpu = at::randn({1000}), buf_cpu;
    at::Tensor var = p_cpu.to(npu()), accum = at::zeros({1000}).to(npu());
    for (int step = 0; step < 4; ++step) {
      const at::Tensor raw = at::randn({1000});
      op.call(var, accum, raw.to(npu()), 0.05, 0.9, nesterov, 1e-2);
      const at::Tensor g = raw.add(p_cpu, 1e-2);
      buf_cpu = step == 0 ? g.clone() : buf_cpu.mul(0.9).add(g);
      p_cpu = p_cpu.add(nesterov ? g.add(buf_cpu, 0.9) : buf_cpu, -0.05);
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

TEST(NpuOptimizerApply, RmsPropMatchesRmsprop) {
  using Sig = void(at::Tensor&, at::Tensor&, at::Tensor&, const at::Tensor&, double, double, double, double, double);
  using CenteredSig = void(at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&, const at::Tensor&, double, double,
                           double, double, double);
  const auto plain = npuOp<Sig>("npu::npu_apply_rms_prop");
  const auto centered_op = npuOp<CenteredSig>("npu::npu_apply_centered_rms_prop");
  const double lr = 1e-2, alpha = 0.99, eps = 1e-8, wd = 0.01;
  for (bool centered : {false, true}) {
    for (double momentum : {0.0, 0.9}) {
      SCOPED_TRACE(std::string(centered ? "centered" : "plain") + " momentum " + std::to_string(momentum));
      at::Tensor p_cpu = at::randn({640}), sq_cpu = at::zeros({640}), buf_cpu = at::zeros({640}),
                 ga_cpu = at::zeros({640});
      at::Tensor var = p_cpu.to(npu()), sq = sq_cpu.to(npu()), buf = buf_cpu.to(npu()), ga = ga_cpu.to(npu());
      for (int step = 0; step < 5; ++step) {
        at::Tensor g = at::randn({640});
        if (centered) {
          centered_op.call(var, ga, sq, buf, g.to(npu()), lr, alpha, momentum, eps, wd);
        } else {
          plain.call(var, sq, buf, g.to(npu()), lr, alpha, momentum, eps, wd);
        }
        g = g.add(p_cpu, wd);
        sq_cpu = sq_cpu.mul(alpha).addcmul(g, g, 1 - alpha);
        at::Tensor avg;
        if (centered) {
          ga_cpu = ga_cpu.mul(alpha).add(g, 1 - alpha);
          avg = sq_cpu.addcmul(ga_cpu, ga_cpu, -1).sqrt().add(eps);
        } else {
          avg = sq_cpu.sqrt().add(eps);
        }
        if (momentum > 0) {
          buf_cpu = buf_cpu.mul(momentum).addcdiv(g, avg);
          p_cpu = p_cpu.add(buf_cpu, -lr);
        } else {
          p_cpu = p_cpu.addcdiv(g, avg, -lr);
        }
      }
      expectClose(var, p_cpu, 1e-5, 1e-6);
      expectClose(sq, sq_cpu, 1e-5, 1e-7);
    }
  }
}

TEST(NpuOptimizerApply, AdadeltaMatchesAdadelta) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, at::Tensor&, const at::Tensor&, double, double, double,
                             double)>("npu::npu_apply_adadelta");
  const double lr = 1.0, rho = 0.9, eps = 1e-6, wd = 0.05;
  at::Tensor p_cpu = at::randn({513}), sq_cpu = at::zeros({513}), acc_cpu = at::zeros({513});
  at::Tensor var = p_cpu.to(npu()), sq = sq_cpu.to(npu()), acc = acc_cpu.to(npu());
  for (int step = 0; step < 5; ++step) {
    at::Tensor g = at::randn({513});
    op.call(var, sq, acc, g.to(npu()), lr, rho, eps, wd);
    g = g.add(p_cpu, wd);
    sq_cpu = sq_cpu.mul(rho).addcmul(g, g, 1 - rho);
    const at::Tensor delta = acc_cpu.add(eps).sqrt().div(sq_cpu.add(eps).sqrt()).mul(g);
    acc_cpu = acc_cpu.mul(rho).addcmul(delta, delta, 1 - rho);
    p_cpu = p_cpu.add(delta, -lr);
  }
  expectClose(var, p_cpu, 1e-5, 1e-6);
  expectClose(acc, acc_cpu, 1e-5, 1e-7);
}

TEST(NpuOptimizerApply, LambHasOneTrustRatioPerSegment) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, at::Tensor&, const at::Tensor&, at::IntArrayRef, double, double,
                             double, double, double, bool)>("npu::npu_apply_lamb");
  const std::vector<int64_t> segments = {300, 124, 600};
  const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-6, wd = 0.01;
  at::Tensor p_cpu = at::randn({1024}), m_cpu = at::zeros({1024}), v_cpu = at::zeros({1024});
  at::Tensor var = p_cpu.to(npu()), m = m_cpu.to(npu()), v = v_cpu.to(npu());
  for (int step = 0; step < 4; ++step) {
    const at::Tensor g = at::randn({1024});
    op.call(var, m, v, g.to(npu()), segments, lr, b1, b2, eps, wd, false);
    m_cpu = m_cpu.mul(b1).add(g, 1 - b1);
    v_cpu = v_cpu.mul(b2).addcmul(g, g, 1 - b2);
    const at::Tensor update = m_cpu.div(v_cpu.sqrt().add(eps)).add(p_cpu, wd);
    std::vector<at::Tensor> parts;
    int64_t begin = 0;
    for (int64_t size : segments) {
      const at::Tensor w = p_cpu.narrow(0, begin, size), u = update.narrow(0, begin, size);
      const double ratio = std::min(w.norm().item<double>(), 10.0) / u.norm().item<double>();
      parts.push_back(w.add(u, -lr * ratio));
      begin += size;
    }
    p_cpu = at::cat(parts);
  }
  expectClose(var, p_cpu, 1e-5, 1e-6);
  at::Tensor g = at::zeros({1024}).to(npu());
  EXPECT_THROW_WITH(op.call(var, m, v, g, std::vector<int64_t>{1000}, lr, b1, b2, eps, wd, false),
                    "sum to 1000 elements, var has 1024");
}

TEST(NpuOptimizerApply, BadBuffersSayWhatIsWrong) {
  const auto op = npuOp<void(at::Tensor&, at::Tensor&, const at::Tensor&, double, double, bool, double)>(
      "npu::npu_apply_momentum");
  at::Tensor var = at::zeros({4}).to(npu()), accum = at::zeros({5}).to(npu());
  EXPECT_THROW_WITH(op.call(var, accum, at::zeros({4}).to(npu()), 0.1, 0.9, false, 0.0), "every buffer must match var");
  at::Tensor cpu_var = at::zeros({4});
  at::Tensor cpu_accum = at::zeros({4});
  EXPECT_THROW_WITH(op.call(cpu_var, cpu_accum, at::zeros({4}), 0.1, 0.9, false, 0.0), "CPU");
}
