"""Rotated boxes on the CPU, in float64: the references of the npu_op_tests/detection tests of
torch_npu.npu_rotated_overlaps, npu_rotated_iou, npu_rotated_box_encode / npu_rotated_box_decode and
npu_nms_rotated.

A box is (cx, cy, w, h, angle), or with trans (x1, y1, x2, y2, angle): the corners of the box before it turns
about its centre. The angle is in degrees. The overlap of two boxes is the exact area of the intersection of
their quadrilaterals: one is clipped by each edge of the other (Sutherland-Hodgman; both convex, taken
counter-clockwise) and measured by the shoelace formula; a box of area 0 overlaps nothing. A box's area is
|w * h|. IoU divides the overlap by the union, IoF by the first box's area, and both are 0 where that
denominator is 0.

The coders work on [B, 5, N] tensors, a row per coordinate (x1, y1, x2, y2, angle); with (x, y, w, h) the
anchor's centre and size and (gx, gy, gw, gh) the ground truth's,
    delta = weight * ((gx - x) / w, (gy - y) / h, log(gw / w), log(gh / h), tan(angle_g) - tan(angle_a)),
and the decode inverts it, the angle coming back by atan, in (-90, 90) degrees.
"""
import math

import numpy as np
import torch

__all__ = ["upstream_random_boxes", "box_corners", "box_area", "intersection_area", "rotated_overlaps_reference",
           "rotated_iou_reference", "rotated_box_encode_reference", "rotated_box_decode_reference",
           "nms_rotated_reference"]


def upstream_random_boxes(shape, low, high, dtype):
    """torch_npu's test data, [B, N, 5] (shape = [B, N, 5]) in numpy dtype `dtype`, drawn from numpy's global
    generator as its tests draw it: centres uniform in [low, high), sizes integers in [1, 20), angles integers
    in [-180, 180) degrees. Seed it (np.random.seed(1234)) before the first box of a test."""
    centre = np.random.uniform(low, high, shape[:2] + [2]).astype(dtype)
    size = np.random.randint(1, 20, size=shape[:2] + [2])
    angle = np.random.randint(-180, 180, size=shape[:2] + [1])
    return np.concatenate([centre, size, angle], axis=-1, dtype=dtype)


def _centre_form(box, trans):
    if trans:
        x1, y1, x2, y2, angle = box
        return (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1, angle
    return tuple(box)


def _signed_area(poly):
    return 0.5 * sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, poly[1:] + poly[:1]))


def box_corners(box, trans=False):
    """The four corners of a box (five numbers), counter-clockwise."""
    cx, cy, w, h, angle = (float(v) for v in _centre_form(box, trans))
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    poly = [(cx + c * dx - s * dy, cy + s * dx + c * dy)
            for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]
    return poly if _signed_area(poly) >= 0 else poly[::-1]


def box_area(box, trans=False):
    _, _, w, h, _ = (float(v) for v in _centre_form(box, trans))
    return abs(w * h)


def intersection_area(box1, box2, trans=False):
    """The area of the intersection of two boxes."""
    out, clipper = box_corners(box1, trans), box_corners(box2, trans)
    if _signed_area(clipper) == 0:
        # A flat clipper (a point or a segment) has no inside; clipping by it would keep whatever lies on
        # its degenerate (zero-length) edges' "left", i.e. everything.
        return 0.0
    for a, b in zip(clipper, clipper[1:] + clipper[:1]):
        if not out:
            break
        polygon, out = out, []

        def side(p):
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

        for p, q in zip(polygon, polygon[1:] + polygon[:1]):
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return abs(_signed_area(out)) if len(out) >= 3 else 0.0


def _table(t):
    """A tensor (any float dtype, any device) as a float64 numpy array: exact, as the kernels read it."""
    return t.detach().cpu().double().numpy() if isinstance(t, torch.Tensor) else np.asarray(t, dtype=np.float64)


def rotated_overlaps_reference(boxes, query_boxes, trans=False):
    """npu_rotated_overlaps of [B, N, 5] and [B, K, 5] boxes: [B, N, K] float64 intersection areas."""
    b, q = _table(boxes), _table(query_boxes)
    out = np.zeros((b.shape[0], b.shape[1], q.shape[1]))
    for n in range(b.shape[0]):
        for i in range(b.shape[1]):
            for j in range(q.shape[1]):
                out[n, i, j] = intersection_area(b[n, i], q[n, j], trans)
    return torch.from_numpy(out)


