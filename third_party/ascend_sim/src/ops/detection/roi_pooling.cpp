// ROIPoolingWithArgMax and ROIPoolingGradWithArgMax (OPS.md "Detection"), on
// the Vector unit: torchvision's roi_pool (Fast R-CNN's max pooling over
// regions) and its backward.
//
// Note [RoI max pooling]
// inputs x [N, C, H, W] and rois [K, 5] (Note [ROI tables]); attributes
// spatial_scale, pooled_h, pooled_w; outputs y [K, C, pooled_h, pooled_w] and
// argmax (same shape, int32 or int64): the offset h * W + w of the maximum in
// its plane, -1 for an empty bin (whose y is 0). The roi's corners are rounded
// to pixels, the box is end-inclusive and at least 1 x 1; bin (ph, pw) covers
// rows [floor(ph * bin_h), ceil((ph + 1) * bin_h)) from the roi's first row,
// clipped to the map. The first maximum wins (strictly greater replaces), and
// NaN never does, as in torchvision's CPU kernel.
//
// ROIPoolingGradWithArgMax: inputs ydiff, rois, argmax; output xdiff
// [N, C, H, W]: each ydiff value is added at its argmax (fp32, stored once).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

struct PoolParams {
  float scale = 1;
  int64_t ph = 1, pw = 1;
};

PoolParams poolParams(const OpCall& call) {
  PoolParams p{attrFloat(call, "spatial_scale"), attrInt(call, "pooled_h"), attrInt(call, "pooled_w")};
  if (p.ph <= 0 || p.pw <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "pooled_h and pooled_w must be positive, got " + std::to_string(p.ph) + " and " + std::to_string(p.pw));
  return p;
}

void validateROIPoolingWithArgMax(const OpCall& call) {
  checkArity(call, 2, 2, 2);
  const FeatureDims d = checkFeatureMap(call, call.inputs[0], "input x");
  const int64_t k = checkRois(call, call.inputs[1]);
  const PoolParams p = poolParams(call);
  const Shape out{k, d.c, p.ph, p.pw};
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", out, "[K, C, pooled_h, pooled_w]");
  checkDtype(call, call.outputs[1], "output argmax", kIndexTypes);
  checkShapeEq(call, call.outputs[1], "output argmax", out, "[K, C, pooled_h, pooled_w]");
}

void computeROIPoolingWithArgMax(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const FeatureDims d{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
  const PoolParams p = poolParams(call);
  const std::vector<float> xv = loadAllFloat(x), rois = loadAllFloat(call.inputs[1]);
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = p.ph * p.pw;
  std::vector<float> out(static_cast<size_t>(call.outputs[0].numel()));
  std::vector<int64_t> arg(out.size());
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    const RoiPixels px = roiPixels(roi, p.scale);
    const int64_t roi_w = std::max<int64_t>(px.end_w - px.start_w + 1, 1);
    const int64_t roi_h = std::max<int64_t>(px.end_h - px.start_h + 1, 1);
    const float bin_h = static_cast<float>(roi_h) / static_cast<float>(p.ph);
    const float bin_w = static_cast<float>(roi_w) / static_cast<float>(p.pw);
    for (int64_t ph = 0; ph < p.ph; ++ph)
      for (int64_t pw = 0; pw < p.pw; ++pw) {
        auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
        const int64_t hs = clip(static_cast<int64_t>(std::floor(static_cast<float>(ph) * bin_h)) + px.start_h, d.h);
        const int64_t he = clip(static_cast<int64_t>(std::ceil(static_cast<float>(ph + 1) * bin_h)) + px.start_h, d.h);
        const int64_t ws = clip(static_cast<int64_t>(std::floor(static_cast<float>(pw) * bin_w)) + px.start_w, d.w);
        const int64_t we = clip(static_cast<int64_t>(std::ceil(static_cast<float>(pw + 1) * bin_w)) + px.start_w, d.w);
        const bool empty = he <= hs || we <= ws;
        for (int64_t c = 0; c < d.c; ++c) {
          const float* src = xv.data() + (roi.batch * d.c + c) * plane;
          float best = empty ? 0.0f : -FLT_MAX;
          int64_t best_at = -1;
          for (int64_t h = hs; h < he; ++h)
            for (int64_t w = ws; w < we; ++w)
              if (src[h * d.w + w] > best) {
                best = src[h * d.w + w];
                best_at = h * d.w + w;
              }
          const size_t o = static_cast<size_t>((k * d.c + c) * bins + ph * p.pw + pw);
          out[o] = best;
          arg[o] = best_at;
        }
      }
  }
  storeAllFloat(call.outputs[0], out);
  if (!arg.empty())
    storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, static_cast<int64_t>(arg.size()), arg.data());
}

