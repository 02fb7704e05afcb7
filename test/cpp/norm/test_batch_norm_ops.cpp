// batch_norm (native_batch_norm and its backward) against the CPU: training
// and eval, affine or not, 2-D/3-D/4-D inputs, both format paths, running
// statistics updated like PyTorch, fp16 inputs with fp32 parameters.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

constexpr double kMomentum = 0.3, kEps = 1e-3;

struct BnCase {
  std::vector<int64_t> shape;
  bool training;
  bool affine;
};

std::string describe(const BnCase& c, at::ScalarType dtype) {
  std::ostringstream os;
  os << at::IntArrayRef(c.shape) << (c.training ? " train" : " eval") << (c.affine ? " affine " : " plain ")
     << dtype;
  return os.str();
}

// Runs batch_norm on CPU and NPU (NPU parameters and running statistics cast
// to NC1HWC0 when `params_nc1hwc0`), compares y, every gradient and the
// running statistics afterwards.
void expectBatchNormMatches(const BnCase& c, at::ScalarType dtype, bool params_nc1hwc0 = false) {
  SCOPED_TRACE(describe(c, dtype) + (params_nc1hwc0 ? " params NC1HWC0" : ""));
  const int64_t channels = c.shape[1];
  const at::Tensor mean0 = at::randn({channels}), var0 = at::rand({channels}).add(0.5);
  // Inputs with a per-channel offset and scale, so the statistics matter.
  std::vector<int64_t> bshape(c.shape.size(), 1);
  bshape[1] = channels;
  const at::Tensor x = at::randn(c.shape).mul(at::rand(bshape).add(0.5)).add(at::randn(bshape)).to(dtype);
  std::vector<at::Tensor> inputs = {x};
  if (c.affine) inputs.insert(inputs.end(), {at::rand({channels}).add(0.5), at::randn({channels})});
  const int64_t param_format = params_nc1hwc0 ? ACL_FORMAT_NC1HWC0 : -1;
  auto npuStat = [&](const at::Tensor& t) {
    at::Tensor d = t.to(npu());
    return params_nc1hwc0 ? npuFormatCast(d, ACL_FORMAT_NC1HWC0) : d;
  };
  forBothFormatModes([&](bool allow) {
    at::Tensor mean_cpu = mean0.clone(), var_cpu = var0.clone();
    at::Tensor mean_npu = npuStat(mean0), var_npu = npuStat(var0);
    AutogradCheck check;
    // y is one fp16 rounding of the fp32 normalisation; dx (a sum of three fp32
    // terms of fp16-rounded dy) is rounded once more: two fp16 roundings.
    check.rtol = torch_npu_test::rtolTwoRoundings(dtype);
    check.atol = dtype == at::kHalf ? 2 * torch_npu_test::kHalfAtol : 1e-4;
    check.npu_formats = {-1, param_format, param_format};
    if (c.shape.size() == 4) check.check_npu_out = expectFormatWhenAllowed(allow, ACL_FORMAT_NC1HWC0);
    expectSameAutogradWith(
        [&](const std::vector<at::Tensor>& in) {
          const bool on_npu = in[0].device() == npu();
          return at::batch_norm(in[0], c.affine ? in[1] : at::Tensor(), c.affine ? in[2] : at::Tensor(),
                                on_npu ? mean_npu : mean_cpu, on_npu ? var_npu : var_cpu, c.training, kMomentum,
                                kEps, false);
        },
        inputs, check);
    SCOPED_TRACE("running statistics");
    expectClose(mean_npu, mean_cpu, 1e-5, 1e-6);
    expectClose(var_npu, var_cpu, 1e-5, 1e-6);
    if (!c.training) {
      expectClose(mean_npu, mean0, 0, 0);
      expectClose(var_npu, var0, 0, 0);
    }
  });
}

std::vector<BnCase> casesFor(bool training) {
  std::vector<BnCase> cases;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{7, 19}, {5, 33, 9}, {2, 19, 7, 9}, {3, 3, 13, 11}, {2, 5, 3, 4, 6}}) {
    for (bool affine : {true, false}) cases.push_back({shape, training, affine});
  }
  return cases;
}

}  // namespace

TEST(NpuBatchNorm, TrainingForwardBackwardAndRunningStats) {
  for (const auto& c : casesFor(true)) expectBatchNormMatches(c, at::kFloat);
}

