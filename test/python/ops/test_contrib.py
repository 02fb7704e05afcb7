"""torch_npu.contrib's affinity library (torch_npu.contrib.function / torch_npu.contrib.module) on the NPU,
each function and module against a plain-PyTorch CPU expression of what it computes, forward and, where it
is differentiable, backward."""
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torch_npu  # noqa: F401
from conftest import assert_close, run_python
from ps_roi_reference import ps_roi_pooling_backward_reference, ps_roi_pooling_reference
from torch_npu.contrib import function as cf
from torch_npu.contrib import module as cm


def _boxes(n, seed, size=60, min_wh=4, max_wh=30):
    """(n, 4) integer-valued (x1, y1, x2, y2) boxes: exact in float16."""
    g = torch.Generator().manual_seed(seed)
    xy = torch.randint(0, size, (n, 2), generator=g).float()
    wh = torch.randint(min_wh, max_wh, (n, 2), generator=g).float()
    return torch.cat([xy, xy + wh], 1)


def _grads(*tensors):
    return [t.grad.cpu() for t in tensors]


# ---- exports and import hygiene -------------------------------------------------------------------------
def test_exports():
    from torch_npu.contrib import ChannelShuffle, npu_iou  # noqa: F401
    from torch_npu.contrib.function import matmul_transpose, npu_multiclass_nms, roll  # noqa: F401
    from torch_npu.contrib.module import DCNv2, Focus, ROIAlign  # noqa: F401
    import torch_npu.contrib as contrib
    for name in ("npu_iou", "npu_ptiou", "npu_giou", "npu_diou", "npu_ciou", "npu_multiclass_nms",
                 "npu_batched_multiclass_nms", "npu_single_level_responsible_flags", "npu_fast_condition_index_put",
                 "npu_bbox_coder_encode_yolo", "npu_bbox_coder_encode_xyxy2xywh", "npu_bbox_coder_decode_xywh2xyxy",
                 "roll", "matmul_transpose"):
        assert getattr(contrib, name) is getattr(cf, name) and name in cf.__all__ and name in contrib.__all__
    for name in ("ChannelShuffle", "Prefetcher", "LabelSmoothingCrossEntropy", "ROIAlign", "DCNv2",
                 "ModulatedDeformConv", "Mish", "PSROIPool", "SiLU", "Swish", "FusedColorJitter", "NpuDropPath",
                 "Focus"):
        assert getattr(contrib, name) is getattr(cm, name) and name in cm.__all__ and name in contrib.__all__
    assert cf.npu_ptiou is cf.npu_iou and cm.DCNv2 is cm.ModulatedDeformConv and cm.Swish is cm.SiLU


def test_importing_contrib_patches_nothing_and_needs_no_torchvision():
    result = run_python("""
        import sys
        sys.modules["torchvision"] = None  # any import of torchvision fails
        import torch, torch_npu
        from torch_npu._patches import registry
        before, is_available, device = dict(registry.applied()), torch.cuda.is_available, torch.device
        import torch_npu.contrib
        from torch_npu.contrib import ChannelShuffle, roll
        assert dict(registry.applied()) == before and not registry.applied("transfer_to_npu")
        assert torch.cuda.is_available is is_available and torch.device is device
        a, b = ChannelShuffle(4)(torch.ones(1, 2, 1, 1).npu(), torch.zeros(1, 2, 1, 1).npu())
        print("ok", a.flatten().cpu().tolist(), roll(torch.arange(4.).reshape(1, 2, 2, 1).npu(), [1, 0], [1, 2])
              .flatten().cpu().tolist())
    """)
    assert result.returncode == 0, result.stderr
    assert "ok [1.0, 0.0] [2.0, 3.0, 0.0, 1.0]" in result.stdout