KernelCost costROIPoolingWithArgMax(const OpCall& call) {
  // A bin covers about (H / pooled_h) x (W / pooled_w) pixels of a roi the size of the map (an upper bound).
  const TensorArg& x = call.inputs[0];
  const PoolParams p = poolParams(call);
  const double per_bin = std::max(1.0, static_cast<double>(x.shape[2] * x.shape[3]) / static_cast<double>(p.ph * p.pw));
  return roiVectorCost(call, per_bin, call.outputs[0]);
}

void validateROIPoolingGradWithArgMax(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg &dy = call.inputs[0], &argmax = call.inputs[2], &dx = call.outputs[0];
  const FeatureDims d = checkFeatureMap(call, dx, "output xdiff");
  const int64_t k = checkRois(call, call.inputs[1]);
  const PoolParams p = poolParams(call);
  const Shape shape{k, d.c, p.ph, p.pw};
  checkSameDtype(call, dx, "xdiff", dy, "input ydiff");
  checkShapeEq(call, dy, "input ydiff", shape, "[K, C, pooled_h, pooled_w]");
  checkDtype(call, argmax, "input argmax", kIndexTypes);
  checkShapeEq(call, argmax, "input argmax", shape, "[K, C, pooled_h, pooled_w]");
}

void computeROIPoolingGradWithArgMax(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &argmax = call.inputs[2], &dx = call.outputs[0];
  const FeatureDims d{dx.shape[0], dx.shape[1], dx.shape[2], dx.shape[3]};
  const std::vector<float> g = loadAllFloat(dy), rois = loadAllFloat(call.inputs[1]);
  std::vector<int64_t> arg(static_cast<size_t>(argmax.numel()));
  if (!arg.empty()) loadInt(argmax.dtype, argmax.data, 0, 1, argmax.numel(), arg.data());
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = dy.shape[2] * dy.shape[3];
  std::vector<float> acc(static_cast<size_t>(dx.numel()), 0.0f);
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t bin = 0; bin < bins; ++bin) {
        const size_t o = static_cast<size_t>((k * d.c + c) * bins + bin);
        if (arg[o] < 0) continue;
        if (arg[o] >= plane)
          throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, call.op_type + ": argmax " + std::to_string(arg[o]) +
                                                               " lies outside the " + std::to_string(d.h) + " x " +
                                                               std::to_string(d.w) + " plane");
        acc[static_cast<size_t>((roi.batch * d.c + c) * plane + arg[o])] += g[o];
      }
  }
  storeAllFloat(dx, acc);
}

KernelCost costROIPoolingGradWithArgMax(const OpCall& call) { return roiVectorCost(call, 1.0, call.inputs[0]); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ROIPoolingWithArgMax", &validateROIPoolingWithArgMax,
                                     &computeROIPoolingWithArgMax, &costROIPoolingWithArgMax});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ROIPoolingGradWithArgMax", &validateROIPoolingGradWithArgMax,
                                     &computeROIPoolingGradWithArgMax, &costROIPoolingGradWithArgMax});

}  // namespace
}  // namespace ascend_sim
