// Position-sensitive region pooling (OPS.md "Detection"), on the Vector unit:
// PSROIAlign / PSROIAlignGrad (torchvision's ps_roi_align) and
// PSROIPoolingV2 / PSROIPoolingGradV2D (torchvision's ps_roi_pool, R-FCN's
// pooling).
//
// Note [Position-sensitive bins]
// inputs x [N, C, H, W] with C = C_out * pooled_height * pooled_width, and
// rois [K, 5] (Note [ROI tables]); outputs y [K, C_out, ph, pw] and
// channel_mapping (same shape, int32/int64): bin (c, i, j) reads input channel
// (c * ph + i) * pw + j only. PSROIAlign samples its bins as ROIAlign with
// roi_end_mode 2 (half-pixel aligned, any size; Note [RoIAlign sampling]),
// attrs spatial_scale, pooled_height, pooled_width, sample_num. PSROIPoolingV2
// averages the pixels of each bin: the roi's corners rounded to pixels, at
// least 1 x 1, bin (i, j) covering rows [floor(i * bin_h), ceil((i + 1) * bin_h))
// from the roi's first row, clipped to the map; an empty bin is 0. (torchvision's
// CPU forward clips to H - 1 and W - 1 while its backward and its CUDA kernel
// clip to H and W; the kernel uses H and W both ways, so its gradient is the
// forward's.) The gradients take ydiff and channel_mapping and spread each
// value back over the taps (align) or the pixels (pooling) of its bin, in fp32.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

bool isAlign(const OpCall& call) { return call.op_type.rfind("PSROIAlign", 0) == 0; }

struct PsParams {
  float scale = 1;
  int64_t ph = 1, pw = 1, sample_num = 0;
};

PsParams psParams(const OpCall& call) {
  PsParams p{attrFloat(call, "spatial_scale"), attrInt(call, "pooled_height"), attrInt(call, "pooled_width"),
             isAlign(call) ? attrInt(call, "sample_num", 0) : 0};
  if (p.ph <= 0 || p.pw <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "pooled_height and pooled_width must be positive, got " + std::to_string(p.ph) + " and " +
             std::to_string(p.pw));
  if (p.sample_num < 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "sample_num must be >= 0, got " + std::to_string(p.sample_num));
  return p;
}

// The [K, C_out, ph, pw] shape of y for a map with `c` channels.
Shape psOutShape(const OpCall& call, const PsParams& p, int64_t k, int64_t c) {
  if (c % (p.ph * p.pw) != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "the map's " + std::to_string(c) +
             " channels must be a multiple of pooled_height * pooled_width = " + std::to_string(p.ph * p.pw));
  return {k, c / (p.ph * p.pw), p.ph, p.pw};
}

// A pooling bin of pixels [hs, he) x [ws, we).
struct PixelBin {
  int64_t hs, he, ws, we;
  bool empty() const { return he <= hs || we <= ws; }
  float area() const { return static_cast<float>((he - hs) * (we - ws)); }
};

PixelBin poolBin(const RoiPixels& px, int64_t i, int64_t j, const PsParams& p, const FeatureDims& d) {
  const int64_t roi_w = std::max<int64_t>(px.end_w - px.start_w, 1),
                roi_h = std::max<int64_t>(px.end_h - px.start_h, 1);
  const float bin_h = static_cast<float>(roi_h) / static_cast<float>(p.ph);
  const float bin_w = static_cast<float>(roi_w) / static_cast<float>(p.pw);
  auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
  return PixelBin{clip(static_cast<int64_t>(std::floor(static_cast<float>(i) * bin_h)) + px.start_h, d.h),
                  clip(static_cast<int64_t>(std::ceil(static_cast<float>(i + 1) * bin_h)) + px.start_h, d.h),
                  clip(static_cast<int64_t>(std::floor(static_cast<float>(j) * bin_w)) + px.start_w, d.w),
                  clip(static_cast<int64_t>(std::ceil(static_cast<float>(j + 1) * bin_w)) + px.start_w, d.w)};
}

void validateForward(const OpCall& call) {
  checkArity(call, 2, 2, 2);
  const FeatureDims d = checkFeatureMap(call, call.inputs[0], "input x");
  const int64_t k = checkRois(call, call.inputs[1]);
  const Shape out = psOutShape(call, psParams(call), k, d.c);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", out, "[K, C / (pooled_height * pooled_width), ph, pw]");
  checkDtype(call, call.outputs[1], "output channel_mapping", kIndexTypes);
  checkShapeEq(call, call.outputs[1], "output channel_mapping", out, "y's shape");
}

