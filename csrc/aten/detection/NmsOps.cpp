// Greedy non-maximum suppression on NonMaxSuppressionV4 (Note [Greedy NMS] in
// the simulator's ops/detection/nms.cpp): torchvision's nms.
#include <limits>

#include "DetectionOps.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace detection {

at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, "nms: boxes must be [N, 4] (x1, y1, x2, y2), got shape ",
              boxes.sizes());
  TORCH_CHECK(scores.dim() == 1 && scores.size(0) == boxes.size(0), "nms: scores must be [N] with N = ", boxes.size(0),
              " (one per box), got shape ", scores.sizes());
  TORCH_CHECK(at::isFloatingType(boxes.scalar_type()) && at::isFloatingType(scores.scalar_type()),
              "nms: boxes and scores must be floating point, got ", boxes.scalar_type(), " and ", scores.scalar_type());
  TORCH_CHECK(boxes.device() == scores.device(), "nms: boxes on ", boxes.device(), " and scores on ", scores.device(),
              " must be on the same device");
  const int64_t n = boxes.size(0);
  if (n == 0) return torch_npu::emptyNpu({0}, at::kLong, boxes.device());
  at::Tensor selected = torch_npu::emptyNpu({n}, at::kLong, boxes.device());
  at::Tensor count = torch_npu::emptyNpu({}, at::kLong, boxes.device());
  torch_npu::OpCommand("NonMaxSuppressionV4")
      .Input(boxes)
      .Input(scores)
      .InputScalar(n, at::kLong)
      .InputScalar(iou_threshold, at::kFloat)
      .InputScalar(-std::numeric_limits<float>::infinity(), at::kFloat)
      .Output(selected)
      .Output(count)
      .Attr("pad_to_max_output_size", true)
      .Run();
  return selected.narrow(0, 0, count.item<int64_t>());
}

}  // namespace detection
}  // namespace native
}  // namespace at_npu
