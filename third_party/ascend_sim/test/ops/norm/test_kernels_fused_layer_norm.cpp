// AddLayerNorm / AddLayerNormGrad and DeepNorm / DeepNormGrad (Note [Fused
// layer norms]) against the double-precision layer norm of the sum
// (layer_norm_reference.h), and AddLayerNorm's results against LayerNormV3's
// bits on the stored sum.
#include <cmath>

#include "kernel_test_util.h"
#include "layer_norm_reference.h"

namespace ascend_sim {
namespace test {
namespace {

// fp32 math rounded once to `dt`, plus the fp32 error of a row's sums.
void expectNear(const std::vector<float>& got, const std::vector<double>& want, aclDataType dt,
                const std::string& what) {
  const double rel = dt == ACL_FLOAT16 ? 2e-3 : (dt == ACL_BF16 ? 1.6e-2 : 1e-5);
  const double abs = dt == ACL_FLOAT ? 1e-5 : (dt == ACL_BF16 ? 1.6e-2 : 2e-3);
  expectNearReference(
      got, want, [rel, abs](double ref) { return rel * std::fabs(ref) + abs; }, what);
}

std::vector<double> scaled(const std::vector<double>& v, double by) {
  std::vector<double> out;
  for (double e : v) out.push_back(e * by);
  return out;
}

// A [2, 3, 37] problem: 6 rows of an odd width, gamma [37].
struct NormCase {
  aclDataType dt;
  Shape shape = {2, 3, 37};
  int64_t m = 6, n = 37;
  std::vector<float> a, b, g, beta, dy;
  explicit NormCase(aclDataType t) : dt(t) {
    a = stored(dt, randomFloats(m * n, -3, 5, 1));
    b = stored(dt, randomFloats(m * n, -2, 2, 2));
    g = stored(dt, randomFloats(n, 0.5, 1.5, 3));
    beta = stored(dt, randomFloats(n, -1, 1, 4));
    dy = stored(dt, randomFloats(m * n, -1, 1, 5));
  }
  HostTensor t(const std::vector<float>& v) const { return HostTensor::floats(dt, shape, v); }
  HostTensor param(const std::vector<float>& v) const { return HostTensor::floats(dt, {n}, v); }
};

TEST(KernelAddLayerNorm, NormalisesTheRoundedSumLikeLayerNormV3) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    const NormCase c(dt);
    HostTensor x1 = c.t(c.a), x2 = c.t(c.b), g = c.param(c.g), beta = c.param(c.beta);
    HostTensor y(dt, c.shape), mean(ACL_FLOAT, {2, 3, 1}), rstd(ACL_FLOAT, {2, 3, 1}), x(dt, c.shape);
    run(makeCall("AddLayerNorm", {&x1, &x2, &g, &beta}, {&y, &mean, &rstd, &x},
                 attrs({{"epsilon", 1e-5f}, {"additional_output", true}})));
    std::vector<float> want_x;  // the exact sum of two fp32-representable values, rounded once
    for (size_t i = 0; i < c.a.size(); ++i) want_x.push_back(roundTo(dt, static_cast<float>(double(c.a[i]) + c.b[i])));
    expectSameBits(x.toFloats(), want_x, "x");
    const LayerNormRef ref = layerNormRef(want_x, c.g, c.beta, c.dy, c.m, c.n, 1e-5);
    expectNear(y.toFloats(), ref.y, dt, "y");
    expectNear(mean.toFloats(), ref.mean, ACL_FLOAT, "mean");
    expectNear(rstd.toFloats(), ref.rstd, ACL_FLOAT, "rstd");
    HostTensor y_ln(dt, c.shape), mean_ln(ACL_FLOAT, {2, 3, 1}), rstd_ln(ACL_FLOAT, {2, 3, 1});
    run(makeCall("LayerNormV3", {&x, &g, &beta}, {&y_ln, &mean_ln, &rstd_ln},
                 attrs({{"begin_norm_axis", int64_t{2}}, {"epsilon", 1e-5f}})));
    expectSameBits(y.toFloats(), y_ln.toFloats(), "y against LayerNormV3");
    expectSameBits(rstd.toFloats(), rstd_ln.toFloats(), "rstd against LayerNormV3");

