"""IoU helpers of torch_npu.contrib.function (torch_npu/contrib/function/iou.py): npu_iou / npu_ptiou
(on torch_npu.npu_iou / npu_ptiou), npu_giou, npu_diou and npu_ciou (on torch_npu.npu_giou / npu_diou /
npu_ciou, which the NPU backend does not have yet: those raise NotImplementedError)."""
from torch_npu.contrib._native import native_op

__all__ = ["npu_iou", "npu_ptiou", "npu_giou", "npu_diou", "npu_ciou"]


def npu_iou(boxes1, boxes2, mode="ptiou", is_normalized=False, normalized_scale=100.):
    """The overlap of every box of boxes1 (N, 4) with every box of boxes2 (M, 4), both (x1, y1, x2, y2).

    mode "iou" calls torch_npu.npu_iou, "ptiou" torch_npu.npu_ptiou (the two native operators compute
    the same intersection over union). With is_normalized, the coordinates (normalised to [0, 1]) are
    multiplied by normalized_scale first. Returns an (N, M) float tensor; not differentiable.
    """
    if mode not in ("iou", "ptiou"):
        raise ValueError(f"npu_iou: mode must be 'iou' or 'ptiou', got {mode!r}")
    boxes1, boxes2 = boxes1.float(), boxes2.float()
    if is_normalized:
        boxes1 = boxes1 * normalized_scale
        boxes2 = boxes2 * normalized_scale
    name = "npu_iou" if mode == "iou" else "npu_ptiou"
    # The native operator returns (rows = its second argument): boxes2 first gives (N, M).
    return native_op(name, "torch_npu.contrib.npu_iou")(boxes2, boxes1)


npu_ptiou = npu_iou


def npu_giou(boxes1, boxes2, is_permuted=True):
    """Generalized IoU of boxes1[i] and boxes2[i], both (n, 4) (x, y, w, h); returns (n, 1), differentiable.

    is_permuted: the boxes are given as (n, 4) and are permuted to the operator's (4, n) layout.
    """
    if boxes1.shape != boxes2.shape:
        raise ValueError(f"npu_giou: boxes1 and boxes2 must have one shape, got {tuple(boxes1.shape)} and "
                         f"{tuple(boxes2.shape)}")
    if boxes1.dim() != 2 or boxes1.size(-1 if is_permuted else 0) != 4:
        raise ValueError(f"npu_giou: boxes must be (n, 4) (or (4, n) with is_permuted=False), got "
                         f"{tuple(boxes1.shape)}")
    op = native_op("npu_giou", "torch_npu.contrib.npu_giou")
    boxes1, boxes2 = boxes1.float(), boxes2.float()
    if is_permuted:
        boxes1, boxes2 = boxes1.permute(1, 0), boxes2.permute(1, 0)
    return op(boxes1, boxes2, trans=True, is_cross=False)


def npu_diou(boxes1, boxes2, trans=True, is_cross=False, mode=0):
    """Distance IoU of (4, n) boxes (x, y, w, h when trans); returns (1, n), differentiable."""
    return native_op("npu_diou", "torch_npu.contrib.npu_diou")(boxes1, boxes2, trans, is_cross, mode)


def npu_ciou(boxes1, boxes2, trans=True, is_cross=False, mode=0):
    """Complete IoU, iou - rho^2 / c^2 - alpha * v, of (4, n) boxes; returns (1, n), differentiable."""
    # atan_sub_flag=True keeps what the backward needs.
    return native_op("npu_ciou", "torch_npu.contrib.npu_ciou")(boxes1, boxes2, trans, is_cross, mode, True)
