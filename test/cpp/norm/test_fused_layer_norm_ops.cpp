// torch_npu's fused residual layer norms (csrc/aten/norm/FusedLayerNormOps.cpp):
// npu_add_layer_norm and npu_deep_norm against layer_norm of the same sum on
// the CPU, forward and backward, fp32 and fp16; one kernel each way (an op
// record check); their backward entry points, npu_layernorm_grad, empty
// inputs and argument errors.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Four = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;
using Three = std::tuple<at::Tensor, at::Tensor, at::Tensor>;
const auto& addLayerNorm() {
  static const auto op =
      npuOp<Four(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, double, bool)>(
          "npu::npu_add_layer_norm");
  return op;
}
const auto& addLayerNormBackward() {
  static const auto op = npuOp<Four(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                    const at::Tensor&, const at::Tensor&)>("npu::npu_add_layer_norm_backward");
  return op;
}
const auto& deepNorm() {
  static const auto op =
      npuOp<Three(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, double, double)>(
          "npu::npu_deep_norm");
  return op;
}
const auto& deepNormBackward() {
  static const auto op = npuOp<Four(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                    const at::Tensor&, const at::Tensor&, double)>("npu::npu_deep_norm_backward");
  return op;
}

bool onNpu(const at::Tensor& t) { return t.device() == npu(); }

}  // namespace

TEST(FusedLayerNorm, AddLayerNormIsLayerNormOfTheSumAndDifferentiable) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    // gamma's and beta's gradients sum 6 rows of fp16-rounded products: their roundings add up
    // (about the square root of the count, 2.5x; fp32 keeps its tolerance).
    const double summed = dtype == at::kHalf ? 2.5 : 1;
    const std::vector<at::Tensor> inputs = {at::randn({2, 3, 20}).to(dtype), at::randn({2, 3, 20}).to(dtype),
                                            at::rand({20}).add(0.5).to(dtype), at::randn({20}).to(dtype)};
    // y alone, then y and the sum x together (x's gradient joins through AddLayerNormGrad's dsum).
    for (bool with_x : {false, true}) {
      expectSameAutograd(
          [with_x](const std::vector<at::Tensor>& in) {
            if (onNpu(in[0])) {
              auto [y, mean, rstd, x] = addLayerNorm().call(in[0], in[1], in[2], in[3], 1e-5, with_x);
              return with_x ? y + x * 0.5 : y;
            }
            const at::Tensor x = in[0] + in[1];
            const at::Tensor y = at::layer_norm(x, {20}, in[2], in[3], 1e-5);
            return with_x ? y + x * 0.5 : y;
          },
          inputs, summed * rtolTwoRoundings(dtype), summed * atolTwoRoundings(dtype));
    }
  }
  // mean and rstd: fp32, gamma's dims set to 1, as native_layer_norm's.
  const at::Tensor a = at::randn({4, 6}), b = at::randn({4, 6}), g = at::rand({6}), beta = at::randn({6});
  auto [y, mean, rstd, x] = addLayerNorm().call(a.to(npu()), b.to(npu()), g.to(npu()), beta.to(npu()), 1e-5, true);
  auto [y_ref, mean_ref, rstd_ref] = at::native_layer_norm(a + b, {6}, g, beta, 1e-5);
  expectClose(mean, mean_ref);
  expectClose(rstd, rstd_ref, 1e-4, 1e-4);
  expectClose(x, a + b);
  // The backward entry point: dx once for both addends, dgamma and dbeta in fp32.
  const at::Tensor dy = at::randn({4, 6});
  auto [dx1, dx2, dgamma, dbeta] =
      addLayerNormBackward().call(dy.to(npu()), a.to(npu()), b.to(npu()), rstd, mean, g.to(npu()));
  auto [dx_ref, dgamma_ref, dbeta_ref] =
      at::native_layer_norm_backward(dy, a + b, {6}, mean_ref, rstd_ref, g, beta, {true, true, true});
  expectClose(dx1, dx_ref, 1e-4, 1e-5);
  expectClose(dx2, dx_ref, 1e-4, 1e-5);
  expectClose(dgamma, dgamma_ref, 1e-4, 1e-5);
  expectClose(dbeta, dbeta_ref, 1e-4, 1e-5);
}

TEST(FusedLayerNorm, DeepNormIsLayerNormOfAlphaXPlusGxAndDifferentiable) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectSameAutograd(
        [](const std::vector<at::Tensor>& in) {
          if (onNpu(in[0])) return std::get<2>(deepNorm().call(in[0], in[1], in[2], in[3], 0.7, 1e-6));
          return at::layer_norm(in[0] * 0.7 + in[1], {4, 5}, in[3], in[2], 1e-6);
        },
        {at::randn({3, 4, 5}).to(dtype), at::randn({3, 4, 5}).to(dtype), at::randn({4, 5}).to(dtype),
         at::rand({4, 5}).add(0.5).to(dtype)},
        rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
  }
  const at::Tensor x = at::randn({5, 8}), gx = at::randn({5, 8}), beta = at::randn({8}), g = at::rand({8});
  auto [mean, rstd, y] = deepNorm().call(x.to(npu()), gx.to(npu()), beta.to(npu()), g.to(npu()), 0.3, 1e-6);
  auto [y_ref, mean_ref, rstd_ref] = at::native_layer_norm(x * 0.3 + gx, {8}, g, beta, 1e-6);
  EXPECT_EQ(mean.sizes(), (at::IntArrayRef{5, 1}));
  expectClose(mean, mean_ref);
  expectClose(rstd, rstd_ref, 1e-4, 1e-4);
  const at::Tensor dy = at::randn({5, 8});
  auto [dx, dgx, dbeta, dgamma] =
      deepNormBackward().call(dy.to(npu()), x.to(npu()), gx.to(npu()), g.to(npu()), mean, rstd, 0.3);
  auto [dsum_ref, dgamma_ref, dbeta_ref] =
      at::native_layer_norm_backward(dy, x * 0.3 + gx, {8}, mean_ref, rstd_ref, g, beta, {true, true, true});
  expectClose(dgx, dsum_ref, 1e-4, 1e-5);
  expectClose(dx, dsum_ref * 0.3, 1e-4, 1e-5);
  expectClose(dgamma, dgamma_ref, 1e-4, 1e-5);
  expectClose(dbeta, dbeta_ref, 1e-4, 1e-5);
}

