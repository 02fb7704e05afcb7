// "More elementwise" ops (OPS.md): activations and their gradients vs double
// references / analytic derivatives (fp32 tolerance, fp16 within one
// rounding), private formats, ClipByValue, Addcmul/Addcdiv, StatelessBernoulli
// (same stream as PhiloxRandomUniform, determinism, frequency), validation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

using Ref1 = std::function<double(double)>;
using Ref2 = std::function<double(double, double)>;

const double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<float> inputs() {
  std::vector<float> v = randomFloats(3000, -6.0f, 6.0f, 77);
  for (float e : {-3.0f, 3.0f, 0.0f, -0.0f, -1.0f, 1.0f, 6.0f, -6.0f, 20.0f, -20.0f, 1e-3f, -1e-3f, 88.0f, -88.0f})
    v.push_back(e);
  return v;
}

std::vector<float> runOp(const std::string& op, aclDataType dt, const std::vector<std::vector<float>>& ins,
                         AttrMap a = {}) {
  const int64_t n = static_cast<int64_t>(ins[0].size());
  std::vector<HostTensor> ts;
  for (const auto& v : ins) ts.push_back(HostTensor::floats(dt, {n}, v));
  HostTensor y(dt, {n});
  OpCall c;
  c.op_type = op;
  for (const auto& t : ts) c.inputs.push_back(t.arg());
  c.outputs.push_back(y.arg());
  c.attrs = std::move(a);
  run(c);
  return y.toFloats();
}

std::vector<float> rounded(aclDataType dt, std::vector<float> v) {
  HostTensor t = HostTensor::floats(dt, {static_cast<int64_t>(v.size())}, v);
  return t.toFloats();
}

// fp32: relative 4e-6 (a few ulps of fp32 libm) + abs 1e-6 scaled by `scale`;
// fp16: one fp16 rounding of the double result plus fp32 slack.
void check(const std::string& what, aclDataType dt, const std::vector<float>& got, const std::vector<double>& want,
           double abs_scale = 1.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
      continue;
    }
    const double a = std::fabs(want[i]);
    double tol;
    if (dt == ACL_FLOAT16) {
      tol = (a < 6.103515625e-05 ? 5.960464477539063e-08 : std::ldexp(1.0, std::ilogb(a) - 10)) + 1e-5 * a + 1e-6;
    } else {
      tol = 4e-6 * a + 1e-6 * abs_scale;
    }
    ASSERT_LE(std::fabs(got[i] - want[i]), tol) << what << " " << dtypeName(dt) << " element " << i
                                                 << " want " << want[i] << " got " << got[i];
  }
}

void checkUnary(const std::string& op, const Ref1& ref, AttrMap a = {}) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const std::vector<float> x = rounded(dt, inputs());
    const std::vector<float> y = runOp(op, dt, {x}, a);
    std::vector<double> want;
    for (float v : x) want.push_back(ref(v));
    check(op, dt, y, want);
  }
}

void checkGrad(const std::string& op, const Ref1& deriv, AttrMap a = {}) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const std::vector<float> x = rounded(dt, inputs());
    const std::vector<float> g = rounded(dt, randomFloats(x.size(), -2.0f, 2.0f, 5));
    const std::vector<float> y = runOp(op, dt, {g, x}, a);
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) want.push_back(g[i] * deriv(x[i]));
    check(op, dt, y, want);
  }
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
const double kBeta = std::sqrt(2.0 / M_PI), kKappa = 0.044715;

TEST(KernelActivationExt, HardtanhAndGrad) {
  checkUnary("Hardtanh", [](double x) { return std::min(std::max(x, 0.0), 6.0); },
             attrs({{"min_val", 0.0f}, {"max_val", 6.0f}}));
  checkUnary("Hardtanh", [](double x) { return std::min(std::max(x, -1.0), 1.0); });
  // min_val > max_val: max_val everywhere (torch.clamp's order)
  checkUnary("Hardtanh", [](double x) { return std::min(std::max(x, 0.5), -0.5); },
             attrs({{"min_val", 0.5f}, {"max_val", -0.5f}}));
  checkGrad("HardtanhGrad", [](double x) { return x > -2.0 && x < 3.0 ? 1.0 : 0.0; },
            attrs({{"min_val", -2.0f}, {"max_val", 3.0f}}));
  // NaN propagates through Hardtanh.
  const auto y = runOp("Hardtanh", ACL_FLOAT, {{std::nanf("")}}, attrs({{"min_val", 0.0f}, {"max_val", 6.0f}}));
  EXPECT_TRUE(std::isnan(y[0]));
}

