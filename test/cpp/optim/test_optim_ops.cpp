// Optimizer updates (SGD, Adam, AdamW; single-tensor via torch::optim and a
// foreach Adam(W) on the _foreach_* kernels), clip_grad_norm_ and dropout on
// NPU parameters against the same on CPU parameters.
#include <torch/optim.h>
// clip_grad.h relies on the torch:: names optim.h brings in.
#include <torch/nn/utils/clip_grad.h>

#include <cmath>
#include <limits>

#include "csrc/core/NPUGenerator.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

constexpr int kSteps = 3;
// Three steps of fp32 updates; Adam divides by sqrt(v) + eps, which amplifies
// one-ulp differences of the gradients a little.
constexpr double kOptimRtol = 1e-5, kOptimAtol = 1e-6;

// A least-squares problem over a conv-like weight, a bias and a matrix:
// loss = sum_i mean((p_i * a_i - b_i)^2). On the NPU the 4-D weight is kept
// in FRACTAL_Z when internal formats are allowed (as torch_npu stores conv weights).
struct Problem {
  std::vector<at::Tensor> init, a, b;
  Problem() {
    for (const auto& shape : std::vector<std::vector<int64_t>>{{19, 3, 3, 3}, {33}, {7, 9}}) {
      init.push_back(at::randn(shape));
      a.push_back(at::randn(shape));
      b.push_back(at::randn(shape));
    }
  }
  std::vector<at::Tensor> params(bool on_npu) const {
    std::vector<at::Tensor> out;
    for (const auto& t : init) {
      at::Tensor p = on_npu ? t.to(npu()) : t.clone();
      if (on_npu && t.dim() == 4 && torch_npu::allowInternalFormat()) p = npuFormatCast(p, ACL_FORMAT_FRACTAL_Z);
      out.push_back(p.detach().requires_grad_());
    }
    return out;
  }
  void backward(const std::vector<at::Tensor>& ps) const {
    at::Tensor loss;
    for (size_t i = 0; i < ps.size(); ++i) {
      const at::Tensor term = ps[i].mul(a[i].to(ps[i].device())).sub(b[i].to(ps[i].device())).pow(2).mean();
      loss = loss.defined() ? loss.add(term) : term;
    }
    loss.backward();
  }
};

void expectParamsClose(const std::vector<at::Tensor>& npu_ps, const std::vector<at::Tensor>& cpu_ps) {
  for (size_t i = 0; i < npu_ps.size(); ++i) {
    SCOPED_TRACE("param " + std::to_string(i));
    expectClose(npu_ps[i].detach(), cpu_ps[i].detach(), kOptimRtol, kOptimAtol);
  }
}

using OptimizerFactory = std::function<std::unique_ptr<torch::optim::Optimizer>(const std::vector<at::Tensor>&)>;

// kSteps of zero_grad / backward / step on both devices, parameters compared after each step.
void expectOptimizerMatches(const std::string& name, const OptimizerFactory& make) {
  SCOPED_TRACE(name);
  const Problem problem;
  forBothFormatModes([&](bool) {
    const std::vector<at::Tensor> cpu_ps = problem.params(false), npu_ps = problem.params(true);
    auto cpu_opt = make(cpu_ps), npu_opt = make(npu_ps);
    for (int step = 0; step < kSteps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      for (auto* opt : {cpu_opt.get(), npu_opt.get()}) opt->zero_grad();
      problem.backward(cpu_ps);
      problem.backward(npu_ps);
      cpu_opt->step();
      npu_opt->step();
      expectParamsClose(npu_ps, cpu_ps);
    }
  });
}

template <typename Opt, typename Options>
OptimizerFactory factory(const Options& options) {
  return [options](const std::vector<at::Tensor>& ps) { return std::make_unique<Opt>(ps, options); };
}

// Adam(W) over all parameters at once with the _foreach_* ops (PyTorch's
// _multi_tensor_adam(w)); the state lives on the parameters' device.
struct ForeachAdam {
  double lr = 1e-2, beta1 = 0.9, beta2 = 0.99, eps = 1e-8, weight_decay = 0.1;
  bool decoupled = false;  // AdamW
  std::vector<at::Tensor> exp_avg, exp_avg_sq;
  int step_count = 0;

