// FFN (Note [FFN]) against the feed-forward block computed here in double
// from its definition: every activation, with and without experts, biases in
// fp32 and x's dtype, an expert without tokens, and the kernel's errors.
#include <cmath>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

double activation(const std::string& name, double v) {
  if (name == "fastgelu") return v / (1.0 + std::exp(-1.702 * v));
  if (name == "gelu" || name == "geglu")
    return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  if (name == "silu" || name == "swiglu") return v / (1.0 + std::exp(-v));
  return v > 0 ? v : 0.0;  // relu, reglu
}

bool gated(const std::string& name) { return name == "geglu" || name == "swiglu" || name == "reglu"; }

struct FfnData {
  std::vector<float> x, w1, w2, b1, b2;
};

// y for rows of x [m, k1] given per-expert counts (empty: one weight pair).
std::vector<double> reference(const FfnData& d, aclDataType dt, const std::string& act, int64_t m, int64_t k1,
                              int64_t n1, int64_t n2, const std::vector<int64_t>& tokens) {
  const int64_t k2 = gated(act) ? n1 / 2 : n1;
  std::vector<double> y(static_cast<size_t>(m * n2));
  int64_t expert = 0, left = tokens.empty() ? m : tokens[0];
  for (int64_t r = 0; r < m; ++r) {
    while (left == 0) left = tokens[++expert];
    --left;
    const float* w1 = &d.w1[expert * k1 * n1];
    const float* w2 = &d.w2[expert * k2 * n2];
    std::vector<double> c(n1);
    for (int64_t j = 0; j < n1; ++j) {
      double s = d.b1.empty() ? 0.0 : d.b1[expert * n1 + j];
      for (int64_t k = 0; k < k1; ++k) s += double(d.x[r * k1 + k]) * w1[k * n1 + j];
      c[j] = s;
    }
    std::vector<double> h(k2);
    for (int64_t j = 0; j < k2; ++j) {
      const double v = gated(act) ? activation(act, c[j]) * c[j + k2] : activation(act, c[j]);
      h[j] = roundTo(dt, static_cast<float>(v));  // the workspace of x's dtype
    }
    for (int64_t j = 0; j < n2; ++j) {
      double s = d.b2.empty() ? 0.0 : d.b2[expert * n2 + j];
      for (int64_t k = 0; k < k2; ++k) s += h[k] * w2[k * n2 + j];
      y[r * n2 + j] = s;
    }
  }
  return y;
}

// fp32 rounds once; fp16/bf16 h may round one unit apart from the reference's (an fp32 sum against a
// double one), which moves y by that unit times a weight.
std::function<double(double)> tol(aclDataType dt) { return oneRounding(dt, 1e-5, 1e-5, dt == ACL_BF16 ? 2e-2 : 4e-3); }

TEST(KernelFfn, EveryActivationWithoutExperts) {
  const int64_t k1 = 16, n1 = 24, n2 = 8;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const std::string act : {"fastgelu", "gelu", "relu", "silu", "geglu", "swiglu", "reglu"}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + act);
      const int64_t k2 = gated(act) ? n1 / 2 : n1;
      FfnData d{stored(dt, randomFloats(2 * 3 * k1, -1, 1, 1)), stored(dt, randomFloats(k1 * n1, -0.5, 0.5, 2)),
                stored(dt, randomFloats(k2 * n2, -0.5, 0.5, 3)), randomFloats(n1, -0.5, 0.5, 4),
                stored(dt, randomFloats(n2, -0.5, 0.5, 5))};
      HostTensor x = HostTensor::floats(dt, {2, 3, k1}, d.x), w1 = HostTensor::floats(dt, {k1, n1}, d.w1),
                 w2 = HostTensor::floats(dt, {k2, n2}, d.w2), b1 = HostTensor::floats(ACL_FLOAT, {n1}, d.b1),
                 b2 = HostTensor::floats(dt, {n2}, d.b2), y(dt, {2, 3, n2});
      run(makeCall("FFN", {&x, &w1, &w2, &b1, &b2}, {&y},
                   attrs({{"activation", act}, {"has_bias1", true}, {"has_bias2", true}})));
      expectNearReference(y.toFloats(), reference(d, dt, act, 6, k1, n1, n2, {}), tol(dt), "y");
    }
  }
}

