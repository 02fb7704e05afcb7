// NLLLoss and NLLLossGrad (OPS.md "Softmax and losses"), following PyTorch's
// nll_loss: per-sample loss -w[t] * x[n, t]; ignored samples contribute 0 to
// the loss and to total_weight (the sum of the used weights, also written for
// reduction "none"); "mean" divides the summed loss by total_weight (0/0 =
// NaN, like PyTorch). Sums over samples follow Note [Pairwise blocks]. A
// target outside [0, C) that is not ignore_index is a device fault.
#include <algorithm>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct NllArgs {
  int64_t n = 1, c = 1;
  Reduction reduction = Reduction::kMean;
  int64_t ignore_index = -100;
};

bool isGrad(const OpCall& call) { return call.op_type == "NLLLossGrad"; }

NllArgs argsOf(const OpCall& call) {
  NllArgs a;
  const TensorArg& x = call.inputs[0];
  if (x.shape.size() != 1 && x.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x shape " + shapeToString(x.shape) + " must be [N,C] or [C]");
  a.n = x.shape.size() == 2 ? x.shape[0] : 1;
  a.c = x.shape.back();
  const std::string r = attrString(call, "reduction", "mean");
  if (r == "none") a.reduction = Reduction::kNone;
  else if (r == "sum") a.reduction = Reduction::kSum;
  else if (r == "mean") a.reduction = Reduction::kMean;
  else fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'reduction' is \"" + r + "\"; expected none, sum or mean");
  a.ignore_index = attrInt(call, "ignore_index", -100);
  return a;
}

void checkNumel(const OpCall& call, const TensorArg& t, const std::string& name, int64_t want) {
  if (t.numel() != want || t.shape.size() > 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " must be " +
             (want == 1 ? std::string("0-d (or [1])") : "[" + std::to_string(want) + "]"));
}

// Input layout: NLLLoss (x, target, weight); NLLLossGrad (x, y_grad, target, weight, total_weight).
void validateNll(const OpCall& call) {
  const bool grad = isGrad(call);
  checkArity(call, grad ? 5 : 3, grad ? 5 : 3, grad ? 1 : 2);
  const TensorArg& x = call.inputs[0];
  const TensorArg& target = call.inputs[grad ? 2 : 1];
  const TensorArg& weight = call.inputs[grad ? 3 : 2];
  checkDtype(call, x, "input x", kFloatTypes);
  checkDtype(call, target, "input target", kIndexTypes);
  checkSameDtype(call, x, "x", weight, "input weight");
  const NllArgs a = argsOf(call);
  checkNumel(call, target, "input target", a.n);
  checkNumel(call, weight, "input weight", a.c);
  const int64_t per_sample = a.reduction == Reduction::kNone ? a.n : 1;
  if (grad) {
    checkSameDtype(call, x, "x", call.inputs[1], "input y_grad");
    checkSameDtype(call, x, "x", call.inputs[4], "input total_weight");
    checkNumel(call, call.inputs[1], "input y_grad", per_sample);
    checkNumel(call, call.inputs[4], "input total_weight", 1);
    checkSameDtype(call, x, "x", call.outputs[0], "output x_grad");
    checkShapeEq(call, call.outputs[0], "output x_grad", x.shape, "x shape");
  } else {
    checkSameDtype(call, x, "x", call.outputs[0], "output y");
    checkSameDtype(call, x, "x", call.outputs[1], "output total_weight");
    checkNumel(call, call.outputs[0], "output y", per_sample);
    checkNumel(call, call.outputs[1], "output total_weight", 1);
  }
}

// Targets as int64, with the range check (device fault) applied.
std::vector<int64_t> loadTargets(const OpCall& call, const TensorArg& target, const NllArgs& a) {
  std::vector<int64_t> t(static_cast<size_t>(a.n));
  loadInt(target.dtype, target.data, 0, 1, a.n, t.data());
  for (int64_t i = 0; i < a.n; ++i)
    if (t[i] != a.ignore_index && (t[i] < 0 || t[i] >= a.c))
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "target " + std::to_string(t[i]) + " at sample " + std::to_string(i) +
               " is out of range [0, " + std::to_string(a.c) + ") (ignore_index " +
               std::to_string(a.ignore_index) + ")");
  return t;
}

std::vector<float> loadAll(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void computeNll(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const NllArgs a = argsOf(call);
  const std::vector<int64_t> t = loadTargets(call, call.inputs[1], a);
  const std::vector<float> w = loadAll(call.inputs[2]);
  std::vector<float> loss(static_cast<size_t>(a.n)), used(static_cast<size_t>(a.n));
  for (int64_t i = 0; i < a.n; ++i) {
    if (t[i] == a.ignore_index) continue;
    float xv;
    loadFloat(x.dtype, x.data, i * a.c + t[i], 1, 1, &xv);
    used[i] = w[t[i]];
    loss[i] = -(used[i] * xv);
  }
  const int64_t block = reduceBlockElems(x.dtype);
  const float total = pairwiseSum(used.data(), a.n, block);
  if (a.reduction == Reduction::kNone) {
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, a.n, loss.data());
  } else {
    float y = pairwiseSum(loss.data(), a.n, block);
    if (a.reduction == Reduction::kMean) y = y / total;
    storeFloat(call.outputs[0].dtype, call.outputs[0].data, 0, 1, &y);
  }
  storeFloat(call.outputs[1].dtype, call.outputs[1].data, 0, 1, &total);
}

void computeNllGrad(const OpCall& call) {
  const TensorArg& out = call.outputs[0];
  const NllArgs a = argsOf(call);
  const std::vector<float> g = loadAll(call.inputs[1]);
  const std::vector<int64_t> t = loadTargets(call, call.inputs[2], a);
  const std::vector<float> w = loadAll(call.inputs[3]);
  float total;
  loadFloat(call.inputs[4].dtype, call.inputs[4].data, 0, 1, 1, &total);
  std::vector<float> row(static_cast<size_t>(a.c));
  for (int64_t i = 0; i < a.n; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    if (t[i] != a.ignore_index) {
      const float gi = a.reduction == Reduction::kNone ? g[i] : g[0];
      const float scaled = -(a.reduction == Reduction::kMean ? gi / total : gi);
      row[t[i]] = w[t[i]] * scaled;
    }
    storeFloat(out.dtype, out.data, i * a.c, a.c, row.data());
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"NLLLoss", &validateNll, &computeNll, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"NLLLossGrad", &validateNll, &computeNllGrad, &vectorCost});

}  // namespace
}  // namespace ascend_sim
