// torch_npu's int8 ops (csrc/aten/linalg/QuantOps.cpp) on the NPU against CPU
// compositions written here; one kernel each; the int8 product's simulated
// time against the fp16 one; argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Opt = c10::optional<at::Tensor>;

const auto& quantize() {
  static const auto op =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const Opt&, at::ScalarType, int64_t, bool)>(
          "npu::npu_quantize");
  return op;
}
const auto& transQuantParam() {
  static const auto op = npuOp<at::Tensor(const at::Tensor&, const Opt&)>("npu::npu_trans_quant_param");
  return op;
}
const auto& quantMatmul() {
  static const auto op =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const Opt&, const Opt&, const Opt&,
                       c10::optional<at::ScalarType>)>("npu::npu_quant_matmul");
  return op;
}
const auto& weightQuantMatmul() {
  static const auto op =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const Opt&, const Opt&, const Opt&,
                       const Opt&, int64_t)>("npu::npu_weight_quant_batchmatmul");
  return op;
}

at::Tensor randomInt8(at::IntArrayRef shape) { return at::randint(-128, 128, shape, at::kChar); }

// The simulated time of the ops recorded so far [us].
double recordedUs() {
  double us = 0;
  for (const auto& r : torch_npu::sim::taskRecords(0)) us += r.duration_us;
  return us;
}

}  // namespace

TEST(QuantOps, QuantizeDividesOrMultipliesPerChannel) {
  const at::Tensor x = at::randn({4, 3, 5}) * 20, scales = at::tensor({0.5f, 1.0f, 2.0f}),
                   zero = at::tensor({0.0f, 3.0f, -2.0f});
  const at::Tensor s = scales.view({1, 3, 1}), z = zero.view({1, 3, 1});
  const at::Tensor div = quantize().call(x.to(npu()), scales.to(npu()), zero.to(npu()), at::kQInt8, 1, true);
  EXPECT_EQ(div.scalar_type(), at::kChar);
  EXPECT_TRUE(at::equal(div.cpu(), at::clamp(at::round(x / s + z), -128, 127).to(at::kChar)));
  const at::Tensor mul = quantize().call(x.to(npu()), scales.to(npu()), c10::nullopt, at::kQUInt8, 1, false);
  EXPECT_TRUE(at::equal(mul.cpu(), at::clamp(at::round(x * s), 0, 255).to(at::kByte)));
  EXPECT_THROW_WITH(quantize().call(x.to(npu()), at::ones({4}).to(npu()), c10::nullopt, at::kQInt8, 1, true),
                    "npu_quantize: scales must have 1 or 3");
  EXPECT_THROW_WITH(quantize().call(x.to(npu()), scales.to(npu()), c10::nullopt, at::kFloat, 1, true),
                    "dtype must be torch.qint8");
}

TEST(QuantOps, QuantMatmulDequantisesAndRequantisesTheIntegerProduct) {
  const at::Tensor x1 = randomInt8({2, 5, 48}), x2 = randomInt8({48, 7});
  const at::Tensor scale = at::rand({7}) * 1e-3, bias = at::randint(-500, 500, {7}, at::kInt);
  const at::Tensor acc = at::matmul(x1.to(at::kLong), x2.to(at::kLong)) + bias;  // exact
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor pertoken = at::rand({5}) + 0.5;
    const at::Tensor y = quantMatmul().call(x1.to(npu()), x2.to(npu()), scale.to(npu()), c10::nullopt,
                                            pertoken.to(npu()), bias.to(npu()), dtype);
    const at::Tensor want = acc.to(at::kFloat) * scale * pertoken.unsqueeze(1);
    expectClose(y.cpu().to(at::kFloat), want, dtype == at::kHalf ? 1e-3 : 8e-3, 1e-3);
  }
  // int8 out through npu_trans_quant_param: the hardware's 19-bit scale and a 9-bit offset
  const at::Tensor offset = at::tensor({2.0f});
  const at::Tensor packed = transQuantParam().call(scale.to(npu()), offset.to(npu()));
  EXPECT_EQ(packed.scalar_type(), at::kLong);
  const at::Tensor y8 =
      quantMatmul().call(x1.to(npu()), x2.to(npu()), packed, c10::nullopt, c10::nullopt, bias.to(npu()), c10::nullopt);
  const at::Tensor scale19 = at::bitwise_and(scale.view(at::kInt), static_cast<int32_t>(0xFFFFE000)).view(at::kFloat);
  const at::Tensor want8 = at::clamp(at::round(acc.to(at::kFloat) * scale19 + 2.0), -128, 127).to(at::kChar);
  EXPECT_TRUE(at::equal(y8.cpu(), want8));
}

TEST(QuantOps, WeightQuantBatchMatmulMatchesTheDequantisedWeight) {
  const at::Tensor x = at::randn({6, 64}).to(at::kHalf), w = randomInt8({64, 10});
  const at::Tensor scale = (at::rand({10}) * 0.02).to(at::kHalf), offset = at::randn({10}).to(at::kHalf);
  const at::Tensor y = weightQuantMatmul().call(x.to(npu()), w.to(npu()), scale.to(npu()), offset.to(npu()),
                                                c10::nullopt, c10::nullopt, c10::nullopt, 0);
  const at::Tensor deq = ((w.to(at::kFloat) + offset.to(at::kFloat)) * scale.to(at::kFloat)).to(at::kHalf);
  expectClose(y.cpu().to(at::kFloat), at::matmul(x.to(at::kFloat), deq.to(at::kFloat)), 2e-3, 2e-3);
  EXPECT_THROW_WITH(weightQuantMatmul().call(x.to(npu()), w.to(npu()), scale.to(npu()), c10::nullopt, scale.to(npu()),
                                             c10::nullopt, c10::nullopt, 0),
                    "quant_scale / quant_offset (an int8 output) are not supported by the NPU backend");
}

TEST(QuantOps, TheInt8ProductIsOneKernelAtTwiceTheFp16Rate) {
  // The simulated time a product adds when K doubles (the launch's fixed cost cancels): int8 about half fp16's.
  const int64_t m = 512, n = 1024;
  const at::Tensor scale = at::full({1}, 1e-3).to(npu());
  std::vector<double> int8_us, fp16_us;
  for (int64_t k : {1024, 2048}) {
    const at::Tensor x1 = randomInt8({m, k}).to(npu()), x2 = randomInt8({k, n}).to(npu());
    const at::Tensor a = at::randn({m, k}).to(at::kHalf).to(npu()), b = at::randn({k, n}).to(at::kHalf).to(npu());
    {
      OpRecorder rec;
      quantMatmul().call(x1, x2, scale, c10::nullopt, c10::nullopt, c10::nullopt, at::kHalf);
      EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"QuantBatchMatmulV3"});
      int8_us.push_back(recordedUs());
    }
    {
      OpRecorder rec;
      at::mm(a, b);
      EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"MatMul"});
      fp16_us.push_back(recordedUs());
    }
  }
  const double int8_step = int8_us[1] - int8_us[0], fp16_step = fp16_us[1] - fp16_us[0];
  EXPECT_NEAR(int8_step / fp16_step, 0.5, 0.05) << int8_step << " us vs " << fp16_step << " us";
  EXPECT_THROW_WITH(quantMatmul().call(at::ones({2, 2}).to(npu()), randomInt8({2, 2}).to(npu()), scale, c10::nullopt,
                                       c10::nullopt, c10::nullopt, at::kHalf),
                    "npu_quant_matmul: x1 and x2 must be int8");
}