TEST(NpuBatchNorm, EvalForwardBackward) {
  for (const auto& c : casesFor(false)) expectBatchNormMatches(c, at::kFloat);
}

TEST(NpuBatchNorm, ParamsInNc1hwc0) {
  expectBatchNormMatches({{2, 19, 7, 9}, true, true}, at::kFloat, true);
  expectBatchNormMatches({{2, 33, 13, 11}, false, true}, at::kFloat, true);
  expectBatchNormMatches({{5, 19, 9}, true, true}, at::kFloat, true);
}

TEST(NpuBatchNorm, HalfInputFloatParams) {
  for (bool training : {true, false}) {
    expectBatchNormMatches({{2, 19, 7, 9}, training, true}, at::kHalf);
    expectBatchNormMatches({{7, 33}, training, false}, at::kHalf);
  }
}

TEST(NpuBatchNorm, RepeatedTrainingStepsAccumulateRunningStats) {
  at::Tensor mean_cpu = at::zeros({19}), var_cpu = at::ones({19});
  at::Tensor mean_npu = mean_cpu.to(npu()), var_npu = var_cpu.to(npu());
  for (int step = 0; step < 3; ++step) {
    const at::Tensor x = at::randn({4, 19, 7, 9}).add(step);
    at::batch_norm(x.to(npu()), {}, {}, mean_npu, var_npu, true, 0.1, 1e-5, false);
    at::batch_norm(x, {}, {}, mean_cpu, var_cpu, true, 0.1, 1e-5, false);
  }
  expectClose(mean_npu, mean_cpu, 1e-5, 1e-6);
  expectClose(var_npu, var_cpu, 1e-5, 1e-6);
}

// A model converted with .half(): parameters and running statistics in fp16.
// The statistics are updated in fp32 and rounded once into the fp16 buffers;
// the reference is the fp32 CPU on the same (fp16-rounded) values.
TEST(NpuBatchNorm, HalfRunningStatisticsAreUpdated) {
  const at::Tensor x = at::randn({4, 19, 5, 6}).add(1).to(at::kHalf);
  const at::Tensor w = at::rand({19}).add(0.5).to(at::kHalf), b = at::randn({19}).to(at::kHalf);
  at::Tensor mean_cpu = at::randn({19}).to(at::kHalf).to(at::kFloat), var_cpu = at::rand({19}).add(0.5).to(at::kHalf).to(at::kFloat);
  at::Tensor mean_npu = mean_cpu.to(at::kHalf).to(npu()), var_npu = var_cpu.to(at::kHalf).to(npu());
  const at::Tensor y_npu = at::batch_norm(x.to(npu()), w.to(npu()), b.to(npu()), mean_npu, var_npu, true, 0.1, 1e-5, false);
  const at::Tensor y_cpu = at::batch_norm(x.to(at::kFloat), w.to(at::kFloat), b.to(at::kFloat), mean_cpu, var_cpu, true, 0.1,
                                          1e-5, false);
  expectClose(y_npu, y_cpu.to(at::kHalf), 2 * kHalfRtol, 2 * kHalfAtol);
  EXPECT_EQ(mean_npu.scalar_type(), at::kHalf);
  expectClose(mean_npu, mean_cpu.to(at::kHalf), kHalfRtol, kHalfAtol);
  expectClose(var_npu, var_cpu.to(at::kHalf), kHalfRtol, kHalfAtol);
  // A non-contiguous float32 running statistic is updated in place too.
  at::Tensor stats_cpu = at::zeros({19, 2}), stats_npu = stats_cpu.to(npu());
  at::Tensor rv_cpu = at::ones({19}), rv_npu = rv_cpu.to(npu());
  const at::Tensor xf = at::randn({4, 19, 3, 3});
  at::batch_norm(xf.to(npu()), {}, {}, stats_npu.select(1, 1), rv_npu, true, 0.1, 1e-5, false);
  at::batch_norm(xf, {}, {}, stats_cpu.select(1, 1), rv_cpu, true, 0.1, 1e-5, false);
  expectClose(stats_npu, stats_cpu, 1e-5, 1e-6);
  EXPECT_THROW_WITH(at::batch_norm(xf.to(npu()), {}, {}, at::zeros({19}, at::kLong).to(npu()), rv_npu, true, 0.1, 1e-5,
                                   false),
                    "running statistics must be floating point");
}

