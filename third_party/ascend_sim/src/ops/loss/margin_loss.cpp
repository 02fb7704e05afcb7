// Margin losses (OPS.md "Pointwise math and activations"): MultiMarginLoss,
// MultilabelMarginLoss and their gradients, following PyTorch's CPU kernels.
// x is [N, C] or [C] (one sample). Per sample the hinge terms over the classes
// are summed, then divided by C; "mean" averages the samples, "sum" adds them.
// Every sum (over classes, over samples) follows Note [Pairwise blocks]. A
// target outside [0, C) is a device fault naming it.
//   MultiMarginLoss      loss_n = Σ_{d ≠ t} max(0, margin − x[t] + x[d])^p · w[t] / C   (p = 1 or 2)
//   MultilabelMarginLoss targets t_0, t_1, ... up to the first −1; loss_n =
//                        Σ_j Σ_{d not a target} max(0, 1 − x[t_j] + x[d]) / C; is_target marks the targets
#include <algorithm>
#include <string>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

using Reduction = LossReduction;

struct MarginArgs {
  int64_t n = 1, c = 1;
  Reduction reduction = Reduction::kMean;
};

bool isMultilabel(const OpCall& call) { return call.op_type.rfind("MultilabelMarginLoss", 0) == 0; }
bool isGrad(const OpCall& call) { return call.op_type.size() > 4 && call.op_type.substr(call.op_type.size() - 4) == "Grad"; }

