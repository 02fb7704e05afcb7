// DropOutGenMask (+ its byte-mask form DropOutGenMaskV3), DropOutDoMask, AxpyWithSoftmaxAndDropOutDoMask and
// DropoutWithMulsAndSoftmaxGrad (OPS.md "Dropout"): the dropout kernels
// torch_npu runs for F.dropout, npu_dropout and npu_dropout_with_add_softmax.
//
// Note [Dropout bit masks]
// A dropout mask is a bit mask, as on the device: element i of the
// dropped tensor is kept iff bit (i % 8) (least significant first) of byte
// i / 8 is set. Its length is rounded up to whole 128-element groups:
// ceil(n / 128) * 16 bytes; the padding bits are 0. DropOutGenMask sets bit i
// iff u_i < keep_prob, where u_i is element i of the Philox uniform stream
// (Note [Philox streams]) — so a mask equals StatelessBernoulli(p =
// keep_prob) on the same (seed, offset). Applying a mask: y = x / keep_prob
// where the bit is set, 0 elsewhere (x times the fp32 scale 1 / keep_prob,
// rounded once to the dtype);
// keep_prob = 0 drops everything.
#include <algorithm>
#include <cmath>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/random/dropout_mask.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

int64_t maskBytes(int64_t n) { return dropoutMaskBytes(n); }

bool maskBit(const uint8_t* mask, int64_t i) { return dropoutMaskBit(mask, i); }

float keepProbOf(const OpCall& call, const char* name) {
  const float keep = attrFloat(call, name);
  if (!(keep >= 0.0f && keep <= 1.0f))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' must be in [0, 1], got " + std::to_string(keep));
  return keep;
}

void checkMask(const OpCall& call, const TensorArg& mask, const std::string& name, int64_t n) {
  checkDtype(call, mask, name, dtBit(ACL_UINT8));
  if (mask.numel() != maskBytes(n))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " has " + std::to_string(mask.numel()) + " bytes; a bit mask of " + std::to_string(n) +
             " elements has " + std::to_string(maskBytes(n)) + " (ceil(n / 128) * 16)");
}

// The scale a kept element gets: 1 / keep_prob (0 when nothing is kept).
float keepScale(float keep) { return keep > 0.0f ? 1.0f / keep : 0.0f; }

// ---- DropOutGenMask: attrs shape, keep_prob, seed, offset -> y (uint8 bit mask) ----
int64_t genMaskElems(const OpCall& call) {
  int64_t n = 1;
  for (int64_t d : attrInts(call, "shape")) {
    if (d < 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'shape' has a negative size");
    n *= d;
  }
  return n;
}

void validateGenMask(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  keepProbOf(call, "keep_prob");
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
  checkMask(call, call.outputs[0], "output y", genMaskElems(call));
}

// ---- DropOutGenMaskV3: the same draws, one byte per element (1 kept, 0 dropped) -> y uint8 [n] ----
void validateGenMaskV3(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  keepProbOf(call, "keep_prob");
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", dtBit(ACL_UINT8));
  if (y.numel() != genMaskElems(call))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output y has " + std::to_string(y.numel()) + " bytes; a byte mask of " + std::to_string(genMaskElems(call)) +
             " elements has one per element");
}

void computeGenMaskV3(const OpCall& call) {
  generateDropoutBytes(static_cast<uint64_t>(attrInt(call, "seed")), static_cast<uint64_t>(attrInt(call, "offset", 0)),
                       attrFloat(call, "keep_prob"), genMaskElems(call), static_cast<uint8_t*>(call.outputs[0].data));
}

void computeGenMask(const OpCall& call) {
  generateDropoutBits(static_cast<uint64_t>(attrInt(call, "seed")), static_cast<uint64_t>(attrInt(call, "offset", 0)),
                      attrFloat(call, "keep_prob"), genMaskElems(call), static_cast<uint8_t*>(call.outputs[0].data));
}