    // The gradient of both addends, with and without dsum (the gradient of output x).
    HostTensor dy = c.t(c.dy), dsum = c.t(stored(dt, randomFloats(c.m * c.n, -1, 1, 6)));
    HostTensor dx(dt, c.shape), dgamma(ACL_FLOAT, {c.n}), dbeta(ACL_FLOAT, {c.n});
    run(makeCall("AddLayerNormGrad", {&dy, &x1, &x2, &rstd, &mean, &g}, {&dx, &dgamma, &dbeta}));
    expectNear(dx.toFloats(), ref.dx, dt, "dx");
    expectNear(dgamma.toFloats(), ref.dgamma, ACL_FLOAT, "dgamma");
    expectNear(dbeta.toFloats(), ref.dbeta, ACL_FLOAT, "dbeta");
    HostTensor dx_sum(dt, c.shape);
    run(makeCall("AddLayerNormGrad", {&dy, &x1, &x2, &rstd, &mean, &g, &dsum}, {&dx_sum, &dgamma, &dbeta},
                 attrs({{"has_dsum", true}})));
    std::vector<double> want = ref.dx;
    const std::vector<float> ds = dsum.toFloats();
    for (size_t i = 0; i < want.size(); ++i) want[i] += ds[i];
    expectNear(dx_sum.toFloats(), want, dt, "dx with dsum");
  }
}

TEST(KernelDeepNorm, NormalisesAlphaXPlusGxInFp32AndScalesTheGradient) {
  const float alpha = 0.3f;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    const NormCase c(dt);
    HostTensor x = c.t(c.a), gx = c.t(c.b), g = c.param(c.g), beta = c.param(c.beta), dy = c.t(c.dy);
    HostTensor mean(ACL_FLOAT, {2, 3, 1}), rstd(ACL_FLOAT, {2, 3, 1}), y(dt, c.shape);
    run(makeCall("DeepNorm", {&x, &gx, &beta, &g}, {&mean, &rstd, &y}, attrs({{"alpha", alpha}, {"epsilon", 1e-6f}})));
    std::vector<float> sum;  // x' in fp32, not rounded to the dtype
    for (size_t i = 0; i < c.a.size(); ++i) sum.push_back(alpha * c.a[i] + c.b[i]);
    const LayerNormRef ref = layerNormRef(sum, c.g, c.beta, c.dy, c.m, c.n, 1e-6);
    expectNear(y.toFloats(), ref.y, dt, "y");
    expectNear(mean.toFloats(), ref.mean, ACL_FLOAT, "mean");
    expectNear(rstd.toFloats(), ref.rstd, ACL_FLOAT, "rstd");

    HostTensor dx(dt, c.shape), dgx(dt, c.shape), dbeta(dt, {c.n}), dgamma(dt, {c.n});
    run(makeCall("DeepNormGrad", {&dy, &x, &gx, &g, &mean, &rstd}, {&dx, &dgx, &dbeta, &dgamma},
                 attrs({{"alpha", alpha}})));
    expectNear(dgx.toFloats(), ref.dx, dt, "dgx");
    expectNear(dx.toFloats(), scaled(ref.dx, alpha), dt, "dx");
    expectNear(dgamma.toFloats(), ref.dgamma, dt, "dgamma");
    expectNear(dbeta.toFloats(), ref.dbeta, dt, "dbeta");
  }
}

TEST(KernelFusedLayerNorm, EmptyRowsAndBadInputs) {
  HostTensor e(ACL_FLOAT, {0, 4}), g(ACL_FLOAT, {4}), s0(ACL_FLOAT, {0, 1});
  run(makeCall("AddLayerNorm", {&e, &e, &g, &g}, {&e, &s0, &s0, &e}, attrs({{"epsilon", 1e-5f}})));
  run(makeCall("DeepNorm", {&e, &e, &g, &g}, {&s0, &s0, &e}, attrs({{"alpha", 0.3f}, {"epsilon", 1e-6f}})));
  HostTensor x(ACL_FLOAT, {2, 4}), x5(ACL_FLOAT, {2, 5}), h(ACL_FLOAT16, {2, 4}), s2(ACL_FLOAT, {2, 1}),
      g3(ACL_FLOAT, {3}), s3(ACL_FLOAT, {3, 1});
  const AttrMap eps = attrs({{"epsilon", 1e-5f}});
  EXPECT_KERNEL_ERROR(makeCall("AddLayerNorm", {&x, &x5, &g, &g}, {&x, &s2, &s2, &x}, eps),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "input x2 shape [2,5]");
  EXPECT_KERNEL_ERROR(makeCall("AddLayerNorm", {&x, &h, &g, &g}, {&x, &s2, &s2, &x}, eps), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x2 dtype float16 does not match x1 dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("AddLayerNorm", {&x, &x, &g3, &g3}, {&x, &s2, &s2, &x}, eps),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "gamma shape [3] must be the trailing dims of x shape [2,4]");
  EXPECT_KERNEL_ERROR(
      makeCall("DeepNorm", {&x, &x, &g, &g}, {&s3, &s2, &x}, attrs({{"alpha", 0.3f}, {"epsilon", 1e-6f}})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "output mean shape [3,1] must hold one value per row (2 rows)");
  EXPECT_KERNEL_ERROR(
      makeCall("AddLayerNormGrad", {&x, &x, &x, &s2, &s2, &g}, {&x, &g, &g}, attrs({{"has_dsum", true}})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 7 inputs, got 6");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
