// CTCLossV2 / CTCLossV2Grad against a brute-force double reference: every
// alignment (C^T label paths) is enumerated and collapsed (repeats merged,
// blanks dropped), so the reference shares nothing with the kernel's alpha /
// beta recursions. Targets padded [N, S] and concatenated 1-D, repeated
// labels, empty targets, short input lengths, impossible alignments (inf,
// zero_infinity), fp32 and fp16, faults and validation errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

constexpr int64_t kT = 5, kN = 4, kC = 3, kBlank = 0;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Batch b's labels: 2, 1 1 (a repeat needs a blank between), none, 1 2 2 1 (too long for its input length).
const std::vector<std::vector<int64_t>> kTargets = {{2}, {1, 1}, {}, {1, 2, 2, 1}};
const std::vector<int64_t> kInputLengths = {5, 4, 3, 3};

// The labels an alignment path stands for: repeats merged, then blanks dropped.
std::vector<int64_t> collapse(const std::vector<int64_t>& path) {
  std::vector<int64_t> out;
  for (size_t t = 0; t < path.size(); ++t)
    if (path[t] != kBlank && (t == 0 || path[t] != path[t - 1])) out.push_back(path[t]);
  return out;
}

// For batch b: the probability of its target (summed over every path of
// length il) and, per (t, c), the probability mass of the paths through c at t.
struct BruteForce {
  double prob = 0;
  std::vector<double> through;  // [T][C]
};

BruteForce bruteForce(const std::vector<float>& lp, int64_t b) {
  const int64_t il = kInputLengths[b];
  BruteForce r;
  r.through.assign(kT * kC, 0);
  int64_t paths = 1;
  for (int64_t t = 0; t < il; ++t) paths *= kC;
  for (int64_t code = 0; code < paths; ++code) {
    std::vector<int64_t> path;
    double logp = 0;
    for (int64_t t = 0, k = code; t < il; ++t, k /= kC) {
      path.push_back(k % kC);
      logp += lp[(t * kN + b) * kC + path.back()];
    }
    if (collapse(path) != kTargets[b]) continue;
    r.prob += std::exp(logp);
    for (int64_t t = 0; t < il; ++t) r.through[t * kC + path[t]] += std::exp(logp);
  }
  return r;
}

// Log-softmax rows of random logits, rounded to dt: [T, N, C].
std::vector<float> logProbs(aclDataType dt) {
  const std::vector<float> logits = randomFloats(kT * kN * kC, -2, 2, 7);
  std::vector<float> lp(logits.size());
  for (int64_t row = 0; row < kT * kN; ++row) {
    double sum = 0;
    for (int64_t c = 0; c < kC; ++c) sum += std::exp(logits[row * kC + c]);
    for (int64_t c = 0; c < kC; ++c) lp[row * kC + c] = static_cast<float>(logits[row * kC + c] - std::log(sum));
  }
  return roundedTo(dt, lp);
}

struct Targets {
  HostTensor targets, input_lengths, target_lengths;
};

Targets targets(bool padded) {
  std::vector<int64_t> flat, lengths;
  for (const auto& t : kTargets) {
    lengths.push_back(static_cast<int64_t>(t.size()));
    for (int64_t i = 0; i < (padded ? 4 : static_cast<int64_t>(t.size())); ++i)
      flat.push_back(i < static_cast<int64_t>(t.size()) ? t[i] : 1);  // padding is never read
  }
  const Shape shape = padded ? Shape{kN, 4} : Shape{static_cast<int64_t>(flat.size())};
  return {HostTensor::ints(ACL_INT64, shape, flat), HostTensor::ints(ACL_INT32, {kN}, kInputLengths),
          HostTensor::ints(ACL_INT64, {kN}, lengths)};
}

}  // namespace

TEST(KernelCtcLoss, ForwardMatchesEveryAlignment) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool padded : {true, false}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (padded ? " padded" : " concatenated"));
      const std::vector<float> lpv = logProbs(dt);
      HostTensor lp = HostTensor::floats(dt, {kT, kN, kC}, lpv);
      Targets tg = targets(padded);
      HostTensor nll(dt, {kN}), alpha(dt, {kN, kT, 9});
      run(makeCall("CTCLossV2", {&lp, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha},
                   attrs({{"blank", int64_t{0}}})));
      std::vector<double> want;
      for (int64_t b = 0; b < kN; ++b) {
        const double p = bruteForce(lpv, b).prob;
        want.push_back(p == 0 ? kInf : -std::log(p));
      }
      EXPECT_TRUE(std::isinf(want[3]));  // the case is meant to be impossible
      expectNear(dt, nll.toFloats(), want, 1, 2);
      // log_alpha beyond each input length (and beyond 2L + 1) is -inf
      const std::vector<float> a = alpha.toFloats();
      EXPECT_EQ(a[(0 * kT + 4) * 9 + 3], -std::numeric_limits<float>::infinity());  // b 0 has 3 extended symbols
      EXPECT_EQ(a[(1 * kT + 4) * 9 + 0], -std::numeric_limits<float>::infinity());  // b 1 stops at t = 3
    }
}

