// ROIAlign and ROIAlignGrad (OPS.md "Detection"), on the Vector unit as CANN
// runs them: torchvision's roi_align / _roi_align_backward and torch_npu's
// npu_roi_align / npu_roi_alignbk.
//
// Note [RoIAlign sampling]
// inputs x [N, C, H, W] and rois [K, 5] (Note [ROI tables]); output y
// [K, C, pooled_height, pooled_width]. Attributes: spatial_scale,
// pooled_height, pooled_width, sample_num (samples per bin and axis; 0 =
// ceil(roi size / pooled size), per roi) and roi_end_mode:
//   0  torchvision aligned=False: the roi is [x1, x2] * scale, at least 1 pixel wide;
//   1  the legacy end-inclusive box: [x1, x2 + 1] * scale, at least 1 pixel wide;
//   2  torchvision aligned=True: [x1, x2] * scale shifted by -0.5 pixel, any size.
// (0 and 2 are what mmcv and torch_npu pass for aligned=False / True; mode 1 is
// CANN's default, whose "end + 1" reading reproduces the gradient upstream
// torch_npu's npu_roi_alignbk test expects.) Each bin averages a
// grid of samples at the centres of its sub-cells; a sample reads the map
// bilinearly: beyond one pixel outside the map it is 0, within the border
// pixel it clamps to the edge. Sums run in fp32 in sample order (rows, then
// columns), as torchvision's CPU kernel does.
//
// ROIAlignGrad: inputs ydiff [K, C, ph, pw] and rois; output xdiff [N, C, H, W]
// (its shape gives N, H, W): every sample's four taps receive
// ydiff * weight / count, accumulated in fp32 in roi order and stored once.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

struct AlignParams {
  float scale = 1;
  int64_t ph = 1, pw = 1, sample_num = 0, end_mode = 0;
};

AlignParams alignParams(const OpCall& call) {
  AlignParams p{attrFloat(call, "spatial_scale"), attrInt(call, "pooled_height"), attrInt(call, "pooled_width"),
                attrInt(call, "sample_num", 2), attrInt(call, "roi_end_mode", 1)};
  if (p.ph <= 0 || p.pw <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "pooled_height and pooled_width must be positive, got " + std::to_string(p.ph) + " and " +
             std::to_string(p.pw));
  if (p.sample_num < 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "sample_num must be >= 0, got " + std::to_string(p.sample_num));
  if (p.end_mode < 0 || p.end_mode > 2)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "roi_end_mode must be 0, 1 or 2, got " + std::to_string(p.end_mode));
  return p;
}

void validateROIAlign(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const FeatureDims d = checkFeatureMap(call, call.inputs[0], "input x");
  const int64_t k = checkRois(call, call.inputs[1]);
  const AlignParams p = alignParams(call);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", {k, d.c, p.ph, p.pw}, "[K, C, pooled_height, pooled_width]");
}

void computeROIAlign(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &y = call.outputs[0];
  const FeatureDims d{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
  const AlignParams p = alignParams(call);
  const std::vector<float> xv = loadAllFloat(x), rois = loadAllFloat(call.inputs[1]);
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = p.ph * p.pw;
  std::vector<float> out(static_cast<size_t>(y.numel()));
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    const AlignBins b = alignBins(roi, p.scale, p.ph, p.pw, p.sample_num, p.end_mode);
    const std::vector<BilinearTaps> taps = alignTaps(b, p.ph, p.pw, d);
    const int64_t per_bin = b.samples();
    for (int64_t c = 0; c < d.c; ++c) {
      const float* src = xv.data() + (roi.batch * d.c + c) * plane;
      float* dst = out.data() + (k * d.c + c) * bins;
      for (int64_t bin = 0; bin < bins; ++bin) {
        float sum = 0;
        for (int64_t s = 0; s < per_bin; ++s) sum += sampleAt(src, taps[static_cast<size_t>(bin * per_bin + s)]);
        dst[bin] = sum / b.count;
      }
    }
  }
  storeAllFloat(y, out);
}

double samplesPerBin(const OpCall& call) {
  const int64_t s = attrInt(call, "sample_num", 2);
  return 4.0 * static_cast<double>(s > 0 ? s * s : 4);  // four taps a sample; adaptive grids taken as 2 x 2
}

KernelCost costROIAlign(const OpCall& call) { return roiVectorCost(call, samplesPerBin(call), call.outputs[0]); }

void validateROIAlignGrad(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg &dy = call.inputs[0], &dx = call.outputs[0];
  const FeatureDims d = checkFeatureMap(call, dx, "output xdiff");
  const int64_t k = checkRois(call, call.inputs[1]);
  const AlignParams p = alignParams(call);
  checkSameDtype(call, dx, "xdiff", dy, "input ydiff");
  checkShapeEq(call, dy, "input ydiff", {k, d.c, p.ph, p.pw}, "[K, C, pooled_height, pooled_width]");
}

void computeROIAlignGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &dx = call.outputs[0];
  const FeatureDims d{dx.shape[0], dx.shape[1], dx.shape[2], dx.shape[3]};
  const AlignParams p = alignParams(call);
  const std::vector<float> g = loadAllFloat(dy), rois = loadAllFloat(call.inputs[1]);
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = p.ph * p.pw;
  std::vector<float> acc(static_cast<size_t>(dx.numel()), 0.0f);
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    const AlignBins b = alignBins(roi, p.scale, p.ph, p.pw, p.sample_num, p.end_mode);
    const std::vector<BilinearTaps> taps = alignTaps(b, p.ph, p.pw, d);
    const int64_t per_bin = b.samples();
    for (int64_t c = 0; c < d.c; ++c) {
      float* dst = acc.data() + (roi.batch * d.c + c) * plane;
      const float* src = g.data() + (k * d.c + c) * bins;
      for (int64_t bin = 0; bin < bins; ++bin)
        for (int64_t s = 0; s < per_bin; ++s) {
          const BilinearTaps& t = taps[static_cast<size_t>(bin * per_bin + s)];
          if (!t.any) continue;
          for (int q = 0; q < 4; ++q) dst[t.idx[q]] += src[bin] * t.w[q] / b.count;
        }
    }
  }
  storeAllFloat(dx, acc);
}

KernelCost costROIAlignGrad(const OpCall& call) { return roiVectorCost(call, samplesPerBin(call), call.inputs[0]); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ROIAlign", &validateROIAlign, &computeROIAlign, &costROIAlign});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ROIAlignGrad", &validateROIAlignGrad, &computeROIAlignGrad, &costROIAlignGrad});

}  // namespace
}  // namespace ascend_sim