KernelCost costGenMask(const OpCall& call) {
  // The Philox stream of n fp32 draws through the Vector unit; only the mask (bits, or V3's bytes) reaches HBM.
  const double n = static_cast<double>(genMaskElems(call));
  KernelCost c = vectorCost(call);
  c.vector_repeats += std::ceil(n * 4 / 256);
  c.flops = 20.0 * n;
  return c;
}

// ---- DropOutDoMask: x, mask; attr keep_prob -> y ----
void validateDoMask(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kFloatTypes);
  checkMask(call, call.inputs[1], "input mask", x.numel());
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", x.shape, "x shape");
  keepProbOf(call, "keep_prob");
}

void computeDoMask(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const auto* mask = static_cast<const uint8_t*>(call.inputs[1].data);
  const float scale = keepScale(attrFloat(call, "keep_prob"));
  const int64_t n = x.numel();
  parallelFor((n + kDropoutMaskBlock - 1) / kDropoutMaskBlock, [&](int64_t b) {
    constexpr int64_t kChunk = 4096;
    float v[kChunk];
    for (int64_t i0 = b * kDropoutMaskBlock; i0 < std::min(n, (b + 1) * kDropoutMaskBlock); i0 += kChunk) {
      const int64_t m = std::min(kChunk, n - i0);
      loadFloat(x.dtype, x.data, i0, 1, m, v);
      for (int64_t j = 0; j < m; ++j) v[j] = maskBit(mask, i0 + j) ? v[j] * scale : 0.0f;
      storeFloat(call.outputs[0].dtype, call.outputs[0].data, i0, m, v);
    }
  });
}

// ---- AxpyWithSoftmaxAndDropOutDoMask: x1, x2, mask; attrs alpha, input_keep_prob, axis
//      -> y1 = softmax(alpha * x1 + x2, axis), y2 = y1 dropped with mask ----
// ---- DropoutWithMulsAndSoftmaxGrad: y_grad, mask, softmax_output; attrs alpha,
//      input_keep_prob, axes -> x_grad = alpha * softmax'(g), g = y_grad dropped with mask ----
// Both see the tensor as [outer, D, inner] around the axis and work on one
// softmax row (D elements, stride inner) at a time in fp32; row sums follow
// Note [Pairwise blocks].
bool isSoftmaxGrad(const OpCall& call) { return call.op_type == "DropoutWithMulsAndSoftmaxGrad"; }