TEST(NpuBatchNorm, Errors) {
  const at::Tensor x = at::randn({2, 19, 7, 9}).to(npu());
  EXPECT_THROW_WITH(at::batch_norm(x, at::ones({18}).to(npu()), {}, {}, {}, true, 0.1, 1e-5, false), "18");
  EXPECT_THROW_WITH(at::batch_norm(at::randn({1, 19}).to(npu()), {}, {}, at::zeros({19}).to(npu()),
                                   at::ones({19}).to(npu()), true, 0.1, 1e-5, false),
                    "Expected more than 1 value per channel when training");
  EXPECT_THROW_WITH(at::batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5, false), "running_mean");
  EXPECT_THROW_WITH(at::batch_norm(x.reshape({2, 19, 7, 9, 1, 1}), {}, {}, {}, {}, true, 0.1, 1e-5, false),
                    "6-D");
}

// An empty batch (group_norm's batch-0 path reshapes to zero channels): no
// crash (the CPU's native_batch_norm divides by zero here), empty output,
// NaN statistics, running statistics untouched.
TEST(NpuBatchNorm, EmptyInputDoesNotCrash) {
  for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{0, 3, 2, 2}, {1, 0, 5}}) {
    const int64_t c = sizes[1];
    at::Tensor rm = at::zeros({c}).to(npu()), rv = at::ones({c}).to(npu());
    auto [y, mean, invstd] = at::native_batch_norm(at::randn(sizes).to(npu()), {}, {}, rm, rv, true, 0.1, 1e-5);
    EXPECT_EQ(y.sizes(), at::IntArrayRef(sizes));
    EXPECT_EQ(mean.numel(), c);
    EXPECT_TRUE(at::isnan(mean.cpu()).all().item<bool>());
    expectClose(rm, at::zeros({c}));
    expectClose(rv, at::ones({c}));
  }
  expectClose(at::group_norm(at::randn({0, 6, 5, 5}).to(npu()), 3), at::group_norm(at::randn({0, 6, 5, 5}), 3));
}

TEST(NpuBatchNorm, ParamGradsFollowTheParamFormat) {
  // Training: weight/bias gradients come out in the format of the weight, so an
  // optimizer update of NC1HWC0 parameters runs without TransData.
  const int64_t c = 19;
  const at::Tensor x = at::randn({2, c, 7, 9}), w0 = at::rand({c}).add(0.5), b0 = at::randn({c});
  const at::Tensor gy = at::randn({2, c, 7, 9});
  at::Tensor w_cpu = w0.clone().requires_grad_(), b_cpu = b0.clone().requires_grad_();
  at::batch_norm(x, w_cpu, b_cpu, {}, {}, true, 0.1, 1e-5, false).backward(gy);
  for (bool nc1hwc0 : {true, false}) {
    SCOPED_TRACE(nc1hwc0 ? "params NC1HWC0" : "params ND");
    InternalFormatGuard allow(true);
    auto param = [&](const at::Tensor& t) {
      at::Tensor d = t.to(npu());
      return (nc1hwc0 ? npuFormatCast(d, ACL_FORMAT_NC1HWC0) : d).detach().requires_grad_();
    };
    at::Tensor w = param(w0), b = param(b0);
    const at::Tensor x_npu = npuFormatCast(x.to(npu()), ACL_FORMAT_NC1HWC0);
    at::batch_norm(x_npu, w, b, {}, {}, true, 0.1, 1e-5, false).backward(gy.to(npu()));
    const aclFormat expected = nc1hwc0 ? ACL_FORMAT_NC1HWC0 : ACL_FORMAT_ND;
    EXPECT_EQ(torch_npu::npuFormatOf(w.grad()), expected);
    EXPECT_EQ(torch_npu::npuFormatOf(b.grad()), expected);
    expectClose(w.grad(), w_cpu.grad(), 1e-4, 1e-4);
    expectClose(b.grad(), b_cpu.grad(), 1e-4, 1e-4);
    {
      at::NoGradGuard no_grad;
      OpRecorder rec;
      w.add_(w.grad(), -0.1);
      b.add_(b.grad(), -0.1);
      EXPECT_EQ(rec.count("TransData"), 0) << rec.summary();
    }
    expectClose(w, w0 - 0.1 * w_cpu.grad(), 1e-5, 1e-5);
    expectClose(b, b0 - 0.1 * b_cpu.grad(), 1e-5, 1e-5);
  }
}