  void step(const std::vector<at::Tensor>& ps) {
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> params, grads;
    for (const auto& p : ps) {
      params.push_back(p);
      grads.push_back(p.grad());
    }
    if (exp_avg.empty()) {
      for (const auto& p : params) {
        exp_avg.push_back(at::zeros_like(p));
        exp_avg_sq.push_back(at::zeros_like(p));
      }
    }
    ++step_count;
    if (decoupled) {
      at::_foreach_mul_(params, 1 - lr * weight_decay);
    } else {
      grads = at::_foreach_add(grads, params, weight_decay);
    }
    at::_foreach_mul_(exp_avg, beta1);
    at::_foreach_add_(exp_avg, grads, 1 - beta1);
    at::_foreach_mul_(exp_avg_sq, beta2);
    at::_foreach_addcmul_(exp_avg_sq, grads, grads, 1 - beta2);
    const double bc1 = 1 - std::pow(beta1, step_count), bc2 = 1 - std::pow(beta2, step_count);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(exp_avg_sq);
    at::_foreach_div_(denom, std::sqrt(bc2));
    at::_foreach_add_(denom, eps);
    at::_foreach_addcdiv_(params, exp_avg, denom, -lr / bc1);
  }
};

void expectForeachAdamMatches(bool decoupled) {
  SCOPED_TRACE(decoupled ? "foreach AdamW" : "foreach Adam");
  const Problem problem;
  forBothFormatModes([&](bool) {
    const std::vector<at::Tensor> cpu_ps = problem.params(false), npu_ps = problem.params(true);
    const std::vector<at::Tensor> ref_ps = problem.params(false);
    ForeachAdam cpu_opt, npu_opt;
    cpu_opt.decoupled = npu_opt.decoupled = decoupled;
    // The single-tensor torch::optim implementation as a reference for the loop itself.
    std::unique_ptr<torch::optim::Optimizer> ref;
    if (decoupled) {
      ref = std::make_unique<torch::optim::AdamW>(
          ref_ps, torch::optim::AdamWOptions(1e-2).betas({0.9, 0.99}).eps(1e-8).weight_decay(0.1));
    } else {
      ref = std::make_unique<torch::optim::Adam>(
          ref_ps, torch::optim::AdamOptions(1e-2).betas({0.9, 0.99}).eps(1e-8).weight_decay(0.1));
    }
    for (int step = 0; step < kSteps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      for (const auto* ps : {&cpu_ps, &npu_ps}) {
        for (const auto& p : *ps) p.mutable_grad() = at::Tensor();
      }
      ref->zero_grad();
      problem.backward(cpu_ps);
      problem.backward(npu_ps);
      problem.backward(ref_ps);
      cpu_opt.step(cpu_ps);
      npu_opt.step(npu_ps);
      ref->step();
      expectParamsClose(npu_ps, cpu_ps);
      expectParamsClose(cpu_ps, ref_ps);
    }
  });
}

}  // namespace

TEST(NpuOptim, Sgd) {
  using torch::optim::SGD;
  using torch::optim::SGDOptions;
  expectOptimizerMatches("sgd", factory<SGD>(SGDOptions(0.1)));
  expectOptimizerMatches("sgd momentum", factory<SGD>(SGDOptions(0.1).momentum(0.9).dampening(0.1)));
  expectOptimizerMatches("sgd nesterov", factory<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true)));
  expectOptimizerMatches("sgd weight_decay",
                         factory<SGD>(SGDOptions(0.1).momentum(0.5).weight_decay(0.01)));
}

TEST(NpuOptim, AdamAndAdamW) {
  using torch::optim::Adam;
  using torch::optim::AdamOptions;
  using torch::optim::AdamW;
  using torch::optim::AdamWOptions;
  expectOptimizerMatches("adam", factory<Adam>(AdamOptions(1e-2)));
  expectOptimizerMatches("adam weight_decay amsgrad",
                         factory<Adam>(AdamOptions(1e-2).weight_decay(0.05).amsgrad(true)));
  expectOptimizerMatches("adamw", factory<AdamW>(AdamWOptions(1e-2).weight_decay(0.1)));
  expectOptimizerMatches("adamw amsgrad", factory<AdamW>(AdamWOptions(1e-2).betas({0.8, 0.9}).amsgrad(true)));
}

