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
//
// Note [R-FCN position-sensitive pooling]
// PSROIPoolingV2 / PSROIPoolingGradV2D also take CANN's own form, the one
// torch_npu's npu_ps_roi_pooling uses, told apart by attr group_size: attrs
// spatial_scale, output_dim, group_size G (and input_size [H, W] for the
// gradient); rois [B, 5, R] (a column per roi: batch index, x1, y1, x2, y2;
// roi n is column n % R of batch n / R); x [B, output_dim * G * G, H, W];
// y [B * R, output_dim, G, G] and no channel_mapping. Bins follow R-FCN's
// Caffe kernel, not torchvision's: the corners are rounded before scaling and
// the end is inclusive (start = round(x1) * s, end = (round(x2) + 1) * s), the
// roi is at least 0.1 wide, bin (i, j) covers [floor(i * bin + start),
// ceil((i + 1) * bin + start)) clipped to the map, and reads channel
// (c * G + i) * G + j; an empty bin is 0. The gradient spreads ydiff / area
// over the same pixels.
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

// --- CANN's form (Note [R-FCN position-sensitive pooling]) ---

bool isRfcnForm(const OpCall& call) { return call.attrs.has("group_size"); }

struct RfcnParams {
  float scale = 1;
  int64_t output_dim = 1, group = 1;
};

RfcnParams rfcnParams(const OpCall& call) {
  RfcnParams p{attrFloat(call, "spatial_scale"), attrInt(call, "output_dim"), attrInt(call, "group_size")};
  if (p.output_dim <= 0 || p.group <= 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "output_dim and group_size must be positive, got " + std::to_string(p.output_dim) + " and " +
             std::to_string(p.group));
  return p;
}

// rois [B, 5, R]: returns R, checking B against the map's batch.
int64_t checkRfcnRois(const OpCall& call, const TensorArg& rois, int64_t batch) {
  checkDtype(call, rois, "input rois", kFloatTypes);
  if (rois.shape.size() != 3 || rois.shape[1] != 5 || rois.shape[0] != batch)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input rois must be [B, 5, R] with B = " + std::to_string(batch) + " (the map's batch), got shape " +
             shapeToString(rois.shape));
  return rois.shape[2];
}

// A [B, 5, R] roi table as the [B * R, 5] one of Note [ROI tables].
std::vector<float> rfcnRoiTable(const TensorArg& rois) {
  const std::vector<float> v = loadAllFloat(rois);
  const int64_t b_n = rois.shape[0], r_n = rois.shape[2];
  std::vector<float> table(v.size());
  for (int64_t b = 0; b < b_n; ++b)
    for (int64_t f = 0; f < 5; ++f)
      for (int64_t r = 0; r < r_n; ++r) table[static_cast<size_t>((b * r_n + r) * 5 + f)] = v[(b * 5 + f) * r_n + r];
  return table;
}

PixelBin rfcnBin(const RoiBox& roi, int64_t i, int64_t j, const RfcnParams& p, const FeatureDims& d) {
  const float start_w = std::round(roi.x1) * p.scale, start_h = std::round(roi.y1) * p.scale;
  const float end_w = (std::round(roi.x2) + 1.0f) * p.scale, end_h = (std::round(roi.y2) + 1.0f) * p.scale;
  const float bin_w = std::max(end_w - start_w, 0.1f) / static_cast<float>(p.group);
  const float bin_h = std::max(end_h - start_h, 0.1f) / static_cast<float>(p.group);
  auto clip = [](float v, int64_t hi) { return std::min(std::max<int64_t>(static_cast<int64_t>(v), 0), hi); };
  return PixelBin{clip(std::floor(static_cast<float>(i) * bin_h + start_h), d.h),
                  clip(std::ceil(static_cast<float>(i + 1) * bin_h + start_h), d.h),
                  clip(std::floor(static_cast<float>(j) * bin_w + start_w), d.w),
                  clip(std::ceil(static_cast<float>(j + 1) * bin_w + start_w), d.w)};
}

Shape rfcnOutShape(const OpCall& call, const RfcnParams& p, const FeatureDims& d, int64_t r_n) {
  if (d.c != p.output_dim * p.group * p.group)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "the map's " + std::to_string(d.c) +
             " channels must be output_dim * group_size^2 = " + std::to_string(p.output_dim * p.group * p.group));
  return {d.n * r_n, p.output_dim, p.group, p.group};
}

