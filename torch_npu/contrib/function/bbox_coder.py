"""Box coders of torch_npu.contrib.function (torch_npu/contrib/function/bbox_coder.py):
npu_bbox_coder_encode_xyxy2xywh / npu_bbox_coder_decode_xywh2xyxy (mmdet's DeltaXYWHBBoxCoder, legacy
"+1" box sizes, on torch_npu.npu_bounding_box_encode / decode) and npu_bbox_coder_encode_yolo (mmdet's
YOLOBBoxCoder.encode, on torch_npu.npu_yolo_boxes_encode)."""
import torch_npu
from torch_npu.contrib._native import native_op

__all__ = ["npu_bbox_coder_encode_yolo", "npu_bbox_coder_encode_xyxy2xywh", "npu_bbox_coder_decode_xywh2xyxy"]


def _check_pair(caller, first, second, first_name, second_name):
    if first.size(0) != second.size(0):
        raise ValueError(f"{caller}: {first_name} and {second_name} must have as many boxes, got "
                         f"{first.size(0)} and {second.size(0)}")
    if first.size(-1) != 4 or second.size(-1) != 4:
        raise ValueError(f"{caller}: {first_name} and {second_name} must end with 4 coordinates, got shapes "
                         f"{tuple(first.shape)} and {tuple(second.shape)}")


def npu_bbox_coder_encode_yolo(bboxes, gt_bboxes, stride):
    """The deltas (tx, ty, tw, th) that take each anchor box of bboxes (n, 4) to its gt box of gt_bboxes
    (n, 4), both (x1, y1, x2, y2), for the strides (n,) of the anchors' feature map: (n, 4) float.

    With eps = 1e-6: tx = clamp((gt centre x - anchor centre x) / stride + 0.5, eps, 1 - eps) (ty likewise)
    and tw = log(max(gt width / anchor width, eps)) (th likewise). The boxes are cast to float and the
    strides to int32; computed by torch_npu.npu_yolo_boxes_encode (performance_mode=False).
    """
    _check_pair("npu_bbox_coder_encode_yolo", bboxes, gt_bboxes, "bboxes", "gt_bboxes")
    return torch_npu.npu_yolo_boxes_encode(bboxes.float(), gt_bboxes.float(), stride.int(), performance_mode=False)


def npu_bbox_coder_encode_xyxy2xywh(bboxes, gt_bboxes, means=None, stds=None, is_normalized=False,
                                    normalized_scale=10000.):
    """The deltas (dx, dy, dw, dh) that take each box of bboxes (n, 4) to gt_bboxes (n, 4), both (x1, y1,
    x2, y2), with box sizes x2 - x1 + 1, normalised by means and stds (default 0 and 1): (n, 4) float.

    With is_normalized (coordinates in [0, 1]) both are multiplied by normalized_scale first, so that
    the "+1" stays small against the sizes.
    """
    means = [0., 0., 0., 0.] if means is None else means
    stds = [1., 1., 1., 1.] if stds is None else stds
    _check_pair("npu_bbox_coder_encode_xyxy2xywh", bboxes, gt_bboxes, "bboxes", "gt_bboxes")
    op = native_op("npu_bounding_box_encode", "torch_npu.contrib.npu_bbox_coder_encode_xyxy2xywh")
    bboxes, gt_bboxes = bboxes.float(), gt_bboxes.float()
    if is_normalized:
        bboxes = bboxes * normalized_scale
        gt_bboxes = gt_bboxes * normalized_scale
    return op(bboxes, gt_bboxes, *means, *stds)


def npu_bbox_coder_decode_xywh2xyxy(bboxes, pred_bboxes, means=None, stds=None, max_shape=None,
                                    wh_ratio_clip=16 / 1000):
    """The boxes (n, 4) (x1, y1, x2, y2) that the deltas pred_bboxes (n, 4) make of bboxes (n, 4): the
    inverse of npu_bbox_coder_encode_xyxy2xywh, dw and dh clipped to |log(wh_ratio_clip)|, the result
    clipped to max_shape (h, w) (default (9999, 9999))."""
    means = [0., 0., 0., 0.] if means is None else means
    stds = [1., 1., 1., 1.] if stds is None else stds
    max_shape = [9999, 9999] if max_shape is None else max_shape
    _check_pair("npu_bbox_coder_decode_xywh2xyxy", pred_bboxes, bboxes, "pred_bboxes", "bboxes")
    op = native_op("npu_bounding_box_decode", "torch_npu.contrib.npu_bbox_coder_decode_xywh2xyxy")
    return op(bboxes.float(), pred_bboxes.float(), *means, *stds, [int(v) for v in max_shape], wh_ratio_clip)
