// MultiMarginLoss, MultilabelMarginLoss and their gradients against double
// references written here from the loss definitions, fp32 and fp16, every
// reduction, empty batches, target faults and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

constexpr int64_t kN = 5, kC = 7;

// Per-sample multi-margin losses and the [N, C] gradient of their sum.
void multiMarginRef(const std::vector<float>& x, const std::vector<int64_t>& t, const std::vector<float>& w, int p,
                    double margin, std::vector<double>* loss, std::vector<double>* grad) {
  loss->assign(kN, 0);
  grad->assign(kN * kC, 0);
  for (int64_t i = 0; i < kN; ++i)
    for (int64_t d = 0; d < kC; ++d) {
      if (d == t[i]) continue;
      const double z = margin - x[i * kC + t[i]] + x[i * kC + d];
      if (z <= 0) continue;
      (*loss)[i] += (p == 1 ? z : z * z) * w[t[i]] / kC;
      const double dz = (p == 1 ? 1 : 2 * z) * w[t[i]] / kC;
      (*grad)[i * kC + d] += dz;
      (*grad)[i * kC + t[i]] -= dz;
    }
}

std::vector<double> reduce(const std::vector<double>& loss, const std::string& reduction) {
  if (reduction == "none") return loss;
  double s = 0;
  for (double v : loss) s += v;
  return {reduction == "mean" ? s / loss.size() : s};
}

}  // namespace

TEST(KernelMarginLoss, MultiMarginAllReductions) {
  const std::vector<int64_t> t = {0, 3, 6, 2, 3};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const auto xv = roundedTo(dt, randomFloats(kN * kC, -2, 2, 1));
    const auto wv = roundedTo(dt, randomFloats(kC, 0.5f, 2, 2));
    for (int p : {1, 2})
      for (const char* red : {"none", "sum", "mean"}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " p=" + std::to_string(p) + " " + red);
        std::vector<double> loss, grad;
        multiMarginRef(xv, t, wv, p, 0.8, &loss, &grad);
        const std::vector<double> want = reduce(loss, red);
        HostTensor x = HostTensor::floats(dt, {kN, kC}, xv), w = HostTensor::floats(dt, {kC}, wv);
        HostTensor tt = HostTensor::ints(ACL_INT64, {kN}, t);
        HostTensor y(dt, want.size() == 1 ? Shape{} : Shape{kN});
        const AttrMap a = attrs({{"p", int64_t{p}}, {"margin", 0.8f}, {"reduction", std::string(red)}});
        run(makeCall("MultiMarginLoss", {&x, &tt, &w}, {&y}, a));
        expectNear(dt, y.toFloats(), want, 1, 4);
        // gradient with y_grad = 1 (sum), 1/N per sample (mean) or per-sample values (none)
        const std::vector<float> gv = std::string(red) == "none" ? roundedTo(dt, {1, -2, 0.5f, 3, 1})
                                                                 : std::vector<float>{1.5f};
        HostTensor g = HostTensor::floats(dt, gv.size() == 1 ? Shape{} : Shape{kN}, gv);
        HostTensor dx(dt, {kN, kC});
        run(makeCall("MultiMarginLossGrad", {&x, &g, &tt, &w}, {&dx}, a));
        std::vector<double> want_dx;
        for (int64_t k = 0; k < kN * kC; ++k) {
          const double gi = gv.size() == 1 ? gv[0] : gv[k / kC];
          want_dx.push_back(grad[k] * gi / (std::string(red) == "mean" ? kN : 1));
        }
        expectNear(dt, dx.toFloats(), want_dx, 1, 4);
      }
  }
}

