"""torch_npu.contrib.module.ROIAlign (torch_npu/contrib/module/roi_align.py): RoIAlign pooling as a
module, differentiable, on torchvision.ops.roi_align (on the NPU: the ROIAlign kernel and its grad)."""
from torch import nn
from torch.nn.modules.utils import _pair

__all__ = ["ROIAlign"]


class ROIAlign(nn.Module):
    """ROIAlign(output_size, spatial_scale, sampling_ratio, aligned=True); forward(input, rois).

    input: (N, C, H, W); rois: (K, 5) = (batch index, x1, y1, x2, y2) in input-image coordinates, scaled by
    spatial_scale; sampling_ratio: samples per bin along each axis (0: adaptive). aligned shifts the box by
    -0.5 pixel (torchvision's aligned=True). Returns (K, C, out_h, out_w), float32.

    torch_npu computes aligned=True with its roi_end_mode 3 (MMDetection v0.6) and warns that its results
    differ from the CPU/GPU; this module gives torchvision's roi_align exactly (aligned=False is the same
    in both).
    """

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=True):
        super().__init__()
        self.output_size = _pair(output_size)
        self.spatial_scale = float(spatial_scale)
        self.sampling_ratio = int(sampling_ratio)
        self.aligned = aligned

    def forward(self, input, rois):  # torch_npu names it input
        if rois.dim() != 2 or rois.size(1) != 5:
            raise ValueError(f"ROIAlign: rois must be (K, 5) (batch index, x1, y1, x2, y2), got shape "
                             f"{tuple(rois.shape)}")
        from torchvision.ops import roi_align
        return roi_align(input.float(), rois.float(), self.output_size, self.spatial_scale, self.sampling_ratio,
                         self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")