TEST(KernelFfn, ExpertsTakeTheirTokensInOrder) {
  const int64_t m = 10, k1 = 8, n1 = 12, n2 = 6, e = 3;
  const std::vector<int64_t> tokens = {3, 0, 7};  // the second expert has no token
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const std::string act : {"relu", "swiglu"}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " " + act);
      const int64_t k2 = gated(act) ? n1 / 2 : n1;
      FfnData d{stored(dt, randomFloats(m * k1, -1, 1, 6)),
                stored(dt, randomFloats(e * k1 * n1, -0.5, 0.5, 7)),
                stored(dt, randomFloats(e * k2 * n2, -0.5, 0.5, 8)),
                {},
                randomFloats(e * n2, -0.5, 0.5, 9)};
      HostTensor x = HostTensor::floats(dt, {m, k1}, d.x), w1 = HostTensor::floats(dt, {e, k1, n1}, d.w1),
                 w2 = HostTensor::floats(dt, {e, k2, n2}, d.w2), b2 = HostTensor::floats(ACL_FLOAT, {e, n2}, d.b2),
                 y(dt, {m, n2});
      run(makeCall("FFN", {&x, &w1, &w2, &b2}, {&y},
                   attrs({{"activation", act}, {"has_bias2", true}, {"expert_tokens", tokens}})));
      expectNearReference(y.toFloats(), reference(d, dt, act, m, k1, n1, n2, tokens), tol(dt), "y");
    }
  }
}

TEST(KernelFfn, EmptyInputAndErrors) {
  HostTensor e(ACL_FLOAT16, {0, 8}), w1(ACL_FLOAT16, {8, 12}), w2(ACL_FLOAT16, {12, 4}), ey(ACL_FLOAT16, {0, 4});
  run(makeCall("FFN", {&e, &w1, &w2}, {&ey}, attrs({{"activation", std::string("gelu")}})));

  HostTensor x(ACL_FLOAT16, {5, 8}), y(ACL_FLOAT16, {5, 4}), w2g(ACL_FLOAT16, {6, 4}), x32(ACL_FLOAT, {5, 8});
  const auto act = [](const char* a) { return attrs({{"activation", std::string(a)}}); };
  EXPECT_KERNEL_ERROR(makeCall("FFN", {&x, &w1, &w2}, {&y}, act("tanh")), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "attr activation \"tanh\" is not one of");
  EXPECT_KERNEL_ERROR(makeCall("FFN", {&x, &w1, &w2}, {&y}, act("swiglu")), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must take the activation's 6 columns (N1 = 12, halved by the gated activation)");
  EXPECT_KERNEL_ERROR(makeCall("FFN", {&x, &w1, &w2g}, {&y}, act("relu")), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "must take the activation's 12 columns");
  EXPECT_KERNEL_ERROR(makeCall("FFN", {&x32, &w1, &w2}, {&y}, act("relu")), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input weight1 dtype float16 does not match x dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("FFN", {&x, &w1, &w2, &w2}, {&y}, act("relu")), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "are 3 inputs, got 4");
  HostTensor we1(ACL_FLOAT16, {2, 8, 12}), we2(ACL_FLOAT16, {2, 12, 4});
  EXPECT_KERNEL_ERROR(
      makeCall("FFN", {&x, &we1, &we2}, {&y},
               attrs({{"activation", std::string("relu")}, {"expert_tokens", std::vector<int64_t>{2, 2}}})),
      ACL_ERROR_OP_ATTR_NOT_MATCH, "attr expert_tokens sums to 4 tokens, x has 5 rows");
  EXPECT_KERNEL_ERROR(
      makeCall("FFN", {&x, &w1, &w2}, {&y},
               attrs({{"activation", std::string("relu")}, {"expert_tokens", std::vector<int64_t>{5}}})),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [E, K, N] with E = 1 experts");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