TEST(KernelActivationExt, HardSwishAndGrad) {
  checkUnary("HardSwish", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; });
  checkGrad("HardSwishGrad", [](double x) { return x < -3 ? 0.0 : (x <= 3 ? x / 3 + 0.5 : 1.0); });
}

TEST(KernelActivationExt, SwishAndGrad) {
  checkUnary("Swish", [](double x) { return x * sigmoid(x); });
  checkGrad("SwishGrad", [](double x) {
    const double s = sigmoid(x);
    return s * (1 + x * (1 - s));
  });
  // scale attr: x * sigmoid(2x)
  checkUnary("Swish", [](double x) { return x * sigmoid(2 * x); }, attrs({{"scale", 2.0f}}));
}

TEST(KernelActivationExt, GeluBothFormsAndGrads) {
  checkUnary("Gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  checkUnary("Gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); },
             attrs({{"approximate", std::string("none")}}));
  checkUnary("Gelu",
             [](double x) { return 0.5 * x * (1 + std::tanh(kBeta * (x + kKappa * x * x * x))); },
             attrs({{"approximate", std::string("tanh")}}));
  checkGrad("GeluGrad", [](double x) {
    return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
  });
  checkGrad("GeluGrad",
            [](double x) {
              const double t = std::tanh(kBeta * (x + kKappa * x * x * x));
              return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kBeta * (1 + 3 * kKappa * x * x);
            },
            attrs({{"approximate", std::string("tanh")}}));
  // Exact form: erff in fp32, bit for bit.
  const std::vector<float> x = inputs();
  const std::vector<float> y = runOp("Gelu", ACL_FLOAT, {x});
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = x[i] * 0.5f * (1.0f + std::erf(x[i] * 0.70710678118654752440f));
    ASSERT_EQ(std::memcmp(&want, &y[i], 4), 0) << i;
  }
}

TEST(KernelActivationExt, LeakyReluAndGrad) {
  checkUnary("LeakyRelu", [](double x) { return x > 0 ? x : x * static_cast<double>(0.2f); },
             attrs({{"negative_slope", 0.2f}}));
  checkGrad("LeakyReluGrad", [](double x) { return x > 0 ? 1.0 : static_cast<double>(0.2f); },
            attrs({{"negative_slope", 0.2f}}));
}

TEST(KernelActivationExt, ClipByValue) {
  const std::vector<float> x = {-5, -1, 0, 0.5f, 2, 7, std::nanf("")};
  HostTensor xt = HostTensor::floats(ACL_FLOAT, {7}, x);
  HostTensor lo = HostTensor::floats(ACL_FLOAT, {}, {-1.0f}), hi = HostTensor::floats(ACL_FLOAT, {}, {2.0f});
  HostTensor y(ACL_FLOAT, {7});
  OpCall c = makeCall("ClipByValue", {&xt, &lo, &hi}, {&y});
  c.inputs[1].placement = c.inputs[2].placement = ACL_MEMTYPE_HOST;
  run(c);
  const auto r = y.toFloats();
  const std::vector<float> want = {-1, -1, 0, 0.5f, 2, 2};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r[i], want[i]) << i;
  EXPECT_TRUE(std::isnan(r[6]));
  // min > max gives max (torch.clamp); integers
  HostTensor xi = HostTensor::ints(ACL_INT64, {4}, {-9, 0, 5, 100});
  HostTensor l2 = HostTensor::ints(ACL_INT64, {}, {3}), h2 = HostTensor::ints(ACL_INT64, {}, {1});
  HostTensor yi(ACL_INT64, {4});
  run(makeCall("ClipByValue", {&xi, &l2, &h2}, {&yi}));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{1, 1, 1, 1}));
  HostTensor l3 = HostTensor::ints(ACL_INT64, {}, {-2}), h3 = HostTensor::ints(ACL_INT64, {}, {50});
  run(makeCall("ClipByValue", {&xi, &l3, &h3}, {&yi}));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{-2, 0, 5, 50}));
  // fp16
  HostTensor xh = HostTensor::floats(ACL_FLOAT16, {7}, x), yh(ACL_FLOAT16, {7});
  HostTensor lh = HostTensor::floats(ACL_FLOAT16, {}, {-1.0f}), hh = HostTensor::floats(ACL_FLOAT16, {}, {2.0f});
  run(makeCall("ClipByValue", {&xh, &lh, &hh}, {&yh}));
  const auto rh = yh.toFloats();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(rh[i], want[i]) << i;
}

