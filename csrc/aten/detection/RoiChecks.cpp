// Argument checks of the region-of-interest ops (DetectionOps.h).
#include "DetectionOps.h"

namespace at_npu {
namespace native {
namespace detection {

void checkFeatureMap(const char* op, const at::Tensor& input) {
  TORCH_CHECK(input.dim() == 4, op, ": input must be a 4-D [N, C, H, W] feature map, got shape ", input.sizes());
  TORCH_CHECK(at::isFloatingType(input.scalar_type()), op, ": input must be floating point, got ", input.scalar_type());
}

void checkBoxes(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 2 && t.size(1) == 4, op, ": ", name, " must be [N, 4], got shape ", t.sizes());
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, ": ", name, " must be floating point, got ", t.scalar_type());
}

void checkRois(const char* op, const at::Tensor& rois, const at::Tensor& input) {
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, op,
              ": rois must be [K, 5] (batch index, x1, y1, x2, y2), got shape ", rois.sizes());
  TORCH_CHECK(at::isFloatingType(rois.scalar_type()), op, ": rois must be floating point, got ", rois.scalar_type());
  TORCH_CHECK(rois.device() == input.device(), op, ": rois on ", rois.device(), " and input on ", input.device(),
              " must be on the same device");
}

void checkPooledSize(const char* op, int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(pooled_height > 0 && pooled_width > 0, op, ": the output size (pooled_height ", pooled_height,
              ", pooled_width ", pooled_width, ") must be positive");
}

void checkInputSize(const char* op, at::IntArrayRef input_size) {
  TORCH_CHECK(
      input_size.size() == 4 && input_size[0] >= 0 && input_size[1] >= 0 && input_size[2] >= 0 && input_size[3] >= 0,
      op, ": the input size (batch_size, channels, height, width) must be 4 non-negative numbers, got ", input_size);
}

}  // namespace detection
}  // namespace native
}  // namespace at_npu
