// CTCLossV2 and CTCLossV2Grad (OPS.md "Pointwise math and activations" —
// losses), AI CPU ops: the connectionist temporal classification loss of
// Graves et al. by the forward (alpha) and backward (beta) recursions.
//
// Note [CTC recursions]
// log_probs [T, N, C] (log-softmax outputs), targets either [N, S] (padded)
// or 1-D (all targets concatenated), input_lengths / target_lengths [N]
// (int32/int64). For batch b with target l (length L) the extended target
// l' has 2L + 1 symbols (blank, l1, blank, l2, ..., blank). In log space, per
// PyTorch's CPU kernel:
//   alpha[0][0] = lp[0][blank], alpha[0][1] = lp[0][l1] (if L > 0), else -inf;
//   alpha[t][s] = lse(alpha[t-1][s], alpha[t-1][s-1], alpha[t-1][s-2]) + lp[t][l'_s]
//     where the s-2 term counts only if l'_s != l'_{s-2} (not a blank, not a repeat);
//   nll = -lse(alpha[I-1][2L], alpha[I-1][2L-1])   (I = input length; L = 0: -alpha[I-1][0]).
// log_alpha is written for every t < T (-inf beyond the input length).
// The gradient w.r.t. log_probs, for t < I:
//   grad[t][c] = (exp(lp[t][c]) - exp(lse_{s: l'_s = c}(alpha[t][s] + beta[t][s]) + nll - lp[t][c])) * g
// (0 for t >= I; with zero_infinity, 0 for a batch whose nll is inf), where
// beta runs the mirror recursion from the end. Everything is computed in
// double and rounded once to the output dtype, so the result does not depend
// on summation order within the recursions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double logAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

struct CtcProblem {
  int64_t T = 0, N = 0, C = 0, max_target = 0;
  int64_t blank = 0;
  std::vector<int64_t> input_lengths, target_lengths, offsets, targets;
  std::vector<double> lp;  // [T][N][C]

  double logProb(int64_t t, int64_t b, int64_t c) const { return lp[(t * N + b) * C + c]; }
  // Symbol s of batch b's extended target.
  int64_t prime(int64_t b, int64_t s) const { return s % 2 == 0 ? blank : targets[offsets[b] + s / 2]; }
};

void checkLengths(const OpCall& call, const CtcProblem& p, int64_t target_len_2d) {
  for (int64_t b = 0; b < p.N; ++b) {
    const int64_t il = p.input_lengths[b], tl = p.target_lengths[b];
    if (il < 0 || il > p.T)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "input_lengths[" + std::to_string(b) + "] = " + std::to_string(il) + " is outside [0, " +
               std::to_string(p.T) + "]");
    if (tl < 0 || (target_len_2d >= 0 && tl > target_len_2d))
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "target_lengths[" + std::to_string(b) + "] = " + std::to_string(tl) + " is out of range");
  }
  for (int64_t b = 0; b < p.N; ++b)
    for (int64_t i = 0; i < p.target_lengths[b]; ++i) {
      const int64_t c = p.targets[p.offsets[b] + i];
      if (c < 0 || c >= p.C)
        fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
             "target " + std::to_string(c) + " of batch " + std::to_string(b) + " is outside [0, " +
                 std::to_string(p.C) + ")");
    }
}

// Reads inputs 0..3 (log_probs, targets, input_lengths, target_lengths).
CtcProblem loadProblem(const OpCall& call) {
  const TensorArg &lp = call.inputs[0], &targets = call.inputs[1];
  CtcProblem p;
  p.T = lp.shape[0];
  p.N = lp.shape[1];
  p.C = lp.shape[2];
  p.blank = attrInt(call, "blank", 0);
  p.input_lengths = loadIndices(call.inputs[2]);
  p.target_lengths = loadIndices(call.inputs[3]);
  p.targets = loadIndices(targets);
  const bool padded = targets.shape.size() == 2;
  int64_t running = 0;
  for (int64_t b = 0; b < p.N; ++b) {
    p.offsets.push_back(padded ? b * targets.shape[1] : running);
    running += p.target_lengths[b];
    p.max_target = std::max(p.max_target, p.target_lengths[b]);
  }
  checkLengths(call, p, padded ? targets.shape[1] : -1);
  if (!padded && running > targets.numel())
    fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
         "the target lengths add up to " + std::to_string(running) + " but targets holds " +
             std::to_string(targets.numel()));
  std::vector<float> buf(static_cast<size_t>(lp.numel()));
  loadFloat(lp.dtype, lp.data, 0, 1, lp.numel(), buf.data());
  p.lp.assign(buf.begin(), buf.end());
  return p;
}