TEST(FusedLayerNorm, OneKernelEachWay) {
  const auto leaf = [](at::IntArrayRef shape) { return at::randn(shape).to(npu()).requires_grad_(); };
  const at::Tensor a = leaf({4, 16}), b = leaf({4, 16}), g = leaf({16}), beta = leaf({16});
  {
    OpRecorder rec;
    auto [y, mean, rstd, x] = addLayerNorm().call(a, b, g, beta, 1e-5, true);
    (y.sum() + x.sum()).backward();
    EXPECT_EQ(rec.count("AddLayerNorm"), 1) << rec.summary();
    EXPECT_EQ(rec.count("AddLayerNormGrad"), 1) << rec.summary();
    EXPECT_EQ(rec.count("LayerNormV3") + rec.count("LayerNormGradV3"), 0) << rec.summary();
  }
  {
    OpRecorder rec;
    std::get<2>(deepNorm().call(a, b, beta, g, 0.3, 1e-6)).sum().backward();
    EXPECT_EQ(rec.count("DeepNorm"), 1) << rec.summary();
    EXPECT_EQ(rec.count("DeepNormGrad"), 1) << rec.summary();
  }
}

TEST(FusedLayerNorm, LayernormGradIsNativeLayerNormBackward) {
  static const auto op =
      npuOp<Three(const at::Tensor&, const at::Tensor&, at::IntArrayRef, const at::Tensor&, const at::Tensor&,
                  const c10::optional<at::Tensor>&, const c10::optional<at::Tensor>&)>("npu::npu_layernorm_grad");
  const at::Tensor x = at::randn({3, 4, 6}), w = at::rand({4, 6}), b = at::randn({4, 6}), dy = at::randn({3, 4, 6});
  auto [y, mean, rstd] = at::native_layer_norm(x, {4, 6}, w, b, 1e-5);
  auto [y_npu, mean_npu, rstd_npu] = at::native_layer_norm(x.to(npu()), {4, 6}, w.to(npu()), b.to(npu()), 1e-5);
  auto [dx, dw, db] = op.call(dy.to(npu()), x.to(npu()), {4, 6}, mean_npu, rstd_npu, w.to(npu()), b.to(npu()));
  auto [dx_ref, dw_ref, db_ref] = at::native_layer_norm_backward(dy, x, {4, 6}, mean, rstd, w, b, {true, true, true});
  expectClose(dx, dx_ref, 1e-4, 1e-5);
  expectClose(dw, dw_ref, 1e-4, 1e-5);
  expectClose(db, db_ref, 1e-4, 1e-5);
  OpRecorder rec;
  op.call(dy.to(npu()), x.to(npu()), {4, 6}, mean_npu, rstd_npu, w.to(npu()), b.to(npu()));
  EXPECT_EQ(rec.count("LayerNormGradV3"), 1) << rec.summary();
}

TEST(FusedLayerNorm, EmptyInputsAndErrors) {
  const at::Tensor e = at::randn({0, 3, 8}).to(npu()), g = at::ones({8}).to(npu()), b = at::zeros({8}).to(npu());
  auto [y, mean, rstd, sum] = addLayerNorm().call(e, e, g, b, 1e-5, false);
  EXPECT_EQ(y.sizes(), e.sizes());
  EXPECT_EQ(sum.sizes(), e.sizes());
  EXPECT_EQ(mean.sizes(), (at::IntArrayRef{0, 3, 1}));
  auto [dmean, drstd, dy] = deepNorm().call(e, e, b, g, 0.3, 1e-6);
  EXPECT_EQ(dy.sizes(), e.sizes());
  const at::Tensor x = at::randn({2, 8}).to(npu());
  EXPECT_THROW_WITH(addLayerNorm().call(x, at::randn({2, 7}).to(npu()), g, b, 1e-5, false),
                    "npu_add_layer_norm: x1 and x2 must have one shape and dtype");
  EXPECT_THROW_WITH(addLayerNorm().call(x, x, at::ones({7}).to(npu()), at::ones({7}).to(npu()), 1e-5, false),
                    "gamma of shape [7] must match the trailing dims of x of shape [2, 8]");
  EXPECT_THROW_WITH(addLayerNorm().call(x, x.to(at::kHalf), g, b, 1e-5, false), "one shape and dtype");
  EXPECT_THROW_WITH(addLayerNorm().call(x, x, g, at::ones({4}).to(npu()), 1e-5, false),
                    "beta of shape [4] must match gamma of shape [8]");
  EXPECT_THROW_WITH(deepNorm().call(x, x, b, g.cpu(), 0.3, 1e-6), "npu_deep_norm: the parameters must be on");
  EXPECT_THROW_WITH(deepNorm().call(x.to(at::kInt), x.to(at::kInt), b, g, 0.3, 1e-6), "npu_deep_norm: expected x of");
  EXPECT_THROW_WITH(deepNormBackward().call(x, x, x, g, at::zeros({3, 1}).to(npu()), at::zeros({2, 1}).to(npu()), 0.3),
                    "must hold one value per row of x");
}