void computeForward(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const FeatureDims d{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
  const PsParams p = psParams(call);
  const std::vector<float> xv = loadAllFloat(x), rois = loadAllFloat(call.inputs[1]);
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = p.ph * p.pw, c_out = d.c / bins;
  std::vector<float> out(static_cast<size_t>(call.outputs[0].numel()));
  std::vector<int64_t> mapping(out.size());
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    const AlignBins ab = alignBins(roi, p.scale, p.ph, p.pw, p.sample_num, 2);
    const std::vector<BilinearTaps> taps = isAlign(call) ? alignTaps(ab, p.ph, p.pw, d) : std::vector<BilinearTaps>{};
    const RoiPixels px = roiPixels(roi, p.scale);
    for (int64_t c = 0; c < c_out; ++c)
      for (int64_t bin = 0; bin < bins; ++bin) {
        const int64_t c_in = c * bins + bin;
        const float* src = xv.data() + (roi.batch * d.c + c_in) * plane;
        float v = 0;
        if (isAlign(call)) {
          for (int64_t s = 0; s < ab.samples(); ++s)
            v += sampleAt(src, taps[static_cast<size_t>(bin * ab.samples() + s)]);
          v /= ab.count;
        } else {
          const PixelBin pb = poolBin(px, bin / p.pw, bin % p.pw, p, d);
          for (int64_t h = pb.hs; h < pb.he; ++h)
            for (int64_t w = pb.ws; w < pb.we; ++w) v += src[h * d.w + w];
          v = pb.empty() ? 0.0f : v / pb.area();
        }
        const size_t o = static_cast<size_t>((k * c_out + c) * bins + bin);
        out[o] = v;
        mapping[o] = c_in;
      }
  }
  storeAllFloat(call.outputs[0], out);
  if (!mapping.empty())
    storeInt(call.outputs[1].dtype, call.outputs[1].data, 0, static_cast<int64_t>(mapping.size()), mapping.data());
}

double readsPerOutput(const OpCall& call, const TensorArg& map) {
  if (isAlign(call)) {
    const int64_t s = attrInt(call, "sample_num", 0);
    return 4.0 * static_cast<double>(s > 0 ? s * s : 4);
  }
  const PsParams p = psParams(call);
  return std::max(1.0, static_cast<double>(map.shape[2] * map.shape[3]) / static_cast<double>(p.ph * p.pw));
}

KernelCost costForward(const OpCall& call) {
  return roiVectorCost(call, readsPerOutput(call, call.inputs[0]), call.outputs[0]);
}

// inputs ydiff, rois, channel_mapping; output xdiff [N, C, H, W].
void validateGrad(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg &dy = call.inputs[0], &dx = call.outputs[0];
  const FeatureDims d = checkFeatureMap(call, dx, "output xdiff");
  const int64_t k = checkRois(call, call.inputs[1]);
  const Shape shape = psOutShape(call, psParams(call), k, d.c);
  checkSameDtype(call, dx, "xdiff", dy, "input ydiff");
  checkShapeEq(call, dy, "input ydiff", shape, "[K, C / (pooled_height * pooled_width), ph, pw]");
  checkDtype(call, call.inputs[2], "input channel_mapping", kIndexTypes);
  checkShapeEq(call, call.inputs[2], "input channel_mapping", shape, "ydiff's shape");
}

void computeGrad(const OpCall& call) {
  const TensorArg &dy = call.inputs[0], &map = call.inputs[2], &dx = call.outputs[0];
  const FeatureDims d{dx.shape[0], dx.shape[1], dx.shape[2], dx.shape[3]};
  const PsParams p = psParams(call);
  const std::vector<float> g = loadAllFloat(dy), rois = loadAllFloat(call.inputs[1]);
  std::vector<int64_t> mapping(static_cast<size_t>(map.numel()));
  if (!mapping.empty()) loadInt(map.dtype, map.data, 0, 1, map.numel(), mapping.data());
  const int64_t k_n = call.inputs[1].shape[0], plane = d.h * d.w, bins = p.ph * p.pw, c_out = d.c / bins;
  std::vector<float> acc(static_cast<size_t>(dx.numel()), 0.0f);
  for (int64_t k = 0; k < k_n; ++k) {
    const RoiBox roi = roiAt(call, rois, k, d.n);
    const AlignBins ab = alignBins(roi, p.scale, p.ph, p.pw, p.sample_num, 2);
    const std::vector<BilinearTaps> taps = isAlign(call) ? alignTaps(ab, p.ph, p.pw, d) : std::vector<BilinearTaps>{};
    const RoiPixels px = roiPixels(roi, p.scale);
    for (int64_t c = 0; c < c_out; ++c)
      for (int64_t bin = 0; bin < bins; ++bin) {
        const size_t o = static_cast<size_t>((k * c_out + c) * bins + bin);
        if (mapping[o] < 0 || mapping[o] >= d.c)
          throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION,
                            call.op_type + ": channel_mapping " + std::to_string(mapping[o]) +
                                " is not a channel of the " + std::to_string(d.c) + "-channel map");
        float* dst = acc.data() + (roi.batch * d.c + mapping[o]) * plane;
        if (isAlign(call)) {
          for (int64_t s = 0; s < ab.samples(); ++s) {
            const BilinearTaps& t = taps[static_cast<size_t>(bin * ab.samples() + s)];
            if (!t.any) continue;
            for (int q = 0; q < 4; ++q) dst[t.idx[q]] += g[o] * t.w[q] / ab.count;
          }
        } else {
          const PixelBin pb = poolBin(px, bin / p.pw, bin % p.pw, p, d);
          if (pb.empty()) continue;
          const float share = g[o] / pb.area();
          for (int64_t h = pb.hs; h < pb.he; ++h)
            for (int64_t w = pb.ws; w < pb.we; ++w) dst[h * d.w + w] += share;
        }
      }
  }
  storeAllFloat(dx, acc);
}

KernelCost costGrad(const OpCall& call) {
  return roiVectorCost(call, readsPerOutput(call, call.outputs[0]), call.inputs[0]);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PSROIAlign", &validateForward, &computeForward, &costForward});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PSROIAlignGrad", &validateGrad, &computeGrad, &costGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PSROIPoolingV2", &validateForward, &computeForward, &costForward});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PSROIPoolingGradV2D", &validateGrad, &computeGrad, &costGrad});

}  // namespace
}  // namespace ascend_sim
