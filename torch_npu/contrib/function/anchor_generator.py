"""Anchor helper of torch_npu.contrib.function (torch_npu/contrib/function/anchor_generator.py):
npu_single_level_responsible_flags, mmdet's YOLOAnchorGenerator.single_level_responsible_flags on
torch_npu.npu_anchor_response_flags."""
import torch_npu

__all__ = ["npu_single_level_responsible_flags"]


def npu_single_level_responsible_flags(featmap_size, gt_bboxes, stride, num_base_anchors):
    """uint8 flags (H * W * num_base_anchors,): 1 for the anchors of the feature-map cell (size featmap_size
    (H, W), stride (sw, sh)) that holds a gt box's centre. gt_bboxes: (n, 4) (x1, y1, x2, y2)."""
    if len(featmap_size) != 2 or len(stride) != 2:
        raise ValueError(f"npu_single_level_responsible_flags: featmap_size and stride must hold 2 values, got "
                         f"{featmap_size} and {stride}")
    if gt_bboxes.dim() != 2 or gt_bboxes.size(-1) != 4:
        raise ValueError(f"npu_single_level_responsible_flags: gt_bboxes must be (n, 4), got "
                         f"{tuple(gt_bboxes.shape)}")
    return torch_npu.npu_anchor_response_flags(gt_bboxes.float(), featmap_size, stride, num_base_anchors)