TEST(KernelActivationExt, AddcmulAddcdivBroadcast) {
  const std::vector<float> in = randomFloats(12, -2, 2, 1), a = randomFloats(4, -2, 2, 2), b = randomFloats(3, 0.5f, 2, 3);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor it = HostTensor::floats(dt, {3, 4}, in), at = HostTensor::floats(dt, {4}, a),
               bt = HostTensor::floats(dt, {3, 1}, b);
    const auto inr = it.toFloats(), ar = at.toFloats(), br = bt.toFloats();
    for (const char* op : {"Addcmul", "Addcdiv"}) {
      HostTensor y(dt, {3, 4});
      run(makeCall(op, {&it, &at, &bt}, {&y}, attrs({{"value", 0.5f}})));
      std::vector<double> want;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
          const double p = std::string(op) == "Addcmul" ? 0.5 * ar[j] * br[i] : 0.5 * ar[j] / br[i];
          want.push_back(inr[i * 4 + j] + p);
        }
      check(op, dt, y.toFloats(), want);
    }
  }
  // integer Addcmul, wrapping int64 math
  HostTensor ii = HostTensor::ints(ACL_INT32, {3}, {1, 2, 3}), i1 = HostTensor::ints(ACL_INT32, {3}, {4, 5, 6}),
             i2 = HostTensor::ints(ACL_INT32, {3}, {-1, 0, 2}), iy(ACL_INT32, {3});
  run(makeCall("Addcmul", {&ii, &i1, &i2}, {&iy}, attrs({{"value", 2.0f}})));
  EXPECT_EQ(iy.toInts(), (std::vector<int64_t>{-7, 2, 27}));
  EXPECT_KERNEL_ERROR(makeCall("Addcdiv", {&ii, &i1, &i2}, {&iy}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
}

TEST(KernelActivationExt, PrivateFormatsLikeND) {
  // Gelu(tanh) and LeakyReluGrad on NC1HWC0 equal the ND result bits, with zero pads.
  const Shape logical = {2, 19, 3, 5};
  const int64_t n = numelOf(logical);
  const std::vector<float> xv = randomFloats(static_cast<size_t>(n), -4, 4, 8);
  const std::vector<float> gv = randomFloats(static_cast<size_t>(n), -1, 1, 9);
  auto fmt = [&](const std::vector<float>& v) {
    Shape st;
    std::string err;
    EXPECT_TRUE(formatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, logical, &st, &err));
    HostTensor nd = HostTensor::floats(ACL_FLOAT, logical, v);
    auto t = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(numelOf(st)) * 4 + 1, 0xAB);
    TensorArg a;
    a.dtype = ACL_FLOAT;
    a.format = ACL_FORMAT_NC1HWC0;
    a.shape = st;
    a.origin_format = ACL_FORMAT_NCHW;
    a.origin_shape = logical;
    a.data = t->data();
    a.bytes = t->size() - 1;
    StorageMap m;
    EXPECT_TRUE(makeStorageMap(ACL_FORMAT_NC1HWC0, ACL_FLOAT, logical, &m, &err));
    std::vector<float> vals = nd.toFloats();
    // write logical values, keep 0xAB garbage in the pads of inputs
    forEachLogicalRow(logical, {&m}, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
      for (int64_t i = 0; i < len; ++i) static_cast<float*>(a.data)[base[0] + inner[0][i]] = vals[first + i];
    });
    return std::make_pair(a, t);
  };
  for (const char* op : {"Gelu", "LeakyReluGrad"}) {
    const bool grad = std::string(op) == "LeakyReluGrad";
    AttrMap am = grad ? attrs({{"negative_slope", 0.1f}}) : attrs({{"approximate", std::string("tanh")}});
    HostTensor xn = HostTensor::floats(ACL_FLOAT, logical, xv), gn = HostTensor::floats(ACL_FLOAT, logical, gv);
    HostTensor yn(ACL_FLOAT, logical);
    OpCall cn = grad ? makeCall(op, {&gn, &xn}, {&yn}, am) : makeCall(op, {&xn}, {&yn}, am);
    run(cn);
    auto x5 = fmt(xv), g5 = fmt(gv), y5 = fmt(std::vector<float>(static_cast<size_t>(n), 0));
    OpCall c5;
    c5.op_type = op;
    if (grad) c5.inputs.push_back(g5.first);
    c5.inputs.push_back(x5.first);
    c5.outputs.push_back(y5.first);
    c5.attrs = am;
    run(c5);
    StorageMap m;
    std::string err;
    ASSERT_TRUE(makeStorageMap(ACL_FORMAT_NC1HWC0, ACL_FLOAT, logical, &m, &err));
    std::vector<float> back(static_cast<size_t>(n));
    loadLogicalFloat(y5.first, m, back.data());
    EXPECT_EQ(std::memcmp(back.data(), yn.toFloats().data(), static_cast<size_t>(n) * 4), 0) << op;
    // pads zero
    std::vector<uint8_t> copy = *y5.second;
    TensorArg a = y5.first;
    a.data = copy.data();
    zeroPads(a, m);
    EXPECT_EQ(copy, *y5.second) << op << ": pads not zero";
  }
}