# ---- IoU ------------------------------------------------------------------------------------------------
def _iou_reference(b1, b2):
    lt = torch.max(b1[:, None, :2], b2[None, :, :2])
    rb = torch.min(b1[:, None, 2:], b2[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    area1, area2 = (b1[:, 2:] - b1[:, :2]).prod(1), (b2[:, 2:] - b2[:, :2]).prod(1)
    return inter / (area1[:, None] + area2[None] - inter)


@pytest.mark.parametrize("mode", ["iou", "ptiou"])
def test_npu_iou(npu, mode):
    b1, b2 = _boxes(7, 0), _boxes(5, 1)
    out = cf.npu_iou(b1.to(npu), b2.to(npu), mode=mode)
    assert out.shape == (7, 5) and out.dtype == torch.float32
    assert_close(out, _iou_reference(b1, b2))
    # normalised coordinates are scaled first; the ratio does not change; half inputs are computed in float
    out = cf.npu_ptiou(b1.half().to(npu) / 100, b2.half().to(npu) / 100, mode=mode, is_normalized=True)
    assert out.dtype == torch.float32
    assert_close(out, _iou_reference(b1, b2), rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="mode must be 'iou' or 'ptiou'"):
        cf.npu_iou(b1.to(npu), b2.to(npu), mode="giou")


# ---- multi-class NMS ------------------------------------------------------------------------------------
def _multiclass_nms_reference(boxes, scores, score_thr, nms_thr, max_num):
    """Per class: boxes scoring above score_thr, torchvision's NMS, at most max_num; then all classes by
    score, the first max_num, zero-padded."""
    from torchvision.ops import nms
    kept = []
    for c in range(scores.size(1)):
        class_boxes = boxes[:, c] if boxes.dim() == 3 else boxes
        idx = (scores[:, c] > score_thr).nonzero().flatten()
        keep = idx[nms(class_boxes[idx], scores[idx, c], nms_thr)][:max_num]
        kept += [(float(scores[k, c]), c, class_boxes[k]) for k in keep]
    kept.sort(key=lambda item: -item[0])
    dets, labels = torch.zeros(max_num, 5), torch.zeros(max_num)
    for row, (score, c, box) in enumerate(kept[:max_num]):
        dets[row, :4], dets[row, 4], labels[row] = box, score, c
    return dets, labels


def _nms_inputs(n, classes, seed, per_class_boxes):
    g = torch.Generator().manual_seed(seed)
    boxes = torch.stack([_boxes(n, seed + c) for c in range(classes)], 1) if per_class_boxes else _boxes(n, seed)
    # distinct scores, exact in float16; the last column is the background
    scores = (torch.randperm(n * (classes + 1), generator=g).float() + 40).reshape(n, classes + 1) / 256
    return boxes, scores


@pytest.mark.parametrize("per_class_boxes", [False, True])
def test_npu_multiclass_nms(npu, per_class_boxes):
    boxes, scores = _nms_inputs(40, 4, 3, per_class_boxes)
    # max_num above what survives: suppressed boxes, zero-padded rows
    dets, labels = cf.npu_multiclass_nms(boxes.to(npu), scores.to(npu), score_thr=0.3, nms_thr=0.3, max_num=120)
    assert dets.shape == (120, 5) and labels.shape == (120,) and dets.dtype == labels.dtype == torch.float16
    ref_dets, ref_labels = _multiclass_nms_reference(boxes, scores[:, :-1], 0.3, 0.3, 120)
    assert 50 < int((ref_dets[:, 4] > 0).sum()) < 120
    assert_close(dets.float(), ref_dets, rtol=0, atol=0)
    assert_close(labels.float(), ref_labels, rtol=0, atol=0)
    # score_factors multiply the scores (the product rounded to float16, where the NMS runs); max_num caps
    # every class and then the total
    factors = torch.linspace(0.5, 1.0, 40)
    dets, labels = cf.npu_multiclass_nms(boxes.to(npu), scores.to(npu), 0.2, 0.5, 8, score_factors=factors.to(npu))
    product = (scores[:, :-1] * factors[:, None]).half().float()
    ref_dets, ref_labels = _multiclass_nms_reference(boxes, product, 0.2, 0.5, 8)
    assert_close(dets.float(), ref_dets, rtol=0, atol=0)
    assert_close(labels.float(), ref_labels, rtol=0, atol=0)
    with pytest.raises(ValueError, match="max_num must be a positive int"):
        cf.npu_multiclass_nms(boxes.to(npu), scores.to(npu), max_num=-1)


def test_npu_batched_multiclass_nms(npu):
    inputs = [_nms_inputs(24, 3, seed, True) for seed in (5, 9)]
    boxes, scores = torch.stack([b for b, _ in inputs]), torch.stack([s for _, s in inputs])
    factors = torch.rand(2, 24) * 0.5 + 0.5
    dets, labels = cf.npu_batched_multiclass_nms(boxes.to(npu), scores.to(npu), 0.25, 0.4, 12,
                                                 score_factors=factors.to(npu))
    assert dets.shape == (2, 12, 5) and labels.shape == (2, 12)
    for i in range(2):
        product = (scores[i, :, :-1] * factors[i, :, None]).half().float()
        ref_dets, ref_labels = _multiclass_nms_reference(boxes[i], product, 0.25, 0.4, 12)
        assert_close(dets[i].float(), ref_dets, rtol=0, atol=0)
        assert_close(labels[i].float(), ref_labels, rtol=0, atol=0)


# ---- box coders -----------------------------------------------------------------------------------------
def _centre_size(b):
    """Centre and legacy end-inclusive size (x2 - x1 + 1)."""
    return (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1


def _encode_reference(anchors, gt, means, stds):
    px, py, pw, ph = _centre_size(anchors)
    gx, gy, gw, gh = _centre_size(gt)
    deltas = torch.stack([(gx - px) / pw, (gy - py) / ph, torch.log(gw / pw), torch.log(gh / ph)], 1)
    return (deltas - torch.tensor(means)) / torch.tensor(stds)


def _decode_reference(rois, deltas, means, stds, max_shape, wh_ratio_clip):
    d = deltas * torch.tensor(stds) + torch.tensor(means)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = d[:, 2].clamp(-limit, limit), d[:, 3].clamp(-limit, limit)
    px, py, pw, ph = _centre_size(rois)
    gw, gh, gx, gy = pw * dw.exp(), ph * dh.exp(), px + pw * d[:, 0], py + ph * d[:, 1]
    x1, x2 = (gx - gw / 2 + 0.5).clamp(0, max_shape[1] - 1), (gx + gw / 2 - 0.5).clamp(0, max_shape[1] - 1)
    y1, y2 = (gy - gh / 2 + 0.5).clamp(0, max_shape[0] - 1), (gy + gh / 2 - 0.5).clamp(0, max_shape[0] - 1)
    return torch.stack([x1, y1, x2, y2], 1)


def test_npu_bbox_coder_encode_xyxy2xywh(npu):
    # torch_npu's documented example: (13.3281, ...) there, fp16-rounded; the exact values here
    a = torch.tensor([[1., 2., 3., 4.], [3., 4., 5., 6.]])
    g = torch.tensor([[5., 6., 7., 8.], [7., 8., 9., 6.]])
    stds = [0.1, 0.1, 0.2, 0.2]
    out = cf.npu_bbox_coder_encode_xyxy2xywh(a.to(npu), g.to(npu), stds=stds)
    assert_close(out, torch.tensor([[40 / 3, 40 / 3, 0., 0.], [40 / 3, 20 / 3, 0., 5 * math.log(1 / 3)]]))
    anchors, gt = _boxes(16, 2), _boxes(16, 3)
    means, stds = [0.1, -0.1, 0.05, 0.], [0.1, 0.1, 0.2, 0.2]
    out = cf.npu_bbox_coder_encode_xyxy2xywh(anchors.to(npu), gt.half().to(npu), means, stds)
    assert out.dtype == torch.float32
    assert_close(out, _encode_reference(anchors, gt, means, stds))
    out = cf.npu_bbox_coder_encode_xyxy2xywh(anchors.to(npu) / 1000, gt.to(npu) / 1000, is_normalized=True,
                                             normalized_scale=1000.)
    assert_close(out, _encode_reference(anchors, gt, [0.] * 4, [1.] * 4), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="as many boxes"):
        cf.npu_bbox_coder_encode_xyxy2xywh(anchors.to(npu), gt[:3].to(npu))


def test_npu_bbox_coder_decode_xywh2xyxy(npu):
    rois = _boxes(16, 4)
    deltas = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))
    deltas[0, 2:] = torch.tensor([9., -9.])  # clipped by wh_ratio_clip
    means, stds = [0., 0.1, 0., 0.], [0.5, 0.5, 1., 1.]
    out = cf.npu_bbox_coder_decode_xywh2xyxy(rois.to(npu), deltas.to(npu), means, stds, (50, 70), 16 / 1000)
    assert out.shape == (16, 4) and out.dtype == torch.float32
    assert_close(out, _decode_reference(rois, deltas, means, stds, (50, 70), 16 / 1000))
    out = cf.npu_bbox_coder_decode_xywh2xyxy(rois.to(npu), deltas.to(npu))  # max_shape (9999, 9999)
    assert_close(out, _decode_reference(rois, deltas, [0.] * 4, [1.] * 4, (9999, 9999), 16 / 1000))
    # decode inverts encode (where nothing is clipped)
    gt = _boxes(16, 5)
    enc = cf.npu_bbox_coder_encode_xyxy2xywh(rois.to(npu), gt.to(npu))
    assert_close(cf.npu_bbox_coder_decode_xywh2xyxy(rois.to(npu), enc), gt, rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="must end with 4 coordinates"):
        cf.npu_bbox_coder_decode_xywh2xyxy(rois.to(npu), deltas[:, :3].to(npu))


# ---- IoU losses, YOLO coder and responsible flags -------------------------------------------------------
def _xywh_boxes(n, seed):
    """(4, n) (x, y, w, h): centres in [0, 10), sizes in [1, 6)."""
    g = torch.Generator().manual_seed(seed)
    return torch.cat([torch.rand(2, n, generator=g) * 10, torch.rand(2, n, generator=g) * 5 + 1])


def _iou_losses_reference(b1, b2, kind, eps=1e-9):
    """GIoU / DIoU / CIoU of (4, n) (x, y, w, h) boxes paired by column, (1, n); CIoU's alpha a constant."""
    x1, y1, x2, y2 = b1[0] - b1[2] / 2, b1[1] - b1[3] / 2, b1[0] + b1[2] / 2, b1[1] + b1[3] / 2
    gx1, gy1, gx2, gy2 = b2[0] - b2[2] / 2, b2[1] - b2[3] / 2, b2[0] + b2[2] / 2, b2[1] + b2[3] / 2
    inter = (torch.min(x2, gx2) - torch.max(x1, gx1)).clamp(0) * (torch.min(y2, gy2) - torch.max(y1, gy1)).clamp(0)
    union = b1[2] * b1[3] + b2[2] * b2[3] - inter + eps
    iou = inter / union
    cw, ch = torch.max(x2, gx2) - torch.min(x1, gx1), torch.max(y2, gy2) - torch.min(y1, gy1)
    if kind == "giou":
        return (iou - (cw * ch - union) / (cw * ch + eps))[None]
    out = iou - ((b1[0] - b2[0]) ** 2 + (b1[1] - b2[1]) ** 2) / (cw ** 2 + ch ** 2 + eps)
    if kind == "ciou":
        v = 4 / math.pi ** 2 * (torch.atan(b2[2] / b2[3]) - torch.atan(b1[2] / b1[3])) ** 2
        with torch.no_grad():
            alpha = v / (1 + eps - iou + v)
        out = out - alpha * v
    return out[None]


def _iou_loss_and_grads(fn, b1, b2, grad, device):
    b1, b2 = b1.clone().to(device).requires_grad_(), b2.clone().to(device).requires_grad_()
    out = fn(b1, b2)
    out.backward(grad.to(device))
    return out.detach().cpu(), b1.grad.cpu(), b2.grad.cpu()


@pytest.mark.parametrize("kind", ["giou", "diou", "ciou"])
def test_npu_iou_losses(npu, kind):
    b1, b2 = _xywh_boxes(12, 0), _xywh_boxes(12, 1)
    grad = torch.rand(1, 12, generator=torch.Generator().manual_seed(2))
    fn = getattr(cf, f"npu_{kind}")

    def reference(p, q):
        if kind == "giou":
            return _iou_losses_reference(p.t(), q.t(), kind).t()
        return _iou_losses_reference(p, q, kind)
    if kind == "giou":  # (n, 4) boxes (is_permuted), (n, 1) out
        b1, b2, grad = b1.t().contiguous(), b2.t().contiguous(), grad.t()
    out, grad1, grad2 = _iou_loss_and_grads(fn, b1, b2, grad, npu)
    ref, ref_grad1, ref_grad2 = _iou_loss_and_grads(reference, b1.double(), b2.double(), grad.double(), "cpu")
    assert out.shape == grad.shape and out.dtype == torch.float32
    assert_close(out, ref.float())
    assert_close(grad1, ref_grad1.float(), rtol=1e-4, atol=1e-4)
    assert_close(grad2, ref_grad2.float(), rtol=1e-4, atol=1e-4)


def test_npu_giou_layouts_and_dtypes(npu):
    b1, b2 = _xywh_boxes(9, 3), _xywh_boxes(9, 4)
    ref = _iou_losses_reference(b1.double(), b2.double(), "giou").t().float()
    # (4, n) boxes with is_permuted=False; half boxes are computed in float
    assert_close(cf.npu_giou(b1.to(npu), b2.to(npu), is_permuted=False), ref)
    out = cf.npu_giou(b1.t().half().to(npu), b2.t().half().to(npu))
    assert out.dtype == torch.float32
    assert_close(out, _iou_losses_reference(b1.half().double(), b2.half().double(), "giou").t().float())


@pytest.mark.parametrize("kind", ["diou", "ciou"])
def test_npu_diou_ciou_is_cross(npu, kind):
    fn = getattr(cf, f"npu_{kind}")
    b1, b2 = _xywh_boxes(6, 5), _xywh_boxes(4, 6)
    out = fn(b1.to(npu), b2.to(npu), is_cross=True)
    assert out.shape == (4, 6)
    for j in range(4):  # row j: every box against ground truth j
        ref = _iou_losses_reference(b1.double(), b2[:, j:j + 1].expand(4, 6).double(), kind).float()
        assert_close(out[j:j + 1], ref)
    # differentiable only with trans=True, is_cross=False, mode=0
    b = b1.to(npu).requires_grad_()
    out = fn(b, _xywh_boxes(6, 7).to(npu), is_cross=True)
    with pytest.raises(RuntimeError, match="only trans=True, is_cross=False, mode=0"):
        out.sum().backward()


def _yolo_encode_reference(bboxes, gt, stride, eps=1e-6):
    cx, cy = (bboxes[:, 0] + bboxes[:, 2]) / 2, (bboxes[:, 1] + bboxes[:, 3]) / 2
    w, h = bboxes[:, 2] - bboxes[:, 0], bboxes[:, 3] - bboxes[:, 1]
    gx, gy = (gt[:, 0] + gt[:, 2]) / 2, (gt[:, 1] + gt[:, 3]) / 2
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    stride = stride.to(bboxes.dtype)
    return torch.stack([((gx - cx) / stride + 0.5).clamp(eps, 1 - eps), ((gy - cy) / stride + 0.5).clamp(eps, 1 - eps),
                        torch.log((gw / w).clamp(min=eps)), torch.log((gh / h).clamp(min=eps))], 1)


def test_npu_bbox_coder_encode_yolo(npu):
    anchors, gt = _boxes(24, 6), _boxes(24, 7)
    stride = torch.tensor([8, 16, 32]).repeat(8)  # int64: the helper casts it to int32
    out = cf.npu_bbox_coder_encode_yolo(anchors.to(npu), gt.half().to(npu), stride.to(npu))
    assert out.shape == (24, 4) and out.dtype == torch.float32
    assert_close(out, _yolo_encode_reference(anchors.double(), gt.double(), stride).float())
    with pytest.raises(ValueError, match="must end with 4 coordinates"):
        cf.npu_bbox_coder_encode_yolo(anchors[:, :3].to(npu), gt[:, :3].to(npu), stride.to(npu))


def test_npu_single_level_responsible_flags(npu):
    gt = _boxes(10, 8)  # centres in [2, 75)
    for featmap_size, stride, anchors in (((10, 10), (8, 8), 3), ((5, 20), (4, 16), 2)):
        out = cf.npu_single_level_responsible_flags(featmap_size, gt.half().to(npu), stride, anchors)
        grid = torch.zeros(featmap_size[0] * featmap_size[1], dtype=torch.uint8)
        cx, cy = (gt[:, 0] + gt[:, 2]) / 2, (gt[:, 1] + gt[:, 3]) / 2
        grid[(torch.floor(cy / stride[1]) * featmap_size[1] + torch.floor(cx / stride[0])).long()] = 1
        assert out.dtype == torch.uint8
        assert torch.equal(out.cpu(), grid.repeat_interleave(anchors))


def test_argument_checks_come_first():
    with pytest.raises(ValueError, match="must have one shape"):
        cf.npu_giou(torch.rand(3, 4), torch.rand(2, 4))
    with pytest.raises(ValueError, match="as many boxes"):
        cf.npu_bbox_coder_encode_yolo(torch.rand(3, 4), torch.rand(2, 4), torch.full((3,), 8))
    with pytest.raises(ValueError, match="gt_bboxes must be \\(n, 4\\)"):
        cf.npu_single_level_responsible_flags((4, 4), torch.rand(3, 5), (8, 8), 3)


# ---- npu_fast_condition_index_put, roll, matmul_transpose -----------------------------------------------
def test_npu_fast_condition_index_put(npu):
    x = torch.randn(4, 5)
    cond = x > 0.3
    expected = x.clone()
    expected[cond] = -2.5
    xn = x.to(npu)
    out = cf.npu_fast_condition_index_put(xn, cond.to(npu), -2.5)
    assert_close(out, expected, rtol=0, atol=0)
    assert_close(xn, x, rtol=0, atol=0)  # not in place
    out = cf.npu_fast_condition_index_put(xn, cond.to(npu), torch.tensor(7.).to(npu))
    expected[cond] = 7.
    assert_close(out, expected, rtol=0, atol=0)
    with pytest.raises(ValueError, match="condition must be a bool tensor"):
        cf.npu_fast_condition_index_put(xn, cond.int().to(npu), 1.)


@pytest.mark.parametrize("shifts", [(3, -2), (-1, 5), (0, 0)])
def test_roll(npu, shifts):
    x = torch.randn(2, 5, 7, 3)
    xn = x.to(npu).requires_grad_()
    xc = x.clone().requires_grad_()
    out = cf.roll(xn, shifts, (1, 2))
    ref = torch.roll(xc, shifts, dims=(1, 2))
    assert_close(out, ref.detach(), rtol=0, atol=0)
    g = torch.randn_like(ref)
    out.backward(g.to(npu))
    ref.backward(g)
    assert_close(xn.grad, xc.grad, rtol=0, atol=0)
    with pytest.raises(ValueError, match="must be 4-D"):
        cf.roll(xn[0], shifts, (1, 2))
    with pytest.raises(ValueError, match="2 values each"):
        cf.roll(xn, (1,), (1,))


@pytest.mark.parametrize("shapes", [((6, 4), (5, 4)), ((2, 3, 6, 4), (2, 3, 5, 4)), ((3, 6, 4), (5, 4))])
def test_matmul_transpose(npu, shapes):
    a, b = torch.randn(shapes[0]), torch.randn(shapes[1])
    an, bn = a.to(npu).requires_grad_(), b.to(npu).requires_grad_()
    ac, bc = a.clone().requires_grad_(), b.clone().requires_grad_()
    out = cf.matmul_transpose(an, bn)
    ref = ac @ bc.transpose(-2, -1)
    assert_close(out, ref.detach())
    g = torch.randn_like(ref)
    out.backward(g.to(npu))
    ref.backward(g)
    assert_close(an.grad, ac.grad)
    assert_close(bn.grad, bc.grad)


# ---- modules --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("split_shuffle", [True, False])
def test_channel_shuffle(npu, split_shuffle):
    x1, x2 = torch.randn(2, 4, 3, 3), torch.randn(2, 4, 3, 3)
    layer = cm.ChannelShuffle(8, groups=2, split_shuffle=split_shuffle).to(npu)
    n1, n2 = x1.to(npu).requires_grad_(), x2.to(npu).requires_grad_()
    c1, c2 = x1.clone().requires_grad_(), x2.clone().requires_grad_()
    out = layer(n1, n2)
    # ShuffleNetV2's channel_shuffle(cat([x1, x2], 1), 2), then chunk(2)
    ref = torch.cat([c1, c2], 1).reshape(2, 2, 4, 3, 3).transpose(1, 2).reshape(2, 8, 3, 3)
    if split_shuffle:
        ref = ref.chunk(2, 1)
        assert isinstance(out, tuple) and len(out) == 2
        for o, r in zip(out, ref):
            assert_close(o, r.detach(), rtol=0, atol=0)
        loss_npu, loss_cpu = (out[0] * 2 + out[1] * 3).sum(), (ref[0] * 2 + ref[1] * 3).sum()
    else:
        assert_close(out, ref.detach(), rtol=0, atol=0)
        w = torch.randn(8, 1, 1)
        loss_npu, loss_cpu = (out * w.to(npu)).sum(), (ref * w).sum()
    loss_npu.backward()
    loss_cpu.backward()
    assert_close(n1.grad, c1.grad, rtol=0, atol=0)
    assert_close(n2.grad, c2.grad, rtol=0, atol=0)
    with pytest.raises(ValueError, match="only groups=2"):
        cm.ChannelShuffle(9, groups=3)


def _rois(k, batch, size, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(k, 2, generator=g) * size
    wh = torch.rand(k, 2, generator=g) * size / 2 + 1
    return torch.cat([torch.randint(batch, (k, 1), generator=g).float(), xy, xy + wh], 1)


@pytest.mark.parametrize("aligned", [True, False])
def test_roi_align_module(npu, aligned):
    from torchvision.ops import roi_align
    x, rois = torch.randn(2, 3, 12, 10), _rois(5, 2, 36, 1)
    layer = cm.ROIAlign((3, 2), 0.25, 2, aligned=aligned)
    assert "aligned=" in repr(layer)
    xn, xc = x.to(npu).requires_grad_(), x.clone().requires_grad_()
    out = layer(xn, rois.to(npu))
    ref = roi_align(xc, rois, (3, 2), 0.25, 2, aligned)
    assert out.shape == (5, 3, 3, 2)
    assert_close(out, ref.detach())
    g = torch.randn_like(ref)
    out.backward(g.to(npu))
    ref.backward(g)
    assert_close(xn.grad, xc.grad)
    with pytest.raises(ValueError, match="rois must be \\(K, 5\\)"):
        layer(xn, rois[:, 1:].to(npu))


def test_ps_roi_pool_module(npu):
    # R-FCN's bins (Note [PSROIPool bins]); rois in torch_npu's (batch, 5, rois_num) layout, with
    # half-pixel corners (rounded halves away from zero), some past the map's edges (the map covers
    # [0, 52) x [0, 56) of the image)
    x = torch.randn(2, 2 * 3 * 3, 14, 13)
    table = _rois(6, 2, 26, 2)
    table[:, 1:] = (table[:, 1:] * 5).round() / 2 - 6
    rois = table.reshape(2, 3, 5).transpose(1, 2)
    layer = cm.PSROIPool(3, 3, 0.25, group_size=3, output_dim=2)
    xn = x.to(npu).requires_grad_()
    out = layer(xn, rois.to(npu))
    assert out.shape == (6, 2, 3, 3)
    assert_close(out, ps_roi_pooling_reference(x, rois, 0.25, 3, 2))
    g = torch.randn(6, 2, 3, 3)
    out.backward(g.to(npu))
    assert_close(xn.grad, ps_roi_pooling_backward_reference(g, rois, 0.25, 3, 2, (14, 13)))
    with pytest.raises(ValueError, match="must be equal"):
        cm.PSROIPool(3, 3, 0.25, group_size=2, output_dim=2)
    with pytest.raises(ValueError, match="output_dim \\* group_size \\*\\* 2 = 18"):
        layer(xn[:, :9], rois.to(npu))
    with pytest.raises(ValueError, match="rois must be \\(batch, 5, rois_num\\)"):
        layer(xn, table.to(npu))


@pytest.mark.parametrize("groups, deformable_groups", [(1, 1), (2, 2)])
def test_dcnv2(npu, groups, deformable_groups):
    torch.manual_seed(0)
    layer = cm.DCNv2(4, 6, 3, stride=1, padding=1, groups=groups, deformable_groups=deformable_groups)
    # zero-initialised offset branch: no offset, mask 0.5, so half a convolution
    x = torch.randn(2, 4, 7, 6)
    with torch.no_grad():
        layer.bias.normal_()
        out = layer.to(npu)(x.to(npu))
        ref = 0.5 * F.conv2d(x, layer.weight.cpu(), None, 1, 1, groups=groups) + layer.bias.cpu()[:, None, None]
        assert_close(out, ref, rtol=1e-4, atol=1e-4)
        layer.conv_offset.weight.normal_(0, 0.3)
        layer.conv_offset.bias.normal_(0, 0.5)
    cpu_layer = cm.DCNv2(4, 6, 3, padding=1, groups=groups, deformable_groups=deformable_groups)
    cpu_layer.load_state_dict({k: v.cpu() for k, v in layer.state_dict().items()})
    xn, xc = x.to(npu).requires_grad_(), x.clone().requires_grad_()
    out, ref = layer(xn), cpu_layer(xc)
    assert out.shape == (2, 6, 7, 6)
    assert_close(out, ref.detach(), rtol=1e-4, atol=1e-4)
    g = torch.randn_like(ref)
    out.backward(g.to(npu))
    ref.backward(g)
    assert_close(xn.grad, xc.grad, rtol=1e-3, atol=1e-3)
    for name, p in layer.named_parameters():
        assert_close(p.grad, dict(cpu_layer.named_parameters())[name].grad, rtol=1e-3, atol=1e-3)
    # pack=False: forward((x, offset, mask))
    unpacked = cm.ModulatedDeformConv(4, 6, 3, padding=1, groups=groups, deformable_groups=deformable_groups,
                                      bias=False, pack=False).to(npu)
    assert unpacked.bias is None and not hasattr(unpacked, "conv_offset")
    offset, mask = torch.randn(2, deformable_groups * 18, 7, 6), torch.rand(2, deformable_groups * 9, 7, 6)
    from torchvision.ops import deform_conv2d
    out = unpacked((x.to(npu), offset.to(npu), mask.to(npu)))
    assert_close(out, deform_conv2d(x, offset, unpacked.weight.detach().cpu(), None, padding=1, mask=mask),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("act", [True, False])
def test_focus(npu, act):
    torch.manual_seed(0)
    layer = cm.Focus(3, 8, k=3, act=act).to(npu)
    x = torch.randn(2, 3, 8, 6)
    xn, xc = x.to(npu).requires_grad_(), x.clone().requires_grad_()
    out = layer(xn)
    weight = layer.conv.conv.weight.detach().cpu().requires_grad_()
    bn = layer.conv.bn
    # space to depth by explicit slicing, then conv (padding k // 2), batch norm (batch statistics) and LeakyReLU
    s2d = torch.cat([xc[:, :, 0::2, 0::2], xc[:, :, 1::2, 0::2], xc[:, :, 0::2, 1::2], xc[:, :, 1::2, 1::2]], 1)
    ref = F.batch_norm(F.conv2d(s2d, weight, None, 1, 1), None, None, bn.weight.detach().cpu(),
                       bn.bias.detach().cpu(), training=True, eps=bn.eps)
    ref = F.leaky_relu(ref, 0.1) if act else ref
    assert out.shape == (2, 8, 4, 3)
    assert_close(out, ref.detach(), rtol=1e-4, atol=1e-4)
    g = torch.randn_like(ref)
    out.backward(g.to(npu))
    ref.backward(g)
    assert_close(xn.grad, xc.grad, rtol=1e-3, atol=1e-3)
    assert_close(layer.conv.conv.weight.grad, weight.grad, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("smooth_factor", [0., 0.1])
def test_label_smoothing_cross_entropy(npu, smooth_factor):
    pred, target = torch.randn(6, 10), torch.randint(10, (6,))
    loss_fn = cm.LabelSmoothingCrossEntropy(num_classes=10, smooth_factor=smooth_factor)
    pn, pc = pred.to(npu).requires_grad_(), pred.clone().requires_grad_()
    loss = loss_fn(pn, target.to(npu))
    on, off = 1 - smooth_factor, smooth_factor / 9
    smoothed = torch.full((6, 10), off).scatter(1, target[:, None], on)
    ref = -(smoothed * torch.log_softmax(pc, 1)).sum(1).mean()
    assert loss.shape == () and loss.dtype == torch.float32
    assert_close(loss, ref.detach())
    loss.backward()
    ref.backward()
    assert_close(pn.grad, pc.grad)
    if smooth_factor == 0.:
        assert_close(loss, F.cross_entropy(pred, target))


@pytest.mark.parametrize("cls, formula", [(cm.Mish, lambda x: x * torch.tanh(torch.log1p(torch.exp(x)))),
                                          (cm.SiLU, lambda x: x * torch.sigmoid(x)),
                                          (cm.Swish, lambda x: x / (1 + torch.exp(-x)))])
def test_activations(npu, cls, formula):
    with pytest.warns(FutureWarning, match="deprecated"):
        layer = cls()
    x = torch.randn(3, 7) * 3
    xn, xc = x.to(npu).requires_grad_(), x.clone().requires_grad_()
    out, ref = layer(xn), formula(xc)
    assert_close(out, ref.detach())
    out.sum().backward()
    ref.sum().backward()
    assert_close(xn.grad, xc.grad, rtol=1e-4, atol=1e-4)


def test_npu_drop_path(npu):
    cm.NpuDropPath.task_dict.clear()
    drop = cm.NpuDropPath(0.25)
    model = nn.Sequential(nn.Identity(), drop)
    x = torch.randn(64, 3, 2, 2).to(npu)
    assert model.eval()(x) is x
    assert cm.NpuDropPath(0.)(x) is x
    model.train()
    assert model(x) is x  # nothing drawn yet: torch_npu returns x unchanged
    handle = cm.NpuDropPath.enable_droppath_ensemble(model)
    torch.npu.manual_seed(7)
    out = model(x)
    torch.npu.manual_seed(7)
    keep = torch.floor(0.75 + torch.rand(64, 1, 1, 1, device=npu))
    assert_close(out, (x / 0.75 * keep).cpu())
    kept = keep.flatten().cpu()
    assert 0 < kept.sum() < 64
    handle.remove()
    cm.NpuDropPath.task_dict.clear()


def test_prefetcher(npu):
    batches = [(torch.randn(2, 3), torch.tensor([i, i + 1])) for i in range(3)]
    prefetcher = cm.Prefetcher(batches)
    for expected_input, expected_target in batches:
        batch_input, batch_target = prefetcher.next()
        assert batch_input.device.type == "npu" and batch_target.device.type == "npu"
        assert_close(batch_input, expected_input, rtol=0, atol=0)
        assert_close(batch_target, expected_target, rtol=0, atol=0)
    assert prefetcher.next() == (None, None)
    stream = torch.npu.Stream()
    assert cm.Prefetcher(batches, stream).stream is stream


def test_fused_color_jitter():
    from PIL import Image
    from torchvision.transforms import ColorJitter
    pixels = np.random.RandomState(0).randint(0, 256, (12, 10, 3), dtype=np.uint8)
    args = (0.4, 0.3, 0.5, 0.1)
    jitter, reference = cm.FusedColorJitter(*args), ColorJitter(*args)
    assert jitter.brightness == reference.brightness and jitter.hue == reference.hue
    for seed in range(3):
        torch.manual_seed(seed)
        expected = np.asarray(reference(Image.fromarray(pixels)))
        torch.manual_seed(seed)
        out = jitter(Image.fromarray(pixels))
        assert isinstance(out, Image.Image) and out.mode == "RGB"
        assert np.array_equal(np.asarray(out), expected)
        torch.manual_seed(seed)
        out = jitter(np.concatenate([pixels, np.full((12, 10, 1), 255, np.uint8)], 2))  # RGBA array
        assert isinstance(out, np.ndarray) and out.dtype == np.uint8 and np.array_equal(out, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gray = jitter(Image.fromarray(pixels[..., 0]))
    assert gray.mode == "RGB"
