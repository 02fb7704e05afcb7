"""Multi-class NMS of torch_npu.contrib.function (torch_npu/contrib/function/nms.py): npu_multiclass_nms
and npu_batched_multiclass_nms, mmdet's multiclass_nms on torch_npu.npu_batch_nms."""
import torch

from torch_npu.contrib._native import native_op

__all__ = ["npu_multiclass_nms", "npu_batched_multiclass_nms"]


def _boxes_per_anchor(boxes, anchors):
    """q of npu_batch_nms's (..., q, 4) boxes: 1 (shared by the classes) or #class."""
    return boxes.numel() // 4 // anchors if anchors else 1


def _batch_nms(caller, boxes, scores, score_thr, nms_thr, max_num):
    if not isinstance(max_num, int) or max_num <= 0:
        raise ValueError(f"{caller}: max_num must be a positive int (-1 is not supported), got {max_num!r}")
    op = native_op("npu_batch_nms", f"torch_npu.contrib.{caller}")
    return op(boxes.half(), scores.half(), score_thr, nms_thr, max_num, max_num)


def npu_multiclass_nms(multi_bboxes, multi_scores, score_thr=0.05, nms_thr=0.45, max_num=50, score_factors=None):
    """NMS for multi-class boxes of one image.

    multi_bboxes: (n, #class, 4) or (n, 4) (shared by the classes); multi_scores: (n, #class + 1), the last
    column the background (ignored); score_factors: (n,), multiplied into the scores. Per class, boxes
    scoring above score_thr are suppressed at IoU nms_thr (at most max_num kept); the kept boxes of all
    classes are then ordered by score and the first max_num returned, computed in float16:
    (dets (max_num, 5) = (x1, y1, x2, y2, score), labels (max_num,) = the class ids as floats), the
    rows past the number kept being 0.
    """
    num_boxes, num_classes = multi_scores.size(0), multi_scores.size(1) - 1
    scores = multi_scores[:, :-1]
    if score_factors is not None:
        scores = scores * score_factors[:, None]
    boxes = multi_bboxes.reshape(1, num_boxes, _boxes_per_anchor(multi_bboxes, num_boxes), 4)
    scores = scores.reshape(1, num_boxes, num_classes)
    nmsed_boxes, nmsed_scores, nmsed_classes, _ = _batch_nms("npu_multiclass_nms", boxes, scores, score_thr,
                                                             nms_thr, max_num)
    dets = torch.cat([nmsed_boxes[0], nmsed_scores[0][:, None]], -1)
    return dets, nmsed_classes[0]


def npu_batched_multiclass_nms(multi_bboxes, multi_scores, score_thr=0.05, nms_thr=0.45, max_num=50,
                               score_factors=None):
    """npu_multiclass_nms over a batch of images.

    multi_bboxes: (bs, n, #class, 4) or (bs, n, 4); multi_scores: (bs, n, #class + 1); score_factors:
    (bs, n). Returns (dets (bs, max_num, 5), labels (bs, max_num)), float16.
    """
    batch, num_boxes, num_classes = multi_scores.size(0), multi_scores.size(1), multi_scores.size(2) - 1
    scores = multi_scores[..., :-1]
    if score_factors is not None:
        scores = scores * score_factors[..., None]
    boxes = multi_bboxes.reshape(batch, num_boxes, _boxes_per_anchor(multi_bboxes, batch * num_boxes), 4)
    scores = scores.reshape(batch, num_boxes, num_classes)
    nmsed_boxes, nmsed_scores, nmsed_classes, _ = _batch_nms("npu_batched_multiclass_nms", boxes, scores,
                                                             score_thr, nms_thr, max_num)
    return torch.cat([nmsed_boxes, nmsed_scores[..., None]], -1), nmsed_classes
