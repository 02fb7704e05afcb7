// ScaledMaskedSoftmax / ScaledMaskedSoftmaxGrad (Note [Scaled masked softmax]) against references
// computed here in double: broadcast masks, the causal triu mask, a fully masked row, scales,
// fp32 / fp16 / bf16, and CANN's shape rule.
#include <algorithm>
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::function<double(double)> tol(aclDataType dt) { return oneRounding(dt, 1e-5, 1e-7, 1e-4); }

}  // namespace

TEST(KernelScaledMaskedSoftmax, ForwardAndGradientMatchTheDefinition) {
  const Shape xs{2, 3, 32, 64}, ms{2, 1, 32, 64};  // the mask broadcasts over heads
  const int64_t h = 32, w = 64, rows = 2 * 3 * 32;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (bool triu : {false, true})
      for (float scale : {1.0f, 0.125f}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + (triu ? " triu" : " mask") + " scale " + std::to_string(scale));
        const std::vector<float> xv = stored(dt, randomFloats(numelOf(xs), -8, 8, 5)),
                                 dyv = stored(dt, randomFloats(numelOf(xs), -1, 1, 6));
        std::vector<uint8_t> mv(static_cast<size_t>(numelOf(ms)));
        for (size_t i = 0; i < mv.size(); ++i) mv[i] = (i * 7 + i / 64) % 3 == 0;
        for (int64_t j = 0; j < w; ++j) mv[static_cast<size_t>(5 * w + j)] = 1;  // row 5 of sample 0: all masked
        HostTensor x = HostTensor::floats(dt, xs, xv), dy = HostTensor::floats(dt, xs, dyv), y(dt, xs), dx(dt, xs);
        HostTensor mask(ACL_BOOL, ms);
        std::copy(mv.begin(), mv.end(), static_cast<uint8_t*>(mask.data()));
        const AttrMap a = attrs({{"scale", scale}, {"fixed_triu_mask", triu}});
        run(makeCall("ScaledMaskedSoftmax", {&x, &mask}, {&y}, a));
        run(makeCall("ScaledMaskedSoftmaxGrad", {&dy, &y, &mask}, {&dx}, a));
        const std::vector<float> yv = y.toFloats();
        std::vector<double> want_y(xv.size()), want_dx(xv.size());
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t n = r / (3 * h), hr = r % h;
          const auto masked = [&](int64_t j) {
            return triu ? j > hr : mv[static_cast<size_t>((n * h + hr) * w + j)] != 0;
          };
          double top = -INFINITY, sum = 0, dot = 0;
          std::vector<double> v(static_cast<size_t>(w));
          for (int64_t j = 0; j < w; ++j)
            top = std::fmax(top, v[j] = masked(j) ? -10000.0 : xv[r * w + j] * double(scale));
          for (int64_t j = 0; j < w; ++j) sum += std::exp(v[j] - top);
          for (int64_t j = 0; j < w; ++j) {
            want_y[r * w + j] = std::exp(v[j] - top) / sum;
            dot += double(dyv[r * w + j]) * yv[r * w + j];
          }
          for (int64_t j = 0; j < w; ++j)
            want_dx[r * w + j] = masked(j) ? 0.0 : (dyv[r * w + j] - dot) * yv[r * w + j] * scale;
        }
        expectNearReference(yv, want_y, tol(dt), "y");
        expectNearReference(dx.toFloats(), want_dx, tol(dt), "dx");
        if (!triu) { EXPECT_NEAR(yv[5 * w], 1.0 / w, 1e-3) << "a fully masked row is uniform"; }
      }
}

TEST(KernelScaledMaskedSoftmax, ShapeRuleAndErrors) {
  HostTensor x(ACL_FLOAT, {1, 1, 32, 48}), mask(ACL_BOOL, {1, 1, 32, 48}), y(ACL_FLOAT, {1, 1, 32, 48});
  EXPECT_KERNEL_ERROR(makeCall("ScaledMaskedSoftmax", {&x, &mask}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "multiples of 32 in [32, 4096]");
  HostTensor x3(ACL_FLOAT, {2, 32, 32}), y3(ACL_FLOAT, {2, 32, 32}), m3(ACL_BOOL, {2, 32, 32});
  EXPECT_KERNEL_ERROR(makeCall("ScaledMaskedSoftmax", {&x3, &m3}, {&y3}), ACL_ERROR_OP_INPUT_NOT_MATCH, "4-D");
  HostTensor x4(ACL_FLOAT, {2, 2, 32, 32}), y4(ACL_FLOAT, {2, 2, 32, 32}), mbad(ACL_BOOL, {1, 1, 32, 64});
  EXPECT_KERNEL_ERROR(makeCall("ScaledMaskedSoftmax", {&x4, &mbad}, {&y4}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input mask shape");
  HostTensor mfloat(ACL_FLOAT, {1, 1, 32, 32});
  EXPECT_KERNEL_ERROR(makeCall("ScaledMaskedSoftmax", {&x4, &mfloat}, {&y4}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "mask");
  HostTensor m4(ACL_BOOL, {1, 1, 32, 32});
  const KernelCost cost = kernel("ScaledMaskedSoftmax").cost(makeCall("ScaledMaskedSoftmax", {&x4, &m4}, {&y4}));
  EXPECT_EQ(cost.core, CoreType::kVector);
}

}  // namespace test
}  // namespace ascend_sim