def rotated_iou_reference(boxes, query_boxes, trans=False, mode=0):
    """npu_rotated_iou of [B, N, 5] and [B, K, 5] boxes: [B, N, K] float64 IoU (mode 0) or IoF (mode 1, the
    overlap over the area of `boxes`' box)."""
    b, q = _table(boxes), _table(query_boxes)
    inter = rotated_overlaps_reference(b, q, trans)
    area1 = torch.tensor([[box_area(box, trans) for box in batch] for batch in b], dtype=torch.float64)
    area2 = torch.tensor([[box_area(box, trans) for box in batch] for batch in q], dtype=torch.float64)
    area1 = area1.reshape(b.shape[0], b.shape[1], 1)
    denom = area1 + area2.reshape(q.shape[0], 1, q.shape[1]) - inter if mode == 0 else area1.expand_as(inter)
    return torch.where(denom > 0, inter / denom.clamp_min(1e-300), torch.zeros_like(inter))


def _centres(t):
    """(cx, cy, w, h, tan(angle)) of a float64 [B, 5, N] tensor of (x1, y1, x2, y2, angle) rows."""
    x1, y1, x2, y2, angle = t.unbind(1)
    return (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1, torch.tan(torch.deg2rad(angle))


def _weight(weight):
    return torch.as_tensor(weight).detach().cpu().double().reshape(1, 5, 1)


def rotated_box_encode_reference(anchors, gt_bboxes, weight):
    """npu_rotated_box_encode of [B, 5, N] anchors and ground truths: [B, 5, N] float64 deltas."""
    ax, ay, aw, ah, at = _centres(anchors.detach().cpu().double())
    gx, gy, gw, gh, gt = _centres(gt_bboxes.detach().cpu().double())
    delta = torch.stack([(gx - ax) / aw, (gy - ay) / ah, torch.log(gw / aw), torch.log(gh / ah), gt - at], 1)
    return delta * _weight(weight)


def rotated_box_decode_reference(anchors, deltas, weight):
    """npu_rotated_box_decode of [B, 5, N] anchors and deltas: [B, 5, N] float64 boxes."""
    ax, ay, aw, ah, at = _centres(anchors.detach().cpu().double())
    dx, dy, dw, dh, da = (deltas.detach().cpu().double() / _weight(weight)).unbind(1)
    cx, cy, w, h = ax + dx * aw, ay + dy * ah, aw * torch.exp(dw), ah * torch.exp(dh)
    angle = torch.rad2deg(torch.atan(at + da))
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, angle], 1)


def nms_rotated_reference(dets, scores, iou_threshold, scores_threshold=0.0, max_output_size=-1, mode=0):
    """npu_nms_rotated's kept indices (a list, best first) of [N, 5] boxes (mode 0: (cx, cy, w, h, angle);
    mode 1: (x1, y1, x2, y2, angle)) and [N] scores: greedy, by descending score (ties: lower index first)
    over the boxes scoring above scores_threshold (scores and threshold compared in float32); a box is
    dropped when its IoU with a kept box is above iou_threshold; at most max_output_size boxes (-1: all)."""
    boxes = _table(dets)
    s = scores.detach().cpu().float().numpy() if isinstance(scores, torch.Tensor) else np.float32(scores)
    trans = mode == 1
    order = sorted((i for i in range(len(boxes)) if s[i] > np.float32(scores_threshold)), key=lambda i: -s[i])
    kept = []
    for i in order:
        if 0 <= max_output_size <= len(kept):
            break
        suppressed = False
        for k in kept:
            inter = intersection_area(boxes[k], boxes[i], trans)
            union = box_area(boxes[k], trans) + box_area(boxes[i], trans) - inter
            if union > 0 and inter / union > iou_threshold:
                suppressed = True
                break
        if not suppressed:
            kept.append(i)
    return kept


def random_boxes(batch, num, seed, span=20.0):
    """[batch, num, 5] (cx, cy, w, h, angle) boxes crowded into a span x span square, so many of them overlap."""
    g = torch.Generator().manual_seed(seed)
    centre = torch.rand(batch, num, 2, generator=g) * span
    size = torch.rand(batch, num, 2, generator=g) * 9 + 1
    angle = torch.rand(batch, num, 1, generator=g) * 360 - 180
    return torch.cat([centre, size, angle], 2)


def corners_form(boxes):
    """The same boxes as (x1, y1, x2, y2, angle): the corners of the box before it turns."""
    centre, size = boxes[..., :2], boxes[..., 2:4]
    return torch.cat([centre - size / 2, centre + size / 2, boxes[..., 4:]], -1)