// alpha (forward=true) or beta for batch b: [T][2L+1] in log space.
std::vector<double> recursion(const CtcProblem& p, int64_t b, bool forward) {
  const int64_t il = p.input_lengths[b], S = 2 * p.target_lengths[b] + 1;
  std::vector<double> a(static_cast<size_t>(p.T * S), kNegInf);
  if (il == 0) return a;
  const int64_t t0 = forward ? 0 : il - 1;
  const int64_t s0 = forward ? 0 : S - 1;
  a[t0 * S + s0] = p.logProb(t0, b, p.prime(b, s0));
  if (S > 1) a[t0 * S + (forward ? 1 : S - 2)] = p.logProb(t0, b, p.prime(b, forward ? 1 : S - 2));
  for (int64_t step = 1; step < il; ++step) {
    const int64_t t = forward ? step : il - 1 - step, prev = forward ? t - 1 : t + 1;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t d = forward ? -1 : 1;  // the neighbours the path comes from
      double acc = a[prev * S + s];
      const int64_t s1 = s + d, s2 = s + 2 * d;
      if (s1 >= 0 && s1 < S) acc = logAdd(acc, a[prev * S + s1]);
      if (s2 >= 0 && s2 < S && p.prime(b, s) != p.prime(b, s2)) acc = logAdd(acc, a[prev * S + s2]);
      a[t * S + s] = acc == kNegInf ? kNegInf : acc + p.logProb(t, b, p.prime(b, s));
    }
  }
  return a;
}

double negLogLikelihood(const CtcProblem& p, int64_t b, const std::vector<double>& alpha) {
  const int64_t il = p.input_lengths[b], L = p.target_lengths[b], S = 2 * L + 1;
  if (il == 0) return L == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  const double ll = L == 0 ? alpha[(il - 1) * S] : logAdd(alpha[(il - 1) * S + 2 * L], alpha[(il - 1) * S + 2 * L - 1]);
  return -ll;
}

void checkCommon(const OpCall& call, size_t num_in, size_t num_out) {
  checkArity(call, num_in, num_in, num_out);
  const TensorArg& lp = call.inputs[0];
  checkDtype(call, lp, "input log_probs", kFloatTypes);
  if (lp.shape.size() != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input log_probs shape " + shapeToString(lp.shape) + " must be [T, N, C]");
  checkDtype(call, call.inputs[1], "input targets", kIndexTypes);
  checkDtype(call, call.inputs[2], "input input_lengths", kIndexTypes);
  checkDtype(call, call.inputs[3], "input target_lengths", kIndexTypes);
  if (call.inputs[2].numel() != lp.shape[1] || call.inputs[3].numel() != lp.shape[1])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input_lengths and target_lengths must hold one value per batch element (" +
                                                 std::to_string(lp.shape[1]) + ")");
  const int64_t blank = attrInt(call, "blank", 0);
  if (blank < 0 || blank >= lp.shape[2])
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'blank' " + std::to_string(blank) + " must be in [0, " +
                                                std::to_string(lp.shape[2]) + ")");
}

// inputs: log_probs, targets, input_lengths, target_lengths; outputs: nll [N], log_alpha [N, T, S_max].
void validateCtcLoss(const OpCall& call) {
  checkCommon(call, 4, 2);
  const TensorArg &lp = call.inputs[0], &nll = call.outputs[0], &alpha = call.outputs[1];
  checkSameDtype(call, lp, "log_probs", nll, "output neg_log_likelihood");
  checkSameDtype(call, lp, "log_probs", alpha, "output log_alpha");
  checkShapeEq(call, nll, "output neg_log_likelihood", {lp.shape[1]}, "[N]");
  if (alpha.shape.size() != 3 || alpha.shape[0] != lp.shape[1] || alpha.shape[1] != lp.shape[0])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output log_alpha shape " + shapeToString(alpha.shape) +
                                                 " must be [N, T, 2 * max target length + 1]");
}

