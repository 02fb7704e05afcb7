// ApplyMomentum and ApplyAdamW (OPS.md "Optimizers") over several steps
// against double references of torch.optim.SGD / Adam / AdamW, in place.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

HostTensor scalar(double v) {
  HostTensor t(ACL_DOUBLE, {});
  *static_cast<double*>(t.data()) = v;
  return t;
}

TEST(KernelOptimizer, ApplyMomentumIsSgdWithMomentum) {
  const int64_t n = 5000;
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "heavy ball");
    const auto init = randomFloats(n, -1, 1, 1);
    HostTensor var = HostTensor::floats(ACL_FLOAT, {n}, init), accum(ACL_FLOAT, {n});
    std::vector<double> p(init.begin(), init.end()), buf(n, 0.0);
    for (int step = 0; step < 3; ++step) {
      const auto gv = randomFloats(n, -1, 1, 10 + step);
      HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv), lr = scalar(0.1), mom = scalar(0.9);
      run(makeCall("ApplyMomentum", {&var, &accum, &lr, &grad, &mom}, {&var, &accum},
                   attrs({{"use_nesterov", nesterov}})));
      for (int64_t i = 0; i < n; ++i) {
        buf[i] = step == 0 ? gv[i] : buf[i] * 0.9 + gv[i];
        p[i] -= 0.1 * (nesterov ? gv[i] + 0.9 * buf[i] : buf[i]);
      }
    }
    const auto got = var.toFloats();
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], p[i], 1e-6) << i;
  }
}

TEST(KernelOptimizer, ApplyAdamWIsAdamAndAdamW) {
  const int64_t n = 3000;
  const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.05;
  for (bool decoupled : {true, false}) {
    SCOPED_TRACE(decoupled ? "AdamW" : "Adam");
    const auto init = randomFloats(n, -1, 1, 2);
    HostTensor var = HostTensor::floats(ACL_FLOAT, {n}, init), m(ACL_FLOAT, {n}), v(ACL_FLOAT, {n});
    std::vector<double> p(init.begin(), init.end()), mm(n, 0), vv(n, 0);
    for (int step = 1; step <= 4; ++step) {
      const auto gv = randomFloats(n, -1, 1, 20 + step);
      const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
      HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv);
      HostTensor s_lr = scalar(lr), s_b1 = scalar(b1), s_b2 = scalar(b2), s_eps = scalar(eps), s_wd = scalar(wd),
                 s_bc1 = scalar(bc1), s_bc2 = scalar(bc2);
      run(makeCall("ApplyAdamW", {&var, &m, &v, &grad, &s_lr, &s_b1, &s_b2, &s_eps, &s_wd, &s_bc1, &s_bc2},
                   {&var, &m, &v}, attrs({{"decoupled", decoupled}})));
      for (int64_t i = 0; i < n; ++i) {
        double g = gv[i];
        if (decoupled) p[i] *= 1 - lr * wd; else g += wd * p[i];
        mm[i] = mm[i] * b1 + (1 - b1) * g;
        vv[i] = vv[i] * b2 + (1 - b2) * g * g;
        p[i] -= lr / bc1 * mm[i] / (std::sqrt(vv[i]) / std::sqrt(bc2) + eps);
      }
    }
    const auto got = var.toFloats();
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], p[i], 2e-6) << i;
  }
}

TEST(KernelOptimizer, Validation) {
  HostTensor var(ACL_FLOAT, {8}), accum(ACL_FLOAT, {8}), grad(ACL_FLOAT, {7}), lr = scalar(0.1), mom = scalar(0.9);
  EXPECT_KERNEL_ERROR(makeCall("ApplyMomentum", {&var, &accum, &lr, &grad, &mom}, {&var, &accum}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input grad");
  HostTensor two(ACL_DOUBLE, {2}), g8(ACL_FLOAT, {8});
  EXPECT_KERNEL_ERROR(makeCall("ApplyMomentum", {&var, &accum, &two, &g8, &mom}, {&var, &accum}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input lr must hold one value");
}

}  // namespace