TEST(KernelMarginLoss, MultilabelAllReductions) {
  // targets up to the first -1; sample 3 has none, sample 4 all classes but one
  const std::vector<int64_t> t = {2, 5, -1, 0, 0, 0, 0, 1, -1, 6, 6, 6, 6, 6,
                                  6, 3, 0, -1, 1, 1, 1, -1, 0, 0, 0, 0, 0, 0,
                                  0, 1, 2, 3, 4, 5, -1};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const auto xv = roundedTo(dt, randomFloats(kN * kC, -1, 1, 3));
    std::vector<double> loss(kN, 0), grad(kN * kC, 0);
    std::vector<float> mark(kN * kC, 0);
    for (int64_t i = 0; i < kN; ++i) {
      std::vector<int64_t> labels;
      for (int64_t j = 0; j < kC && t[i * kC + j] >= 0; ++j) labels.push_back(t[i * kC + j]);
      for (int64_t y : labels) mark[i * kC + y] = 1;
      for (int64_t y : labels)
        for (int64_t d = 0; d < kC; ++d) {
          if (mark[i * kC + d] != 0) continue;
          const double z = 1.0 - xv[i * kC + y] + xv[i * kC + d];
          if (z <= 0) continue;
          loss[i] += z / kC;
          grad[i * kC + d] += 1.0 / kC;
          grad[i * kC + y] -= 1.0 / kC;
        }
    }
    for (const char* red : {"none", "sum", "mean"}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + red);
      const std::vector<double> want = reduce(loss, red);
      HostTensor x = HostTensor::floats(dt, {kN, kC}, xv), tt = HostTensor::ints(ACL_INT32, {kN, kC}, t);
      HostTensor y(dt, want.size() == 1 ? Shape{} : Shape{kN}), is_target(dt, {kN, kC});
      const AttrMap a = attrs({{"reduction", std::string(red)}});
      run(makeCall("MultilabelMarginLoss", {&x, &tt}, {&y, &is_target}, a));
      expectNear(dt, y.toFloats(), want, 1, 4);
      EXPECT_EQ(is_target.toFloats(), mark);
      HostTensor g = HostTensor::floats(dt, {}, {2.0f}), dx(dt, {kN, kC});
      if (std::string(red) == "none") continue;
      run(makeCall("MultilabelMarginLossGrad", {&x, &g, &tt, &is_target}, {&dx}, a));
      std::vector<double> want_dx;
      for (double v : grad) want_dx.push_back(v * 2 / (std::string(red) == "mean" ? kN : 1));
      expectNear(dt, dx.toFloats(), want_dx, 1, 4);
    }
  }
}

TEST(KernelMarginLoss, EmptyBatchAndFaults) {
  HostTensor x(ACL_FLOAT, {0, kC}), t(ACL_INT64, {0}), w = HostTensor::floats(ACL_FLOAT, {kC}, std::vector<float>(kC, 1));
  HostTensor y(ACL_FLOAT, {});
  run(makeCall("MultiMarginLoss", {&x, &t, &w}, {&y}, attrs({{"reduction", std::string("sum")}})));
  EXPECT_EQ(y.toFloats()[0], 0.0f);
  run(makeCall("MultiMarginLoss", {&x, &t, &w}, {&y}));
  EXPECT_TRUE(std::isnan(y.toFloats()[0]));  // mean of no samples
  HostTensor x2 = HostTensor::floats(ACL_FLOAT, {2, kC}, randomFloats(2 * kC, -1, 1, 4));
  HostTensor bad = HostTensor::ints(ACL_INT64, {2}, {1, kC});
  HostTensor y2(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x2, &bad, &w}, {&y2}, attrs({{"reduction", std::string("none")}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "target 7 at sample 1 is out of range [0, 7)");
  HostTensor badl = HostTensor::ints(ACL_INT64, {2, kC}, {0, 9, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0});
  HostTensor mark(ACL_FLOAT, {2, kC});
  EXPECT_KERNEL_ERROR(makeCall("MultilabelMarginLoss", {&x2, &badl}, {&y2, &mark}, attrs({{"reduction", std::string("none")}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "target 9 at sample 0");
}

TEST(KernelMarginLoss, ValidationErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6}), t = HostTensor::ints(ACL_INT64, {2}, {0, 1});
  HostTensor w = HostTensor::floats(ACL_FLOAT, {3}, {1, 1, 1}), y(ACL_FLOAT, {});
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x, &t, &w}, {&y}, attrs({{"p", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' is 3; expected 1 or 2");
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x, &t, &w}, {&y}, attrs({{"reduction", std::string("avg")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "expected none, sum or mean");
  HostTensor w2 = HostTensor::floats(ACL_FLOAT, {2}, {1, 1});
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x, &t, &w2}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input weight shape [2] must hold 3 elements");
  HostTensor tf = HostTensor::floats(ACL_FLOAT, {2}, {0, 1});
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x, &tf, &w}, {&y}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "target");
  HostTensor x3(ACL_FLOAT, {2, 3, 1});
  EXPECT_KERNEL_ERROR(makeCall("MultiMarginLoss", {&x3, &t, &w}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "[N,C] or [C]");
  HostTensor mark(ACL_FLOAT16, {2, 3}), tl = HostTensor::ints(ACL_INT64, {2, 3}, {0, -1, 0, 1, -1, 0});
  EXPECT_KERNEL_ERROR(makeCall("MultilabelMarginLoss", {&x, &tl}, {&y, &mark}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "is_target");
}