TEST(NpuOptim, ForeachAdamAndAdamW) {
  expectForeachAdamMatches(false);
  expectForeachAdamMatches(true);
}

TEST(NpuOptim, ClipGradNorm) {
  for (double norm_type : {2.0, 1.0, std::numeric_limits<double>::infinity()}) {
    for (double max_norm : {0.5, 1e3}) {  // clipped, and left alone
      SCOPED_TRACE(::testing::Message() << "norm " << norm_type << " max " << max_norm);
      const Problem problem;
      const std::vector<at::Tensor> cpu_ps = problem.params(false), npu_ps = problem.params(true);
      problem.backward(cpu_ps);
      problem.backward(npu_ps);
      const double cpu_norm = torch::nn::utils::clip_grad_norm_(cpu_ps, max_norm, norm_type);
      const double npu_norm = torch::nn::utils::clip_grad_norm_(npu_ps, max_norm, norm_type);
      EXPECT_NEAR(npu_norm, cpu_norm, 1e-5 * cpu_norm);
      for (size_t i = 0; i < cpu_ps.size(); ++i) expectClose(npu_ps[i].grad(), cpu_ps[i].grad(), 1e-5, 1e-7);
    }
  }
}

TEST(NpuDropout, TrainingStatistics) {
  const int64_t n = 200 * 199;
  for (auto dtype : torch_npu_test::floatAndHalf()) {
    for (double p : {0.1, 0.5, 0.8}) {
      SCOPED_TRACE(::testing::Message() << "p " << p << " " << dtype);
      const at::Tensor x = at::rand({200, 199}).add(0.5).to(dtype);
      at::Tensor leaf = x.to(npu()).requires_grad_();
      const at::Tensor y = at::dropout(leaf, p, true);
      const at::Tensor yc = y.detach().cpu().to(at::kFloat), xf = x.to(at::kFloat);
      const at::Tensor kept = yc.ne(0);
      const double zero_fraction = 1.0 - kept.to(at::kDouble).mean().item<double>();
      const double sigma = std::sqrt(p * (1 - p) / n);
      EXPECT_NEAR(zero_fraction, p, 5 * sigma);
      // Kept elements are scaled by 1/(1-p) (one rounding in fp16).
      const double tol = dtype == at::kHalf ? 2 * torch_npu_test::kHalfRtol : 1e-6;
      expectClose(yc.masked_select(kept), xf.masked_select(kept).div(1 - p), tol, 0);
      // The gradient is the same mask and scale.
      y.backward(at::ones_like(y));
      const at::Tensor g = leaf.grad().cpu().to(at::kFloat);
      expectClose(g, kept.to(at::kFloat).div(1 - p), tol, 0);
    }
  }
}

TEST(NpuDropout, EvalIsIdentityAndEdgeProbabilities) {
  const at::Tensor x = at::randn({13, 11});
  expectClose(at::dropout(x.to(npu()), 0.5, false), x, 0, 0);
  expectClose(at::dropout(x.to(npu()), 0.0, true), x, 0, 0);
  expectClose(at::dropout(x.to(npu()), 1.0, true), at::zeros({13, 11}), 0, 0);
  EXPECT_THROW_WITH(at::dropout(x.to(npu()), 1.5, true), "dropout probability has to be between 0 and 1");
}

TEST(NpuDropout, DeterministicUnderNpuSeed) {
  auto& gen = torch_npu::NPUGenerator::forDevice(0);
  const at::Tensor x = at::ones({33, 19}).to(npu());
  gen.manual_seed(1234);
  const at::Tensor first = at::dropout(x, 0.5, true).cpu(), second = at::dropout(x, 0.5, true).cpu();
  gen.manual_seed(1234);
  const at::Tensor again = at::dropout(x, 0.5, true).cpu();
  expectClose(again, first, 0, 0);
  EXPECT_FALSE(at::equal(first, second)) << "consecutive masks should differ";
  gen.manual_seed(4321);
  EXPECT_FALSE(at::equal(at::dropout(x, 0.5, true).cpu(), first)) << "another seed should give another mask";
}