AxisSplit fusedSplit(const OpCall& call) {
  if (!isSoftmaxGrad(call)) return splitAtAxis(call, call.inputs[0].shape, attrInt(call, "axis", -1), "axis");
  const std::vector<int64_t> axes = call.attrs.has("axes") ? attrInts(call, "axes") : std::vector<int64_t>{-1};
  if (axes.size() != 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'axes' must hold exactly one axis, got " + std::to_string(axes.size()));
  return splitAtAxis(call, call.inputs[0].shape, axes[0], "axes");
}

void validateFusedSoftmax(const OpCall& call) {
  const bool grad = isSoftmaxGrad(call);
  checkArity(call, 3, 3, grad ? 1 : 2);
  const TensorArg& a = call.inputs[0];
  const TensorArg& b = call.inputs[grad ? 2 : 1];
  const char* a_name = grad ? "y_grad" : "x1";
  const char* b_name = grad ? "softmax_output" : "x2";
  checkDtype(call, a, std::string("input ") + a_name, kFloatTypes);
  checkSameDtype(call, a, a_name, b, std::string("input ") + b_name);
  checkShapeEq(call, b, std::string("input ") + b_name, a.shape, std::string(a_name) + " shape");
  checkMask(call, call.inputs[grad ? 1 : 2], "input mask", a.numel());
  for (const TensorArg& y : call.outputs) {
    checkSameDtype(call, a, a_name, y, "output");
    checkShapeEq(call, y, "output", a.shape, std::string(a_name) + " shape");
  }
  attrFloat(call, "alpha");
  keepProbOf(call, "input_keep_prob");
  fusedSplit(call);
}

struct Row {
  int64_t base, stride, d;
};

void computeFusedSoftmax(const OpCall& call) {
  const bool grad = isSoftmaxGrad(call);
  const AxisSplit s = fusedSplit(call);
  const TensorArg& a = call.inputs[0];
  const TensorArg& b = call.inputs[grad ? 2 : 1];
  const auto* mask = static_cast<const uint8_t*>(call.inputs[grad ? 1 : 2].data);
  const float alpha = attrFloat(call, "alpha");
  const float scale = keepScale(attrFloat(call, "input_keep_prob"));
  const int64_t block = reduceBlockElems(a.dtype);
  std::vector<float> va(s.dim), vb(s.dim), out(s.dim), scratch(s.dim);
  auto store = [&](const TensorArg& y, const Row& r, const float* src) {
    if (r.stride == 1) return storeFloat(y.dtype, y.data, r.base, r.d, src);
    for (int64_t k = 0; k < r.d; ++k) storeFloat(y.dtype, y.data, r.base + k * r.stride, 1, src + k);
  };
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const Row r{o * s.dim * s.inner + in, s.inner, s.dim};
      loadFloat(a.dtype, a.data, r.base, r.stride, r.d, va.data());
      loadFloat(b.dtype, b.data, r.base, r.stride, r.d, vb.data());
      auto kept = [&](int64_t k) { return maskBit(mask, r.base + k * r.stride); };
      if (grad) {  // g = dropped y_grad; x_grad = alpha * (g - sum(g * y)) * y
        for (int64_t k = 0; k < r.d; ++k) scratch[k] = (kept(k) ? va[k] * scale : 0.0f) * vb[k];
        const float dot = pairwiseSum(scratch.data(), r.d, block);
        for (int64_t k = 0; k < r.d; ++k) out[k] = alpha * ((kept(k) ? va[k] * scale : 0.0f) - dot) * vb[k];
        store(call.outputs[0], r, out.data());
        continue;
      }
      float max = -INFINITY;
      for (int64_t k = 0; k < r.d; ++k) {
        out[k] = alpha * va[k] + vb[k];
        if (out[k] > max || out[k] != out[k]) max = out[k];
      }
      for (int64_t k = 0; k < r.d; ++k) scratch[k] = out[k] = std::exp(out[k] - max);
      const float sum = pairwiseSum(scratch.data(), r.d, block);
      for (int64_t k = 0; k < r.d; ++k) out[k] /= sum;
      store(call.outputs[0], r, out.data());
      for (int64_t k = 0; k < r.d; ++k) out[k] = kept(k) ? out[k] * scale : 0.0f;
      store(call.outputs[1], r, out.data());
    }
  }
}

KernelCost costFusedSoftmax(const OpCall& call) {
  // One pass: inputs in, outputs out, ~6 Vector passes over the rows (axpy,
  // max, exp, sum, divide, mask) — the intermediates stay in the UB.
  KernelCost c = vectorCost(call);
  c.vector_repeats += 4 * std::ceil(static_cast<double>(call.inputs[0].numel()) * 4 / 256);
  c.flops = 8.0 * static_cast<double>(call.inputs[0].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DropOutGenMask", &validateGenMask, &computeGenMask, &costGenMask});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DropOutGenMaskV3", &validateGenMaskV3, &computeGenMaskV3, &costGenMask});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DropOutDoMask", &validateDoMask, &computeDoMask, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"AxpyWithSoftmaxAndDropOutDoMask", &validateFusedSoftmax,
                                     &computeFusedSoftmax, &costFusedSoftmax});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DropoutWithMulsAndSoftmaxGrad", &validateFusedSoftmax,
                                     &computeFusedSoftmax, &costFusedSoftmax});

}  // namespace
}  // namespace ascend_sim