MarginArgs argsOf(const OpCall& call) {
  MarginArgs a;
  const TensorArg& x = call.inputs[0];
  if (x.shape.size() != 1 && x.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x shape " + shapeToString(x.shape) + " must be [N,C] or [C]");
  a.n = x.shape.size() == 2 ? x.shape[0] : 1;
  a.c = x.shape.back();
  a.reduction = lossReductionOf(call);
  return a;
}

void checkNumel(const OpCall& call, const TensorArg& t, const std::string& name, int64_t want) {
  if (t.numel() != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " must hold " + std::to_string(want) + " elements");
}

// Inputs: MultiMarginLoss (x, target [N], weight [C]); MultiMarginLossGrad
// (x, y_grad, target, weight); MultilabelMarginLoss (x, target [N, C]) →
// (y, is_target); MultilabelMarginLossGrad (x, y_grad, target, is_target).
void validateMargin(const OpCall& call) {
  const bool grad = isGrad(call), multilabel = isMultilabel(call);
  const int nin = grad ? 4 : (multilabel ? 2 : 3);
  checkArity(call, nin, nin, grad || !multilabel ? 1 : 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  const MarginArgs a = argsOf(call);
  const TensorArg& target = call.inputs[grad ? 2 : 1];
  checkDtype(call, target, "input target", kIndexTypes);
  checkNumel(call, target, "input target", multilabel ? a.n * a.c : a.n);
  if (!multilabel) {
    const TensorArg& w = call.inputs[grad ? 3 : 2];
    checkSameDtype(call, x, "x", w, "input weight");
    checkNumel(call, w, "input weight", a.c);
    const int64_t p = attrInt(call, "p", 1);
    if (p != 1 && p != 2) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' is " + std::to_string(p) + "; expected 1 or 2");
    (void)attrFloat(call, "margin", 1.0f);
  } else if (grad) {
    checkSameDtype(call, x, "x", call.inputs[3], "input is_target");
    checkNumel(call, call.inputs[3], "input is_target", a.n * a.c);
  }
  const int64_t per_sample = a.reduction == Reduction::kNone ? a.n : 1;
  if (grad) {
    checkSameDtype(call, x, "x", call.inputs[1], "input y_grad");
    checkNumel(call, call.inputs[1], "input y_grad", per_sample);
    checkSameDtype(call, x, "x", call.outputs[0], "output x_grad");
    checkShapeEq(call, call.outputs[0], "output x_grad", x.shape, "x shape");
  } else {
    checkSameDtype(call, x, "x", call.outputs[0], "output y");
    checkNumel(call, call.outputs[0], "output y", per_sample);
    if (multilabel) {
      checkSameDtype(call, x, "x", call.outputs[1], "output is_target");
      checkShapeEq(call, call.outputs[1], "output is_target", x.shape, "x shape");
    }
  }
}

std::vector<float> loadAll(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

std::vector<int64_t> loadIndices(const TensorArg& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  loadInt(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

[[noreturn]] void targetOutOfRange(const OpCall& call, int64_t t, int64_t sample, int64_t c) {
  fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
       "target " + std::to_string(t) + " at sample " + std::to_string(sample) + " is out of range [0, " +
           std::to_string(c) + ")");
}

// Writes per-sample losses (divided by C) as "none", or their reduction.
void storeLosses(const OpCall& call, const MarginArgs& a, std::vector<float> loss) {
  const TensorArg& y = call.outputs[0];
  if (a.reduction == Reduction::kNone) {
    storeFloat(y.dtype, y.data, 0, a.n, loss.data());
    return;
  }
  float total = pairwiseSum(loss.data(), a.n, reduceBlockElems(call.inputs[0].dtype));
  if (a.reduction == Reduction::kMean) total /= static_cast<float>(a.n);
  storeFloat(y.dtype, y.data, 0, 1, &total);
}

// 1/C, or 1/(N·C) for "mean", times the sample's y_grad.
float gradScale(const MarginArgs& a, const std::vector<float>& g, int64_t i) {
  const float norm = a.reduction == Reduction::kMean ? 1.0f / static_cast<float>(a.n * a.c)
                                                      : 1.0f / static_cast<float>(a.c);
  return norm * (a.reduction == Reduction::kNone ? g[i] : g[0]);
}

void computeMulti(const OpCall& call) {
  const MarginArgs a = argsOf(call);
  const std::vector<float> x = loadAll(call.inputs[0]), w = loadAll(call.inputs[2]);
  const std::vector<int64_t> t = loadIndices(call.inputs[1]);
  const int64_t p = attrInt(call, "p", 1);
  const float margin = attrFloat(call, "margin", 1.0f);
  const int64_t block = reduceBlockElems(call.inputs[0].dtype);
  std::vector<float> loss(static_cast<size_t>(a.n)), terms(static_cast<size_t>(a.c));
  for (int64_t i = 0; i < a.n; ++i) {
    if (t[i] < 0 || t[i] >= a.c) targetOutOfRange(call, t[i], i, a.c);
    const float* row = x.data() + i * a.c;
    for (int64_t d = 0; d < a.c; ++d) {
      const float z = margin - row[t[i]] + row[d];
      terms[d] = (d == t[i] || !(z > 0)) ? 0.0f : (p == 1 ? z : z * z) * w[t[i]];
    }
    loss[i] = pairwiseSum(terms.data(), a.c, block) / static_cast<float>(a.c);
  }
  storeLosses(call, a, std::move(loss));
}

void computeMultiGrad(const OpCall& call) {
  const MarginArgs a = argsOf(call);
  const std::vector<float> x = loadAll(call.inputs[0]), g = loadAll(call.inputs[1]), w = loadAll(call.inputs[3]);
  const std::vector<int64_t> t = loadIndices(call.inputs[2]);
  const int64_t p = attrInt(call, "p", 1);
  const float margin = attrFloat(call, "margin", 1.0f);
  const int64_t block = reduceBlockElems(call.inputs[0].dtype);
  std::vector<float> out(x.size()), terms(static_cast<size_t>(a.c));
  for (int64_t i = 0; i < a.n; ++i) {
    if (t[i] < 0 || t[i] >= a.c) targetOutOfRange(call, t[i], i, a.c);
    const float scale = gradScale(a, g, i);
    const float* row = x.data() + i * a.c;
    float* grad = out.data() + i * a.c;
    for (int64_t d = 0; d < a.c; ++d) {
      const float z = margin - row[t[i]] + row[d];
      grad[d] = (d == t[i] || !(z > 0)) ? 0.0f : (p == 1 ? scale : 2 * scale * z) * w[t[i]];
      terms[d] = grad[d];
    }
    grad[t[i]] = -pairwiseSum(terms.data(), a.c, block);
  }
  storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, static_cast<int64_t>(out.size()), out.data());
}

// The targets of sample i (up to the first negative) and its is_target row.
std::vector<int64_t> labelsOf(const OpCall& call, const std::vector<int64_t>& t, const MarginArgs& a, int64_t i,
                              std::vector<float>* is_target) {
  std::vector<int64_t> labels;
  std::fill(is_target->begin(), is_target->end(), 0.0f);
  for (int64_t j = 0; j < a.c; ++j) {
    const int64_t y = t[i * a.c + j];
    if (y < 0) break;
    if (y >= a.c) targetOutOfRange(call, y, i, a.c);
    labels.push_back(y);
    (*is_target)[y] = 1.0f;
  }
  return labels;
}

void computeMultilabel(const OpCall& call) {
  const MarginArgs a = argsOf(call);
  const std::vector<float> x = loadAll(call.inputs[0]);
  const std::vector<int64_t> t = loadIndices(call.inputs[1]);
  const int64_t block = reduceBlockElems(call.inputs[0].dtype);
  std::vector<float> loss(static_cast<size_t>(a.n)), is_target(static_cast<size_t>(a.c)), terms;
  const TensorArg& mark = call.outputs[1];
  for (int64_t i = 0; i < a.n; ++i) {
    const std::vector<int64_t> labels = labelsOf(call, t, a, i, &is_target);
    const float* row = x.data() + i * a.c;
    terms.clear();
    for (int64_t y : labels)
      for (int64_t d = 0; d < a.c; ++d) {
        const float z = 1.0f - row[y] + row[d];
        terms.push_back(is_target[d] == 0 && z > 0 ? z : 0.0f);
      }
    loss[i] = pairwiseSum(terms.data(), static_cast<int64_t>(terms.size()), block) / static_cast<float>(a.c);
    storeFloat(mark.dtype, mark.data, i * a.c, a.c, is_target.data());
  }
  storeLosses(call, a, std::move(loss));
}

void computeMultilabelGrad(const OpCall& call) {
  const MarginArgs a = argsOf(call);
  const std::vector<float> x = loadAll(call.inputs[0]), g = loadAll(call.inputs[1]);
  const std::vector<int64_t> t = loadIndices(call.inputs[2]);
  std::vector<float> out(x.size()), is_target(static_cast<size_t>(a.c));
  std::vector<int64_t> count(static_cast<size_t>(a.c));  // +1 per active hinge at d, −1 at its target
  for (int64_t i = 0; i < a.n; ++i) {
    const std::vector<int64_t> labels = labelsOf(call, t, a, i, &is_target);
    const float* row = x.data() + i * a.c;
    std::fill(count.begin(), count.end(), 0);
    for (int64_t y : labels)
      for (int64_t d = 0; d < a.c; ++d)
        if (is_target[d] == 0 && 1.0f - row[y] + row[d] > 0) {
          --count[y];
          ++count[d];
        }
    const float scale = gradScale(a, g, i);
    for (int64_t d = 0; d < a.c; ++d) out[i * a.c + d] = static_cast<float>(count[d]) * scale;
  }
  storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, static_cast<int64_t>(out.size()), out.data());
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultiMarginLoss", &validateMargin, &computeMulti, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultiMarginLossGrad", &validateMargin, &computeMultiGrad, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultilabelMarginLoss", &validateMargin, &computeMultilabel, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MultilabelMarginLossGrad", &validateMargin, &computeMultilabelGrad,
                                     &vectorCost});

}  // namespace
}  // namespace ascend_sim