TEST(KernelActivationExt, ValidationErrors) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {4}, {1, 2, 3, 4}), y(ACL_FLOAT, {4}), yh(ACL_FLOAT16, {4});
  EXPECT_KERNEL_ERROR(makeCall("Gelu", {&x}, {&y}, attrs({{"approximate", std::string("erf")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'approximate' is \"erf\"; expected one of \"none\", \"tanh\"");
  EXPECT_KERNEL_ERROR(makeCall("Gelu", {&x}, {&yh}), ACL_ERROR_OP_INPUT_NOT_MATCH, "does not match");
  HostTensor xi = HostTensor::ints(ACL_INT32, {4}, {1, 2, 3, 4}), yi(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("HardSwish", {&xi}, {&yi}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x dtype int32");
  HostTensor x3 = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3});
  EXPECT_KERNEL_ERROR(makeCall("SwishGrad", {&x, &x3}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input x shape [3] does not broadcast to output shape [4]");
  EXPECT_KERNEL_ERROR(makeCall("LeakyRelu", {&x}, {&y}, attrs({{"negative_slope", std::string("a")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "negative_slope");
}

// ---- StatelessBernoulli --------------------------------------------------------------------

std::vector<float> bernoulli(aclDataType dt, int64_t n, float p, int64_t seed, int64_t offset) {
  HostTensor y(dt, {n});
  run(makeCall("StatelessBernoulli", {}, {&y}, attrs({{"p", p}, {"seed", seed}, {"offset", offset}})));
  return y.toFloats();
}

TEST(KernelActivationExt, BernoulliMatchesUniformStream) {
  const int64_t n = 10007;  // not a multiple of 4 or of the 4096 chunk
  HostTensor u(ACL_FLOAT, {n});
  run(makeCall("PhiloxRandomUniform", {}, {&u}, attrs({{"seed", int64_t{1234}}, {"offset", int64_t{8}}})));
  const auto uv = u.toFloats();
  for (aclDataType dt : {ACL_BOOL, ACL_FLOAT, ACL_FLOAT16, ACL_INT32}) {
    const auto b = bernoulli(dt, n, 0.3f, 1234, 8);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b[i], uv[i] < 0.3f ? 1.0f : 0.0f) << dtypeName(dt) << " " << i;
  }
  // Determinism, different seeds differ, frequency ~ p.
  const auto a1 = bernoulli(ACL_BOOL, n, 0.3f, 99, 0), a2 = bernoulli(ACL_BOOL, n, 0.3f, 99, 0);
  EXPECT_EQ(a1, a2);
  EXPECT_NE(a1, bernoulli(ACL_BOOL, n, 0.3f, 100, 0));
  EXPECT_NE(a1, bernoulli(ACL_BOOL, n, 0.3f, 99, 1));
  for (float p : {0.05f, 0.5f, 0.9f}) {
    const auto b = bernoulli(ACL_FLOAT, 200000, p, 7, 0);
    double s = 0;
    for (float v : b) s += v;
    const double freq = s / b.size();
    EXPECT_NEAR(freq, p, 5 * std::sqrt(p * (1 - p) / b.size())) << p;
  }
  for (float v : bernoulli(ACL_FLOAT, 1000, 0.0f, 1, 0)) ASSERT_EQ(v, 0.0f);
  for (float v : bernoulli(ACL_FLOAT, 1000, 1.0f, 1, 0)) ASSERT_EQ(v, 1.0f);
  HostTensor y(ACL_FLOAT, {4});
  EXPECT_KERNEL_ERROR(makeCall("StatelessBernoulli", {}, {&y}, attrs({{"p", 1.5f}, {"seed", int64_t{1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' must be in [0, 1]");
  EXPECT_KERNEL_ERROR(makeCall("StatelessBernoulli", {}, {&y}, attrs({{"p", 0.5f}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "missing required attribute 'seed'");
}

}  // namespace
