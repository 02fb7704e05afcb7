// cross_entropy (label smoothing, class weights, ignore_index),
// binary_cross_entropy (+weight) and binary_cross_entropy_with_logits
// (+weight, +pos_weight) forward and backward against the CPU, for every
// reduction, fp32 and fp16, on both format paths.
#include "npu_test_util.h"

#include "csrc/core/NPUFunctions.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

constexpr int64_t kReductions[] = {at::Reduction::None, at::Reduction::Mean, at::Reduction::Sum};

// A non-differentiated operand (target, weight) held on both devices; `on(x)`
// picks the copy on x's device. Floating values are rounded to `dtype` (the
// loss input's dtype): the NPU copy is in dtype, the CPU reference gets the
// same rounded values in fp32.
struct Constant {
  at::Tensor cpu, dev;
  explicit Constant(const at::Tensor& t, at::ScalarType dtype = at::kFloat) {
    const bool floating = at::isFloatingType(t.scalar_type());
    dev = (floating ? t.to(dtype) : t).to(npu());
    cpu = floating ? t.to(dtype).to(at::kFloat) : t;
  }
  at::Tensor on(const at::Tensor& like) const { return like.device() == npu() ? dev : cpu; }
};

// Losses are fp32 sums of per-element terms; fp16 results and gradients pass
// through an fp16 intermediate (e.g. log_softmax's output, the rounded
// per-element loss) and are rounded again: two fp16 roundings.
// binary_cross_entropy_with_logits' backward is PyTorch's composite formula
// ((pos_weight·y + 1 − y)·sigmoid(x) − pos_weight·y)·g·w, i.e. a chain of
// fp16 NPU ops: `half_roundings` = 4 for it. Its two terms reach 1 + pos_weight
// before they cancel, and each rounding errs relative to them, not to the small
// difference; the weight scales the error after that: a pos_weight case counts
// its roundings in units of (1 + max pos_weight) · max weight.
void expectLossMatches(const std::string& name, const TensorFn& fn, const at::Tensor& input,
                       double half_roundings = 2) {
  const auto dtype = input.scalar_type();
  SCOPED_TRACE(name + " " + c10::toString(dtype));
  forBothFormatModes([&](bool) {
    AutogradCheck check;
    check.rtol = dtype == at::kHalf ? half_roundings * torch_npu_test::kHalfRtol : 1e-4;
    check.atol = dtype == at::kHalf ? half_roundings * torch_npu_test::kHalfAtol : 1e-5;
    try {
      expectSameAutogradWith(fn, {input}, check);
      torch_npu::synchronize(0);  // device faults of this case surface here
    } catch (const c10::Error& e) {
      ADD_FAILURE() << e.what_without_backtrace();
    }
  });
}

// Label smoothing with reduction "mean" or "sum": PyTorch's composite would
// multiply by 0-d float64 factors; the NPU override keeps everything in the
// input's dtype (Note [cross_entropy on the NPU]) and must match the CPU.
void expectSmoothedReducedLossBackward(const TensorFn& fn, const at::Tensor& input) {
  const at::Tensor x = input.to(at::kFloat);
  at::Tensor cpu_leaf = x.clone().requires_grad_(), npu_leaf = x.to(npu()).requires_grad_();
  at::Tensor cpu_loss = fn({cpu_leaf}), npu_loss = fn({npu_leaf});
  torch_npu_test::expectClose(npu_loss, cpu_loss.detach(), 1e-4, 1e-5);
  cpu_loss.backward();
  npu_loss.backward();
  torch_npu_test::expectClose(npu_leaf.grad(), cpu_leaf.grad(), 1e-4, 1e-5);
}

std::string reductionName(int64_t r) { return r == 0 ? " none" : r == 1 ? " mean" : " sum"; }

}  // namespace

TEST(NpuLossExt, CrossEntropyLabelSmoothingAndWeights) {
  const Constant target(at::randint(0, 19, {33}, at::kLong));
  const Constant ignored(target.cpu.index_fill(0, at::arange(0, 33, 5), -100));
  const at::Tensor class_weight = at::rand({19}).add(0.2);
  for (auto dtype : floatAndHalf()) {
    const Constant weight(class_weight, dtype);
    const at::Tensor logits = at::randn({33, 19}).mul(2).to(dtype);
    for (int64_t r : kReductions) {
      for (double smoothing : {0.0, 0.15}) {
        const std::string tag = reductionName(r) + " smoothing " + std::to_string(smoothing);
        const std::vector<std::pair<std::string, TensorFn>> variants = {
            {"cross_entropy" + tag,
             [&](const auto& in) { return at::cross_entropy_loss(in[0], target.on(in[0]), {}, r, -100, smoothing); }},
            {"cross_entropy weighted" + tag,
             [&](const auto& in) {
               return at::cross_entropy_loss(in[0], target.on(in[0]), weight.on(in[0]), r, -100, smoothing);
             }},
            {"cross_entropy ignore_index" + tag, [&](const auto& in) {
               return at::cross_entropy_loss(in[0], ignored.on(in[0]), weight.on(in[0]), r, -100, smoothing);
             }}};
        for (const auto& [name, fn] : variants) {
          if (smoothing > 0 && r != at::Reduction::None) {
            SCOPED_TRACE(name);
            if (dtype == at::kFloat) expectSmoothedReducedLossBackward(fn, logits);
            continue;
          }
          expectLossMatches(name, fn, logits);
        }
      }
    }
  }
}