void computeCtcLoss(const OpCall& call) {
  const CtcProblem p = loadProblem(call);
  const TensorArg &nll_out = call.outputs[0], &alpha_out = call.outputs[1];
  const int64_t width = alpha_out.shape[2];
  if (2 * p.max_target + 1 > width)
    fail(call, ACL_ERROR_RT_AICORE_EXCEPTION, "output log_alpha is too narrow for the longest target");
  std::vector<float> nll(static_cast<size_t>(p.N)), row(static_cast<size_t>(p.T * width));
  for (int64_t b = 0; b < p.N; ++b) {
    const std::vector<double> alpha = recursion(p, b, true);
    nll[b] = static_cast<float>(negLogLikelihood(p, b, alpha));
    const int64_t S = 2 * p.target_lengths[b] + 1;
    std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
    for (int64_t t = 0; t < p.T; ++t)
      for (int64_t s = 0; s < S; ++s) row[t * width + s] = static_cast<float>(alpha[t * S + s]);
    storeFloat(alpha_out.dtype, alpha_out.data, b * p.T * width, p.T * width, row.data());
  }
  storeFloat(nll_out.dtype, nll_out.data, 0, p.N, nll.data());
}

// inputs: grad [N], log_probs, targets, input_lengths, target_lengths, neg_log_likelihood;
// output: grad_log_probs [T, N, C]. (log_alpha is recomputed: the recursions are the cheap part.)
void validateCtcLossGrad(const OpCall& call) {
  checkArity(call, 6, 6, 1);
  OpCall core = call;  // the loss inputs sit at 1..4
  core.inputs.erase(core.inputs.begin());
  core.inputs.pop_back();
  checkCommon(core, 4, 1);
  const TensorArg& lp = call.inputs[1];
  checkSameDtype(call, lp, "log_probs", call.inputs[0], "input grad");
  checkSameDtype(call, lp, "log_probs", call.outputs[0], "output grad_log_probs");
  checkShapeEq(call, call.outputs[0], "output grad_log_probs", lp.shape, "log_probs shape");
  attrBool(call, "zero_infinity", false);
}

void computeCtcLossGrad(const OpCall& call) {
  OpCall core = call;
  core.inputs.erase(core.inputs.begin());
  const CtcProblem p = loadProblem(core);
  const bool zero_infinity = attrBool(call, "zero_infinity", false);
  std::vector<float> g(static_cast<size_t>(p.N)), nll(static_cast<size_t>(p.N));
  loadFloat(call.inputs[0].dtype, call.inputs[0].data, 0, 1, p.N, g.data());
  loadFloat(call.inputs[5].dtype, call.inputs[5].data, 0, 1, p.N, nll.data());
  std::vector<float> grad(static_cast<size_t>(p.T * p.N * p.C), 0.0f);
  std::vector<double> per_class(static_cast<size_t>(p.C));
  for (int64_t b = 0; b < p.N; ++b) {
    const int64_t il = p.input_lengths[b], S = 2 * p.target_lengths[b] + 1;
    if (zero_infinity && std::isinf(nll[b])) continue;
    const std::vector<double> alpha = recursion(p, b, true), beta = recursion(p, b, false);
    for (int64_t t = 0; t < il; ++t) {
      std::fill(per_class.begin(), per_class.end(), kNegInf);
      for (int64_t s = 0; s < S; ++s) {
        const int64_t c = p.prime(b, s);
        per_class[c] = logAdd(per_class[c], alpha[t * S + s] + beta[t * S + s]);
      }
      for (int64_t c = 0; c < p.C; ++c) {
        const double lp = p.logProb(t, b, c);
        grad[(t * p.N + b) * p.C + c] =
            static_cast<float>((std::exp(lp) - std::exp(per_class[c] + static_cast<double>(nll[b]) - lp)) * g[b]);
      }
    }
  }
  const TensorArg& out = call.outputs[0];
  storeFloat(out.dtype, out.data, 0, out.numel(), grad.data());
}

KernelCost costCtc(const OpCall& call) {
  KernelCost c = aiCpuCost(call);
  const TensorArg& lp = call.inputs[call.op_type == "CTCLossV2" ? 0 : 1];
  c.flops = 10.0 * static_cast<double>(lp.numel());  // a handful of log-add-exps per (t, s)
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CTCLossV2", &validateCtcLoss, &computeCtcLoss, &costCtc});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"CTCLossV2Grad", &validateCtcLossGrad, &computeCtcLossGrad, &costCtc});

}  // namespace
}  // namespace ascend_sim
