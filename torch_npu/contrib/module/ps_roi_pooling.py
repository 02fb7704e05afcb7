"""torch_npu.contrib.module.PSROIPool (torch_npu/contrib/module/ps_roi_pooling.py): R-FCN's
position-sensitive RoI pooling as a module, on torch_npu.npu_ps_roi_pooling (on the NPU: CANN's
PSROIPoolingV2 kernel in its own form, and PSROIPoolingGradV2D for the backward).

Note [PSROIPool bins]
torch_npu's npu_ps_roi_pooling places a roi's bins as R-FCN's Caffe layer does, in float32: the corners
are rounded before scaling (C's round, halves away from zero) and the end is inclusive, so the roi spans
[round(x1) * scale, (round(x2) + 1) * scale) and is at least 0.1 pixel wide; bin (i, j) covers the pixels
from floor(round(x1) * scale + j * bin_w) to ceil(round(x1) * scale + (j + 1) * bin_w), rows likewise,
clipped to the map. Output channel c of bin (i, j) averages input channel (c * group_size + i) *
group_size + j over those pixels, an empty bin being 0; the gradient spreads each output's gradient evenly
over the same pixels. These are not torchvision's ps_roi_pool bins (which round the scaled corners,
round(x1 * scale), have an exclusive end and a roi of at least 1 pixel), so the two can differ by a pixel
per bin, most for small rois.
"""
from torch import nn

import torch_npu

__all__ = ["PSROIPool"]


class PSROIPool(nn.Module):
    """PSROIPool(pooled_height=7, pooled_width=7, spatial_scale=1/16, group_size=7, output_dim=22);
    forward(features, rois).

    features: (N, output_dim * group_size ** 2, H, W); rois: (N, 5, rois_num), dim 1 = (batch index in
    [0, N), x1, y1, x2, y2) in input-image pixels (spatial_scale maps them onto features). Returns
    (N * rois_num, output_dim, group_size, group_size), differentiable in features
    (see Note [PSROIPool bins]).
    """

    def __init__(self, pooled_height=7, pooled_width=7, spatial_scale=1 / 16, group_size=7, output_dim=22):
        super().__init__()
        if not pooled_height == pooled_width == group_size:
            raise ValueError(f"PSROIPool: pooled_height, pooled_width and group_size must be equal, got "
                             f"{pooled_height}, {pooled_width} and {group_size}")
        self.pooled_height, self.pooled_width = int(pooled_height), int(pooled_width)
        self.spatial_scale = float(spatial_scale)
        self.group_size, self.output_dim = int(group_size), int(output_dim)

    def forward(self, features, rois):
        if rois.dim() != 3 or rois.size(1) != 5:
            raise ValueError(f"PSROIPool: rois must be (batch, 5, rois_num), got shape {tuple(rois.shape)}")
        channels = self.output_dim * self.group_size ** 2
        if features.dim() != 4 or features.size(1) != channels:
            raise ValueError(f"PSROIPool: features must be (N, output_dim * group_size ** 2 = {channels}, H, W), "
                             f"got shape {tuple(features.shape)}")
        return torch_npu.npu_ps_roi_pooling(features, rois, self.spatial_scale, self.group_size, self.output_dim)

    def __repr__(self):
        return (f"{self.__class__.__name__}(pooled_height={self.pooled_height}, pooled_width={self.pooled_width}, "
                f"spatial_scale={self.spatial_scale}, group_size={self.group_size}, output_dim={self.output_dim})")
