// The quantised kernels (Quantize, AscendQuantV2, TransQuantParamV2,
// QuantBatchMatmulV3, WeightQuantBatchMatmulV2) against references computed
// here from the formulas of Note [Quantize], Note [Quant params] and Note
// [Quantised products], and the int8 Cube rate in the cost model.
#include <cmath>
#include <cstring>

#include "cost/cost_model.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::vector<int64_t> randomInt8(size_t n, uint32_t seed) {
  std::vector<int64_t> v;
  for (float f : randomFloats(n, -128, 128, seed)) v.push_back(static_cast<int64_t>(std::floor(f)));
  return v;
}

TEST(KernelQuantize, DivideOrMultiplyPerChannelRoundHalfEvenAndClamp) {
  // x [2, 3, 2], per-channel along axis 1
  const std::vector<float> xv = {0.5f, 1.5f, -2.5f, 300.0f, 7.0f, -7.0f, 2.0f, 3.0f, -300.0f, 0.25f, 1.0f, 9.0f};
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 3, 2}, xv), s = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 0.5f}),
             z = HostTensor::floats(ACL_FLOAT, {3}, {0, 1, -1});
  HostTensor y(ACL_INT8, {2, 3, 2});
  run(makeCall("Quantize", {&x, &s, &z}, {&y}, attrs({{"axis", int64_t{1}}, {"dtype", ACL_INT8}})));
  std::vector<int64_t> want;
  const float sc[3] = {1, 2, 0.5f}, zp[3] = {0, 1, -1};
  for (size_t i = 0; i < xv.size(); ++i) {
    const size_t c = i / 2 % 3;
    want.push_back(static_cast<int64_t>(std::clamp(std::nearbyint(xv[i] / sc[c] + zp[c]), -128.0f, 127.0f)));
  }
  EXPECT_EQ(y.toInts(), want);
  EXPECT_EQ(want[0], 0);  // 0.5 rounds to even
  HostTensor ym(ACL_UINT8, {2, 3, 2});
  run(makeCall("AscendQuantV2", {&x, &s}, {&ym}, attrs({{"axis", int64_t{-2}}, {"dtype", ACL_UINT8}})));
  want.clear();
  for (size_t i = 0; i < xv.size(); ++i)
    want.push_back(static_cast<int64_t>(std::clamp(std::nearbyint(xv[i] * sc[i / 2 % 3]), 0.0f, 255.0f)));
  EXPECT_EQ(ym.toInts(), want);
  HostTensor bad = HostTensor::floats(ACL_FLOAT, {2}, {1, 2});
  EXPECT_KERNEL_ERROR(makeCall("Quantize", {&x, &bad}, {&y}, attrs({{"dtype", ACL_INT8}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [1] or [3]");
}

TEST(KernelTransQuantParam, PacksTheScaleAndANineBitOffset) {
  HostTensor s = HostTensor::floats(ACL_FLOAT, {3}, {0.1f, -2.0f, 1e-3f}),
             o = HostTensor::floats(ACL_FLOAT, {3}, {3.4f, -300.0f, 0.0f});
  HostTensor y(ACL_INT64, {3});
  run(makeCall("TransQuantParamV2", {&s, &o}, {&y}));
  const std::vector<int64_t> got = y.toInts();
  const float scales[3] = {0.1f, -2.0f, 1e-3f};
  const int64_t offsets[3] = {3, -256, 0};
  for (int i = 0; i < 3; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &scales[i], 4);
    const uint64_t want = (bits & 0xFFFFE000u) | ((static_cast<uint64_t>(offsets[i]) & 0x1FF) << 37) | (1ull << 46);
    EXPECT_EQ(static_cast<uint64_t>(got[i]), want) << i;
  }
}

TEST(KernelQuantBatchMatmul, IntegerProductsDequantisedOrRequantised) {
  const int64_t b = 2, m = 3, k = 40, n = 5;
  const std::vector<int64_t> av = randomInt8(b * m * k, 1), bv = randomInt8(k * n, 2), biasv = {100, -200, 0, 7, 5000};
  HostTensor x1 = HostTensor::ints(ACL_INT8, {b, m, k}, av), x2 = HostTensor::ints(ACL_INT8, {k, n}, bv),
             bias = HostTensor::ints(ACL_INT32, {n}, biasv);
  const std::vector<float> sv = {1e-3f, 2e-3f, 5e-4f, 1e-2f, 3e-3f}, pv = {1.0f, 0.5f, 2.0f};
  HostTensor scale = HostTensor::floats(ACL_FLOAT, {n}, sv), pertoken = HostTensor::floats(ACL_FLOAT, {m}, pv);
  std::vector<double> acc;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t s = biasv[j];
        for (int64_t t = 0; t < k; ++t) s += av[(bi * m + i) * k + t] * bv[t * n + j];
        acc.push_back(static_cast<double>(s));
      }
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    HostTensor y(dt, {b, m, n});
    run(makeCall("QuantBatchMatmulV3", {&x1, &x2, &scale, &bias, &pertoken}, {&y},
                 attrs({{"dtype", dt}, {"has_bias", true}, {"has_pertoken_scale", true}})));
    std::vector<double> want;
    for (size_t e = 0; e < acc.size(); ++e) want.push_back(acc[e] * sv[e % n] * pv[e / n % m]);
    const double rel = dt == ACL_FLOAT16 ? 1e-3 : 8e-3;
    expectNearReference(
        y.toFloats(), want, [rel](double r) { return rel * std::fabs(r) + 1e-6; }, "y");
  }
  // int8 output through packed quant params: the scale's 19 bits and the offset
  HostTensor packed(ACL_INT64, {n}), offset = HostTensor::floats(ACL_FLOAT, {n}, {1, -2, 0, 3, 0});
  run(makeCall("TransQuantParamV2", {&scale, &offset}, {&packed}));
  HostTensor y8(ACL_INT8, {b, m, n});
  run(makeCall("QuantBatchMatmulV3", {&x1, &x2, &packed, &bias}, {&y8},
               attrs({{"dtype", ACL_INT8}, {"has_bias", true}})));
  std::vector<int64_t> want8;
  for (size_t e = 0; e < acc.size(); ++e) {
    float s = sv[e % n];
    uint32_t bits;
    std::memcpy(&bits, &s, 4);
    bits &= 0xFFFFE000u;
    std::memcpy(&s, &bits, 4);
    const float off[5] = {1, -2, 0, 3, 0};
    want8.push_back(
        static_cast<int64_t>(std::clamp(std::nearbyint(static_cast<float>(acc[e]) * s + off[e % n]), -128.0f, 127.0f)));
  }
  EXPECT_EQ(y8.toInts(), want8);
}