TEST(NpuLossExt, BinaryCrossEntropy) {
  const at::Tensor target_values = at::rand({7, 19}), weight_values = at::rand({7, 19}).add(0.5);
  const Constant row_weight(at::rand({19}));
  for (auto dtype : floatAndHalf()) {
    const Constant target(target_values, dtype), weight(weight_values, dtype);
    // Probabilities away from 0 and 1 (the CPU clamps log at -100 too).
    const at::Tensor probs = at::rand({7, 19}).mul(0.9).add(0.05).to(dtype);
    for (int64_t r : kReductions) {
      expectLossMatches("bce" + reductionName(r), [&](const auto& in) {
        return at::binary_cross_entropy(in[0], target.on(in[0]), {}, r);
      }, probs);
      expectLossMatches("bce weighted" + reductionName(r), [&](const auto& in) {
        return at::binary_cross_entropy(in[0], target.on(in[0]), weight.on(in[0]), r);
      }, probs);
    }
  }
  const Constant target(target_values);
  // A weight broadcast over rows and hard 0/1 targets at the extremes.
  const Constant hard(at::randint(0, 2, {7, 19}).to(at::kFloat));
  expectLossMatches("bce broadcast weight", [&](const auto& in) {
    return at::binary_cross_entropy(in[0], hard.on(in[0]), row_weight.on(in[0]), at::Reduction::Mean);
  }, at::rand({7, 19}).mul(0.98).add(0.01));
  EXPECT_THROW_WITH(at::binary_cross_entropy(at::rand({7, 19}).to(npu()), at::rand({7, 18}).to(npu())),
                    "different to the input size");
}

TEST(NpuLossExt, BinaryCrossEntropyWithLogits) {
  const at::Tensor target_values = at::rand({7, 19}), weight_values = at::rand({7, 19}).add(0.5);
  const at::Tensor pos_weight_values = at::rand({19}).mul(3);
  const double cancelling = 4 * (1 + pos_weight_values.max().item<double>()) * weight_values.max().item<double>();
  for (auto dtype : floatAndHalf()) {
    const Constant target(target_values, dtype), weight(weight_values, dtype), pos_weight(pos_weight_values, dtype);
    const at::Tensor logits = at::randn({7, 19}).mul(4).to(dtype);
    for (int64_t r : kReductions) {
      const std::string tag = reductionName(r);
      expectLossMatches("bce_logits" + tag, [&](const auto& in) {
        return at::binary_cross_entropy_with_logits(in[0], target.on(in[0]), {}, {}, r);
      }, logits, 4);
      expectLossMatches("bce_logits weight" + tag, [&](const auto& in) {
        return at::binary_cross_entropy_with_logits(in[0], target.on(in[0]), weight.on(in[0]), {}, r);
      }, logits, 4);
      expectLossMatches(
          "bce_logits pos_weight" + tag,
          [&](const auto& in) {
            return at::binary_cross_entropy_with_logits(in[0], target.on(in[0]), {}, pos_weight.on(in[0]), r);
          },
          logits, cancelling);
      expectLossMatches(
          "bce_logits weight and pos_weight" + tag,
          [&](const auto& in) {
            return at::binary_cross_entropy_with_logits(in[0], target.on(in[0]), weight.on(in[0]), pos_weight.on(in[0]),
                                                        r);
          },
          logits, cancelling);
    }
  }
  const Constant target(target_values);
  // Large logits stay finite (log-sum-exp form).
  expectLossMatches("bce_logits large", [&](const auto& in) {
    return at::binary_cross_entropy_with_logits(in[0], target.on(in[0]), {}, {}, at::Reduction::None);
  }, at::randn({7, 19}).mul(60));
  EXPECT_THROW_WITH(at::binary_cross_entropy_with_logits(at::rand({7, 19}).to(npu()), at::rand({19}).to(npu())),
                    "must be the same as input size");
}
