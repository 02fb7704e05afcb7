"""torch_npu.contrib.module.PSROIPool (torch_npu/contrib/module/ps_roi_pooling.py): R-FCN's
position-sensitive RoI pooling as a module, on torch_npu.npu_ps_roi_pooling where the backend has it, else
on torchvision.ops.ps_roi_pool (on the NPU: the PSROIPoolingV2 kernel and its grad).

Note [PSROIPool bins]
torch_npu's npu_ps_roi_pooling places a roi's bins as R-FCN's Caffe layer does: the corners are rounded
before scaling, the end is inclusive (x2 + 1) and a roi is at least 0.1 pixel, so bin (i, j) starts at
floor(round(x1) * scale + j * bin_w). torchvision's ps_roi_pool (used while the backend lacks the op)
rounds the scaled corners, round(x1 * scale), has an exclusive end and a roi of at least 1 pixel, with
bin (i, j) starting at round(x1 * scale) + floor(j * bin_w). Both average the pixels of each bin of input
channel (c * group_size + i) * group_size + j, an empty bin being 0; the bins can differ by a pixel, so
the values can too, most for small rois.
"""
from torch import nn

from torch_npu.contrib._native import native_op

__all__ = ["PSROIPool"]


class PSROIPool(nn.Module):
    """PSROIPool(pooled_height=7, pooled_width=7, spatial_scale=1/16, group_size=7, output_dim=22);
    forward(features, rois).

    features: (N, output_dim * group_size ** 2, H, W); rois: (batch, 5, rois_num), dim 1 = (batch index,
    x1, y1, x2, y2), non-negative. Returns (batch * rois_num, output_dim, group_size, group_size),
    differentiable (see Note [PSROIPool bins]).
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
        try:
            op = native_op("npu_ps_roi_pooling", "torch_npu.contrib.PSROIPool")
        except NotImplementedError:
            from torchvision.ops import ps_roi_pool
            table = rois.transpose(1, 2).reshape(-1, 5).to(features.dtype)
            return ps_roi_pool(features, table, self.group_size, self.spatial_scale)
        return op(features, rois, self.spatial_scale, self.group_size, self.output_dim)

    def __repr__(self):
        return (f"{self.__class__.__name__}(pooled_height={self.pooled_height}, pooled_width={self.pooled_width}, "
                f"spatial_scale={self.spatial_scale}, group_size={self.group_size}, output_dim={self.output_dim})")