TEST(KernelQuantBatchMatmul, Int8CubeRunsAtTwiceTheFp16Rate) {
  const int64_t m = 256, k = 1024, n = 512;
  HostTensor x1(ACL_INT8, {m, k}), x2(ACL_INT8, {k, n}), scale = HostTensor::floats(ACL_FLOAT, {1}, {1.0f});
  HostTensor y(ACL_FLOAT16, {m, n});
  const OpCall call = makeCall("QuantBatchMatmulV3", {&x1, &x2, &scale}, {&y}, attrs({{"dtype", ACL_FLOAT16}}));
  const KernelCost c = kernel("QuantBatchMatmulV3").cost(call);
  EXPECT_DOUBLE_EQ(c.cube_int8_macs, static_cast<double>(m * n * k));
  KernelCost fp16;
  fp16.core = CoreType::kAiCore;
  fp16.cube_macs = static_cast<double>(m * n * k);
  const CostModel model{ChipConfig{}};
  EXPECT_NEAR(model.cubeUs(c), model.cubeUs(fp16) / 2, 1e-9);
}

TEST(KernelWeightQuantBatchMatmul, DequantisesTheInt8WeightIntoTheCube) {
  const int64_t m = 4, k = 64, n = 6, group = 32;
  const std::vector<int64_t> wv = randomInt8(k * n, 3);
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    for (bool grouped : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (grouped ? " per group" : " per channel"));
      const int64_t rows = grouped ? k / group : 1;
      std::vector<float> xv = randomFloats(m * k, -1, 1, 4), sv = randomFloats(rows * n, 0.01f, 0.02f, 5),
                         ov = randomFloats(rows * n, -4, 4, 6), bv = randomFloats(n, -1, 1, 7);
      for (auto* v : {&xv, &sv, &ov, &bv})
        for (float& e : *v) e = roundTo(dt, e);
      const Shape sshape = grouped ? Shape{rows, n} : Shape{n};
      HostTensor x = HostTensor::floats(dt, {m, k}, xv), w = HostTensor::ints(ACL_INT8, {k, n}, wv),
                 s = HostTensor::floats(dt, sshape, sv), o = HostTensor::floats(dt, sshape, ov),
                 bias = HostTensor::floats(dt, {n}, bv), y(dt, {m, n});
      run(makeCall("WeightQuantBatchMatmulV2", {&x, &w, &s, &o, &bias}, {&y},
                   attrs({{"has_offset", true}, {"has_bias", true}, {"antiquant_group_size", grouped ? group : 0}})));
      std::vector<double> want;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = bv[j];
          for (int64_t t = 0; t < k; ++t) {
            const int64_t p = (grouped ? t / group : 0) * n + j;
            acc +=
                static_cast<double>(xv[i * k + t]) * roundTo(dt, (static_cast<float>(wv[t * n + j]) + ov[p]) * sv[p]);
          }
          want.push_back(acc);
        }
      const double rel = dt == ACL_FLOAT16 ? 2e-3 : 1e-2;
      expectNearReference(
          y.toFloats(), want, [rel](double r) { return rel * (std::fabs(r) + 0.1); }, "y");
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