TEST(KernelCtcLoss, GradientIsSoftmaxMinusAlignmentOccupancy) {
  // PyTorch's convention: the gradient w.r.t. log_probs is the one w.r.t.
  // the logits under log_softmax, exp(lp) - P(paths through (t, c) | target).
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool zero_infinity : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + (zero_infinity ? " zero_infinity" : ""));
      const std::vector<float> lpv = logProbs(dt);
      HostTensor lp = HostTensor::floats(dt, {kT, kN, kC}, lpv);
      Targets tg = targets(true);
      HostTensor nll(dt, {kN}), alpha(dt, {kN, kT, 9});
      run(makeCall("CTCLossV2", {&lp, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha},
                   attrs({{"blank", int64_t{0}}})));
      const std::vector<float> gv = roundedTo(dt, {1.5f, -0.5f, 2.0f, 1.0f});
      HostTensor g = HostTensor::floats(dt, {kN}, gv), dlp(dt, {kT, kN, kC});
      run(makeCall("CTCLossV2Grad", {&g, &lp, &tg.targets, &tg.input_lengths, &tg.target_lengths, &nll}, {&dlp},
                   attrs({{"blank", int64_t{0}}, {"zero_infinity", zero_infinity}})));
      // The kernel normalises by the nll it is given (rounded to dt), as the reference does here.
      const std::vector<float> nll_in = nll.toFloats();
      std::vector<double> want(kT * kN * kC, 0);
      for (int64_t b = 0; b < kN; ++b) {
        const BruteForce r = bruteForce(lpv, b);
        if (r.prob == 0 && zero_infinity) continue;
        for (int64_t t = 0; t < kInputLengths[b]; ++t)
          for (int64_t c = 0; c < kC; ++c) {
            const double occupancy = r.prob == 0 ? std::nan("") : r.through[t * kC + c] * std::exp(nll_in[b]);
            want[(t * kN + b) * kC + c] = (std::exp(lpv[(t * kN + b) * kC + c]) - occupancy) * gv[b];
          }
      }
      if (!zero_infinity) {  // batch 3 (impossible): exp(lp - inf)... is NaN on the CPU too; skip it here
        for (int64_t t = 0; t < kT; ++t)
          for (int64_t c = 0; c < kC; ++c) want[(t * kN + 3) * kC + c] = 0;
        std::vector<float> got = dlp.toFloats();
        for (int64_t t = 0; t < kT; ++t)
          for (int64_t c = 0; c < kC; ++c) got[(t * kN + 3) * kC + c] = 0;
        expectNear(dt, got, want, 2, 4);
      } else {
        expectNear(dt, dlp.toFloats(), want, 2, 4);
      }
    }
}

TEST(KernelCtcLoss, FaultsAndValidation) {
  HostTensor lp = HostTensor::floats(ACL_FLOAT, {kT, kN, kC}, logProbs(ACL_FLOAT));
  Targets tg = targets(true);
  HostTensor nll(ACL_FLOAT, {kN}), alpha(ACL_FLOAT, {kN, kT, 9});
  const AttrMap a = attrs({{"blank", int64_t{0}}});
  HostTensor bad_label = HostTensor::ints(ACL_INT64, {kN, 4}, std::vector<int64_t>(kN * 4, 3));
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp, &bad_label, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha}, a),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "target 3 of batch 0 is outside [0, 3)");
  HostTensor long_input = HostTensor::ints(ACL_INT64, {kN}, {6, 1, 1, 1});
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp, &tg.targets, &long_input, &tg.target_lengths}, {&nll, &alpha}, a),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "input_lengths[0] = 6 is outside [0, 5]");
  HostTensor few_lengths = HostTensor::ints(ACL_INT64, {kN - 1}, {1, 1, 1});
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp, &tg.targets, &few_lengths, &tg.target_lengths}, {&nll, &alpha}, a),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "one value per batch element");
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha},
                               attrs({{"blank", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "'blank' 3 must be in [0, 3)");
  HostTensor narrow(ACL_FLOAT, {kN, kT, 7});  // the longest target needs 2·4 + 1 symbols
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &narrow}, a),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "too narrow");
  HostTensor lp2 = HostTensor::floats(ACL_FLOAT, {kT, kN * kC}, logProbs(ACL_FLOAT));
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp2, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha}, a),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be [T, N, C]");
  HostTensor lp_int = HostTensor::ints(ACL_INT32, {kT, kN, kC}, std::vector<int64_t>(kT * kN * kC, 0));
  EXPECT_KERNEL_ERROR(makeCall("CTCLossV2", {&lp_int, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha}, a),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "log_probs");
}

TEST(KernelCtcLoss, RunsOnTheAiCpu) {
  HostTensor lp = HostTensor::floats(ACL_FLOAT, {kT, kN, kC}, logProbs(ACL_FLOAT));
  Targets tg = targets(true);
  HostTensor nll(ACL_FLOAT, {kN}), alpha(ACL_FLOAT, {kN, kT, 9});
  const OpCall call = makeCall("CTCLossV2", {&lp, &tg.targets, &tg.input_lengths, &tg.target_lengths}, {&nll, &alpha},
                               attrs({{"blank", int64_t{0}}}));
  const KernelCost c = kernel("CTCLossV2").cost(call);
  EXPECT_EQ(c.core, CoreType::kAiCpu);
  EXPECT_GT(c.flops, 0);
  EXPECT_GT(c.mte_bytes, 0);
}
