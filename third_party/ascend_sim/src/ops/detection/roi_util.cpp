#include "ops/detection/roi_util.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ascend_sim {

FeatureDims checkFeatureMap(const OpCall& call, const TensorArg& x, const char* name) {
  checkDtype(call, x, name, kFloatTypes);
  if (x.shape.size() != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(name) + " must be a 4-D NCHW feature map, got shape " + shapeToString(x.shape));
  return FeatureDims{x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
}

int64_t checkRois(const OpCall& call, const TensorArg& rois) {
  checkDtype(call, rois, "input rois", kFloatTypes);
  if (rois.shape.size() != 2 || rois.shape[1] != 5)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input rois must be [K, 5] (batch index, x1, y1, x2, y2), got shape " + shapeToString(rois.shape));
  return rois.shape[0];
}

void checkBoxTable(const OpCall& call, const TensorArg& t, const char* name) {
  checkDtype(call, t, name, kFloatTypes);
  if (t.shape.size() != 2 || t.shape[1] != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(name) + " must be [N, 4], got shape " + shapeToString(t.shape));
}

bool iofModeOf(const OpCall& call) {
  const std::string mode = attrString(call, "mode", "iou");
  if (mode != "iou" && mode != "iof")
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr mode must be \"iou\" or \"iof\", got \"" + mode + "\"");
  return mode == "iof";
}

std::vector<float> loadAllFloat(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void storeAllFloat(const TensorArg& t, const std::vector<float>& v) {
  if (!v.empty()) storeFloat(t.dtype, t.data, 0, static_cast<int64_t>(v.size()), v.data());
}

RoiBox roiAt(const OpCall& call, const std::vector<float>& rois, int64_t k, int64_t batch) {
  const float* r = &rois[static_cast<size_t>(k * 5)];
  RoiBox box{static_cast<int64_t>(r[0]), r[1], r[2], r[3], r[4]};
  if (!(r[0] >= 0.0f) || box.batch >= batch)
    throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION,
                      call.op_type + ": roi " + std::to_string(k) + " has batch index " + std::to_string(r[0]) +
                          ", outside the feature map's batch of " + std::to_string(batch));
  return box;
}

BilinearTaps roiAlignTaps(float y, float x, int64_t h, int64_t w) {
  BilinearTaps t;
  if (y < -1.0f || y > static_cast<float>(h) || x < -1.0f || x > static_cast<float>(w)) return t;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= h - 1) {
    y_high = y_low = h - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= w - 1) {
    x_high = x_low = w - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  t.idx[0] = y_low * w + x_low;
  t.idx[1] = y_low * w + x_high;
  t.idx[2] = y_high * w + x_low;
  t.idx[3] = y_high * w + x_high;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  t.any = true;
  return t;
}

AlignBins alignBins(const RoiBox& roi, float spatial_scale, int64_t pooled_h, int64_t pooled_w, int64_t sample_num,
                    int64_t roi_end_mode) {
  const float offset = roi_end_mode == 2 ? 0.5f : 0.0f, end_extra = roi_end_mode == 1 ? 1.0f : 0.0f;
  AlignBins b;
  b.start_w = roi.x1 * spatial_scale - offset;
  b.start_h = roi.y1 * spatial_scale - offset;
  float roi_w = (roi.x2 + end_extra) * spatial_scale - offset - b.start_w;
  float roi_h = (roi.y2 + end_extra) * spatial_scale - offset - b.start_h;
  if (roi_end_mode != 2) {
    roi_w = std::max(roi_w, 1.0f);
    roi_h = std::max(roi_h, 1.0f);
  }
  b.bin_h = roi_h / static_cast<float>(pooled_h);
  b.bin_w = roi_w / static_cast<float>(pooled_w);
  b.grid_h = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(roi_h / static_cast<float>(pooled_h)));
  b.grid_w = sample_num > 0 ? sample_num : static_cast<int64_t>(std::ceil(roi_w / static_cast<float>(pooled_w)));
  b.count = static_cast<float>(std::max<int64_t>(b.grid_h * b.grid_w, 1));
  return b;
}

std::vector<BilinearTaps> alignTaps(const AlignBins& b, int64_t pooled_h, int64_t pooled_w, const FeatureDims& d) {
  std::vector<BilinearTaps> taps;
  taps.reserve(static_cast<size_t>(pooled_h * pooled_w * b.samples()));
  for (int64_t ph = 0; ph < pooled_h; ++ph)
    for (int64_t pw = 0; pw < pooled_w; ++pw)
      for (int64_t iy = 0; iy < b.grid_h; ++iy) {
        const float y = b.start_h + static_cast<float>(ph) * b.bin_h +
                        static_cast<float>(iy + .5f) * b.bin_h / static_cast<float>(b.grid_h);
        for (int64_t ix = 0; ix < b.grid_w; ++ix) {
          const float x = b.start_w + static_cast<float>(pw) * b.bin_w +
                          static_cast<float>(ix + .5f) * b.bin_w / static_cast<float>(b.grid_w);
          taps.push_back(roiAlignTaps(y, x, d.h, d.w));
        }
      }
  return taps;
}

RoiPixels roiPixels(const RoiBox& roi, float spatial_scale) {
  return RoiPixels{static_cast<int64_t>(std::round(roi.x1 * spatial_scale)),
                   static_cast<int64_t>(std::round(roi.y1 * spatial_scale)),
                   static_cast<int64_t>(std::round(roi.x2 * spatial_scale)),
                   static_cast<int64_t>(std::round(roi.y2 * spatial_scale))};
}

KernelCost roiVectorCost(const OpCall& call, double samples_per_output, const TensorArg& out) {
  KernelCost c = vectorCost(call);
  const double reads = samples_per_output * static_cast<double>(out.numel());
  c.vector_bytes += reads * static_cast<double>(dtypeSize(out.dtype));
  c.flops = 2.0 * reads;
  return c;
}

}  // namespace ascend_sim
