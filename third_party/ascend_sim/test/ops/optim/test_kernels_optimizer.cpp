// The Apply* optimizer kernels (OPS.md "Optimizers") over several steps
// against double references of torch.optim.SGD / Adam / AdamW / RMSprop /
// Adadelta and of LAMB, in place.
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
      HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv), lr = scalar(0.1), mom = scalar(0.9),
                 wd = scalar(0.01);
      run(makeCall("ApplyMomentum", {&var, &accum, &lr, &grad, &mom, &wd}, {&var, &accum},
                   attrs({{"use_nesterov", nesterov}})));
      for (int64_t i = 0; i < n; ++i) {
        const double g = gv[i] + 0.01 * p[i];
        buf[i] = step == 0 ? g : buf[i] * 0.9 + g;
        p[i] -= 0.1 * (nesterov ? g + 0.9 * buf[i] : buf[i]);
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

TEST(KernelOptimizer, ApplyRMSPropIsRmsprop) {
  const int64_t n = 2000;
  const double lr = 1e-2, alpha = 0.9, eps = 1e-8, wd = 0.01;
  for (bool centered : {false, true}) {
    for (double momentum : {0.0, 0.8}) {
      SCOPED_TRACE(std::string(centered ? "centered" : "plain") + " momentum " + std::to_string(momentum));
      const auto init = randomFloats(n, -1, 1, 3);
      HostTensor var = HostTensor::floats(ACL_FLOAT, {n}, init), ms(ACL_FLOAT, {n}), mom(ACL_FLOAT, {n}),
                 mg(ACL_FLOAT, {n});
      std::vector<double> p(init.begin(), init.end()), sq(n, 0), buf(n, 0), ga(n, 0);
      for (int step = 0; step < 4; ++step) {
        const auto gv = randomFloats(n, -1, 1, 30 + step);
        HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv), s_lr = scalar(lr), s_rho = scalar(alpha),
                   s_mom = scalar(momentum), s_eps = scalar(eps), s_wd = scalar(wd);
        if (centered) {
          run(makeCall("ApplyCenteredRMSProp", {&var, &mg, &ms, &mom, &s_lr, &s_rho, &s_mom, &s_eps, &grad, &s_wd},
                       {&var, &mg, &ms, &mom}));
        } else {
          run(makeCall("ApplyRMSProp", {&var, &ms, &mom, &s_lr, &grad, &s_rho, &s_mom, &s_eps, &s_wd},
                       {&var, &ms, &mom}));
        }
        for (int64_t i = 0; i < n; ++i) {
          const double g = gv[i] + wd * p[i];
          sq[i] = sq[i] * alpha + (1 - alpha) * g * g;
          double avg = std::sqrt(sq[i]) + eps;
          if (centered) {
            ga[i] = ga[i] * alpha + (1 - alpha) * g;
            avg = std::sqrt(sq[i] - ga[i] * ga[i]) + eps;
          }
          if (momentum > 0) {
            buf[i] = buf[i] * momentum + g / avg;
            p[i] -= lr * buf[i];
          } else {
            p[i] -= lr * g / avg;
          }
        }
      }
      const auto got = var.toFloats();
      for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], p[i], 2e-5) << i;
      if (momentum == 0) { EXPECT_EQ(mom.toFloats(), std::vector<float>(n, 0.0f)) << "mom untouched"; }
    }
  }
}

TEST(KernelOptimizer, ApplyAdadeltaIsAdadelta) {
  const int64_t n = 2500;
  const double lr = 0.5, rho = 0.9, eps = 1e-6, wd = 0.02;
  const auto init = randomFloats(n, -1, 1, 4);
  HostTensor var = HostTensor::floats(ACL_FLOAT, {n}, init), acc(ACL_FLOAT, {n}), acc_up(ACL_FLOAT, {n});
  std::vector<double> p(init.begin(), init.end()), sq(n, 0), delta_acc(n, 0);
  for (int step = 0; step < 4; ++step) {
    const auto gv = randomFloats(n, -1, 1, 40 + step);
    HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv), s_lr = scalar(lr), s_rho = scalar(rho),
               s_eps = scalar(eps), s_wd = scalar(wd);
    run(makeCall("ApplyAdadelta", {&var, &acc, &acc_up, &s_lr, &s_rho, &s_eps, &grad, &s_wd}, {&var, &acc, &acc_up}));
    for (int64_t i = 0; i < n; ++i) {
      const double g = gv[i] + wd * p[i];
      sq[i] = sq[i] * rho + (1 - rho) * g * g;
      const double delta = std::sqrt(delta_acc[i] + eps) / std::sqrt(sq[i] + eps) * g;
      delta_acc[i] = delta_acc[i] * rho + (1 - rho) * delta * delta;
      p[i] -= lr * delta;
    }
  }
  const auto got = var.toFloats();
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], p[i], 2e-6) << i;
}