void validateRfcnForward(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const FeatureDims d = checkFeatureMap(call, call.inputs[0], "input x");
  const int64_t r_n = checkRfcnRois(call, call.inputs[1], d.n);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", rfcnOutShape(call, rfcnParams(call), d, r_n),
               "[B * R, output_dim, group_size, group_size]");
}

void validateRfcnGrad(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& dx = call.outputs[0];
  const FeatureDims d = checkFeatureMap(call, dx, "output xdiff");
  const std::vector<int64_t> input_size = attrInts(call, "input_size");
  if (input_size != std::vector<int64_t>{d.h, d.w})
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr input_size " + shapeToString(input_size) + " must be xdiff's [H, W] " + shapeToString({d.h, d.w}));
  const int64_t r_n = checkRfcnRois(call, call.inputs[1], d.n);
  checkSameDtype(call, dx, "xdiff", call.inputs[0], "input ydiff");
  checkShapeEq(call, call.inputs[0], "input ydiff", rfcnOutShape(call, rfcnParams(call), d, r_n),
               "[B * R, output_dim, group_size, group_size]");
}

// Visits every bin of every roi: fn(roi batch, input channel, output index, bin).
template <typename Fn>
void forEachRfcnBin(const OpCall& call, const FeatureDims& d, const Fn& fn) {
  const RfcnParams p = rfcnParams(call);
  const std::vector<float> rois = rfcnRoiTable(call.inputs[1]);
  const int64_t r_n = call.inputs[1].shape[2], g = p.group;
  for (int64_t n = 0; n < d.n * r_n; ++n) {
    const RoiBox roi = roiAt(call, rois, n, d.n);
    for (int64_t c = 0; c < p.output_dim; ++c)
      for (int64_t i = 0; i < g; ++i)
        for (int64_t j = 0; j < g; ++j)
          fn(roi.batch, (c * g + i) * g + j, ((n * p.output_dim + c) * g + i) * g + j, rfcnBin(roi, i, j, p, d));
  }
}

void computeRfcnForward(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const FeatureDims d{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
  const std::vector<float> xv = loadAllFloat(x);
  std::vector<float> out(static_cast<size_t>(call.outputs[0].numel()));
  forEachRfcnBin(call, d, [&](int64_t b, int64_t c_in, int64_t o, const PixelBin& pb) {
    const float* src = xv.data() + (b * d.c + c_in) * d.h * d.w;
    float v = 0;
    for (int64_t h = pb.hs; h < pb.he; ++h)
      for (int64_t w = pb.ws; w < pb.we; ++w) v += src[h * d.w + w];
    out[static_cast<size_t>(o)] = pb.empty() ? 0.0f : v / pb.area();
  });
  storeAllFloat(call.outputs[0], out);
}

void computeRfcnGrad(const OpCall& call) {
  const TensorArg& dx = call.outputs[0];
  const FeatureDims d{dx.shape[0], dx.shape[1], dx.shape[2], dx.shape[3]};
  const std::vector<float> g = loadAllFloat(call.inputs[0]);
  std::vector<float> acc(static_cast<size_t>(dx.numel()), 0.0f);
  forEachRfcnBin(call, d, [&](int64_t b, int64_t c_in, int64_t o, const PixelBin& pb) {
    if (pb.empty()) return;
    float* dst = acc.data() + (b * d.c + c_in) * d.h * d.w;
    const float share = g[static_cast<size_t>(o)] / pb.area();
    for (int64_t h = pb.hs; h < pb.he; ++h)
      for (int64_t w = pb.ws; w < pb.we; ++w) dst[h * d.w + w] += share;
  });
  storeAllFloat(dx, acc);
}

// --- torchvision's form ---

void validateForward(const OpCall& call) {
  if (isRfcnForm(call)) return validateRfcnForward(call);
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
  if (isRfcnForm(call)) return computeRfcnForward(call);
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
  if (isRfcnForm(call)) {
    const int64_t g = rfcnParams(call).group;
    return std::max(1.0, static_cast<double>(map.shape[2] * map.shape[3]) / static_cast<double>(g * g));
  }
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
  if (isRfcnForm(call)) return validateRfcnGrad(call);
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
  if (isRfcnForm(call)) return computeRfcnGrad(call);
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
