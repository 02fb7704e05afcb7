"""IoU helpers of torch_npu.contrib.function (torch_npu/contrib/function/iou.py): npu_iou / npu_ptiou
(on torch_npu.npu_iou / npu_ptiou), and the box-regression losses npu_giou, npu_diou and npu_ciou (on
torch_npu.npu_giou / npu_diou / npu_ciou, differentiable through npu_giou_backward / npu_diou_backward /
npu_ciou_backward, which support trans=True, is_cross=False, mode=0 only)."""
import torch_npu
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
    """Generalized IoU, iou - (area(C) - union) / area(C) with C the smallest box enclosing both, of
    boxes1[i] and boxes2[i], both (n, 4) (x, y, w, h); returns (n, 1) float, differentiable.

    is_permuted: the boxes are given as (n, 4) and are permuted to the operator's (4, n) layout (False:
    they are (4, n) already). Computed by torch_npu.npu_giou(trans=True, is_cross=False), the only
    arguments it supports; the boxes are cast to float first.
    """
    if boxes1.shape != boxes2.shape:
        raise ValueError(f"npu_giou: boxes1 and boxes2 must have one shape, got {tuple(boxes1.shape)} and "
                         f"{tuple(boxes2.shape)}")
    if boxes1.dim() != 2 or boxes1.size(-1 if is_permuted else 0) != 4:
        raise ValueError(f"npu_giou: boxes must be (n, 4) (or (4, n) with is_permuted=False), got "
                         f"{tuple(boxes1.shape)}")
    boxes1, boxes2 = boxes1.float(), boxes2.float()
    if is_permuted:
        boxes1, boxes2 = boxes1.permute(1, 0), boxes2.permute(1, 0)
    return torch_npu.npu_giou(boxes1, boxes2, trans=True, is_cross=False)


def npu_diou(boxes1, boxes2, trans=True, is_cross=False, mode=0):
    """Distance IoU, iou - rho^2 / c^2 (rho the distance of the centres, c the diagonal of the smallest
    enclosing box), of (4, n) boxes ((x, y, w, h) when trans, else (x1, y1, x2, y2)): (1, n) for
    boxes1[:, i] with boxes2[:, i], or with is_cross (m, n) against every box of boxes2 (4, m).

    torch_npu.npu_diou; differentiable with trans=True, is_cross=False, mode=0 only (the backward of other
    arguments raises RuntimeError).
    """
    return torch_npu.npu_diou(boxes1, boxes2, trans, is_cross, mode)


def npu_ciou(boxes1, boxes2, trans=True, is_cross=False, mode=0):
    """Complete IoU, iou - (rho^2 / c^2 + alpha * v) with v = 4 / pi^2 (atan(w2 / h2) - atan(w1 / h1))^2 and
    alpha = v / (1 - iou + v), of (4, n) boxes (as npu_diou): (1, n), or (m, n) with is_cross. The loss is
    1 - ciou.

    torch_npu.npu_ciou with atan_sub_flag=True (keeping what its backward needs); differentiable with
    trans=True, is_cross=False, mode=0 only, alpha taken as a constant.
    """
    return torch_npu.npu_ciou(boxes1, boxes2, trans, is_cross, mode, True)