TEST(KernelOptimizer, ApplyLambHasATrustRatioPerSegment) {
  // Three parameters in one buffer, one of them all zero (ratio 1) and one empty.
  const std::vector<int64_t> segments = {700, 0, 300, 500};
  const int64_t n = 1500;
  const double lr = 1e-2, b1 = 0.9, b2 = 0.999, eps = 1e-6, wd = 0.01;
  for (bool adam : {false, true}) {
    SCOPED_TRACE(adam ? "adam" : "lamb");
    auto init = randomFloats(n, -3, 3, 5);
    std::fill(init.begin() + 700, init.begin() + 1000, 0.0f);
    HostTensor var = HostTensor::floats(ACL_FLOAT, {n}, init), m(ACL_FLOAT, {n}), v(ACL_FLOAT, {n});
    std::vector<double> p(init.begin(), init.end()), mm(n, 0), vv(n, 0);
    for (int step = 0; step < 3; ++step) {
      const auto gv = randomFloats(n, -1, 1, 50 + step);
      HostTensor grad = HostTensor::floats(ACL_FLOAT, {n}, gv), s_lr = scalar(lr), s_b1 = scalar(b1),
                 s_b2 = scalar(b2), s_eps = scalar(eps), s_wd = scalar(wd);
      run(makeCall("ApplyLamb", {&var, &m, &v, &grad, &s_lr, &s_b1, &s_b2, &s_eps, &s_wd}, {&var, &m, &v},
                   attrs({{"segments", segments}, {"adam", adam}})));
      int64_t begin = 0;
      for (int64_t size : segments) {
        std::vector<double> upd(size);
        double w2 = 0, u2 = 0;
        for (int64_t k = 0; k < size; ++k) {
          const int64_t i = begin + k;
          mm[i] = mm[i] * b1 + (1 - b1) * gv[i];
          vv[i] = vv[i] * b2 + (1 - b2) * gv[i] * gv[i];
          upd[k] = mm[i] / (std::sqrt(vv[i]) + eps) + wd * p[i];
          w2 += p[i] * p[i];
          u2 += upd[k] * upd[k];
        }
        const double wn = std::min(std::sqrt(w2), 10.0), un = std::sqrt(u2);
        const double ratio = (adam || wn == 0 || un == 0) ? 1.0 : wn / un;
        for (int64_t k = 0; k < size; ++k) p[begin + k] -= lr * ratio * upd[k];
        begin += size;
      }
    }
    const auto got = var.toFloats();
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], p[i], 5e-6) << i;
  }
}

TEST(KernelOptimizer, Validation) {
  HostTensor var(ACL_FLOAT, {8}), accum(ACL_FLOAT, {8}), grad(ACL_FLOAT, {7}), lr = scalar(0.1), mom = scalar(0.9),
      no_decay = scalar(0);
  EXPECT_KERNEL_ERROR(makeCall("ApplyMomentum", {&var, &accum, &lr, &grad, &mom, &no_decay}, {&var, &accum}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input grad");
  HostTensor two(ACL_DOUBLE, {2}), g8(ACL_FLOAT, {8});
  EXPECT_KERNEL_ERROR(makeCall("ApplyMomentum", {&var, &accum, &two, &g8, &mom, &no_decay}, {&var, &accum}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input lr must hold one value");
  HostTensor m(ACL_FLOAT, {8}), v(ACL_FLOAT, {8}), b1 = scalar(0.9), b2 = scalar(0.99), eps = scalar(1e-6),
             wd = scalar(0);
  EXPECT_KERNEL_ERROR(makeCall("ApplyLamb", {&var, &m, &v, &g8, &lr, &b1, &b2, &eps, &wd}, {&var, &m, &v},
                               attrs({{"segments", std::vector<int64_t>{3, 4}}})),
                      ACL_ERROR_INVALID_PARAM, "segments sums to 7 elements, var has 8");
}

}  // namespace
