// What the region-of-interest kernels (ROIAlign, ROIPoolingWithArgMax,
// PSROIPoolingV2, PSROIAlign and their gradients) share: the [K, 5] roi
// table, the NCHW feature map they read, and torchvision's two bilinear
// sampling rules; and the checks of the box kernels (box tables, IoU modes).
//
// Note [ROI tables]
// rois is [K, 5] (fp32 or fp16): (batch index, x1, y1, x2, y2) in input-image
// coordinates; spatial_scale maps them onto the feature map. The batch index
// is read as a float and truncated, as the reference implementations do; one
// outside [0, N) is a device fault (the data is not known when the op is
// validated). Features are NCHW of the rois' float dtype family; every kernel
// computes in fp32 and rounds its outputs once.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

struct FeatureDims {
  int64_t n = 0, c = 0, h = 0, w = 0;
};

// x must be a 4-D float feature map; returns its dims (`name` in messages).
FeatureDims checkFeatureMap(const OpCall& call, const TensorArg& x, const char* name);
// rois must be [K, 5] of a float dtype; returns K.
int64_t checkRois(const OpCall& call, const TensorArg& rois);
// t must be a float box table [N, 4] (`name` in messages).
void checkBoxTable(const OpCall& call, const TensorArg& t, const char* name);
// Attr mode of the overlap kernels (Iou, RotatedIou): "iou" (false) or "iof" (true).
bool iofModeOf(const OpCall& call);
// The whole of t as fp32, row-major.
std::vector<float> loadAllFloat(const TensorArg& t);

struct RoiBox {
  int64_t batch = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};
// Row k of a loaded roi table; a batch index outside [0, batch) is a device fault.
RoiBox roiAt(const OpCall& call, const std::vector<float>& rois, int64_t k, int64_t batch);

// One bilinear sample: up to four taps (offsets into an H*W plane) and their weights.
struct BilinearTaps {
  int64_t idx[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
  bool any = false;  // false: the sample lies outside and contributes nothing
};

// RoIAlign's rule: a point beyond one pixel outside the map is zero; points in
// the border pixel clamp to the edge (Note [RoIAlign sampling] in roi_align.cpp).
BilinearTaps roiAlignTaps(float y, float x, int64_t h, int64_t w);
// The value of a sample on one plane.
inline float sampleAt(const float* plane, const BilinearTaps& t) {
  if (!t.any) return 0.0f;
  return t.w[0] * plane[t.idx[0]] + t.w[1] * plane[t.idx[1]] + t.w[2] * plane[t.idx[2]] + t.w[3] * plane[t.idx[3]];
}

// One roi's RoIAlign bins (Note [RoIAlign sampling] in roi_align.cpp): where
// the samples of bin (0, 0) start, the bin size and the sample grid.
struct AlignBins {
  float start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
  int64_t grid_h = 1, grid_w = 1;
  float count = 1;  // the divisor: grid_h * grid_w, at least 1
  // Samples taken per bin (none for an empty or inverted adaptive grid).
  int64_t samples() const { return (grid_h > 0 ? grid_h : 0) * (grid_w > 0 ? grid_w : 0); }
};
AlignBins alignBins(const RoiBox& roi, float spatial_scale, int64_t pooled_h, int64_t pooled_w, int64_t sample_num,
                    int64_t roi_end_mode);
// The taps of every sample of every bin of one roi, bin by bin in row-major order.
std::vector<BilinearTaps> alignTaps(const AlignBins& b, int64_t pooled_h, int64_t pooled_w, const FeatureDims& d);

// Roi coordinates rounded to whole feature-map pixels (the pooling kernels).
struct RoiPixels {
  int64_t start_w = 0, start_h = 0, end_w = 0, end_h = 0;
};
RoiPixels roiPixels(const RoiBox& roi, float spatial_scale);

// Gradient outputs accumulate in fp32 and are stored once.
void storeAllFloat(const TensorArg& t, const std::vector<float>& v);

// Cost of a kernel that reads `samples` feature values per output element on
// the Vector unit (plus its operands once).
KernelCost roiVectorCost(const OpCall& call, double samples_per_output, const TensorArg& out);

}  // namespace ascend_sim
