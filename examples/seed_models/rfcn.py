"""R-FCN detector (RPN + position-sensitive RoI pooling) trained on synthetic boxes, NPU against CPU.

    /usr/bin/python3 examples/seed_models/rfcn.py [--steps 3] [--batch-size 2] [--image-size 64]

Dai et al.'s R-FCN at a smaller size: a ResNet trunk (a stride-2 stem, three
stages of two torchvision BasicBlocks, features at stride 8), an RPN (3x3 conv, objectness and
box deltas for three anchors per cell), and the fully convolutional R-FCN head:
1x1 convolutions to k^2 (C + 1) position-sensitive score maps and k^2 4 box maps,
PSROIPooling (torch_npu.contrib.module.PSROIPool on torch_npu.npu_ps_roi_pooling,
rois [batch, 5, rois_num]; on the CPU the same Caffe bins as a weighted sum) and
voting by averaging the k x k bins. Box targets use py-R-FCN's delta coder
(torch_npu.npu_bounding_box_encode, stds 0.1 0.1 0.2 0.2; decode in evaluation).
Loss: RPN (BCE objectness, smooth L1 deltas) + head (softmax CE, smooth L1 deltas).
The head trains on proposals that come with the batch (jittered ground-truth and
random boxes, as an external proposal method would give them), so the NPU and
CPU runs pool the same rois; evaluation pools the RPN's own proposals (decode,
NMS) and ends with torchvision's batched_nms.
The data: 1-3 boxes of 3 classes (a colour each) per image on noise.
"""
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchvision
from torch_npu.contrib.module import PSROIPool
from torchvision.models.resnet import BasicBlock

from seed_common import parse_args, run

CLASSES = 3
STRIDE = 8
ANCHOR_SIZES = (16, 32, 48)  # square anchors for 64-pixel images (scaled with --image-size)
HEAD_STDS = (0.1, 0.1, 0.2, 0.2)


# ---- torch_npu's R-FCN operators on the NPU, their reference on the CPU ----

def _edges(start, end, group_size, size):
    """Caffe's PSROIPooling bins along one axis, in float32: [lo, hi) pixels per bin, clipped to the map."""
    step = max(end - start, np.float32(0.1)) / np.float32(group_size)
    k = np.arange(group_size + 1, dtype=np.float32)
    lo = np.clip(np.floor(k[:-1] * step + start), 0, size).astype(int)
    hi = np.clip(np.ceil(k[1:] * step + start), 0, size).astype(int)
    return list(zip(lo, hi))


def _c_round(v):
    """C's roundf: halves away from zero."""
    return np.float32(np.sign(v) * np.floor(abs(v) + np.float32(0.5)))


def ps_roi_pool(features, rois, spatial_scale, group_size, output_dim):
    """Position-sensitive RoI pooling: [N * R, output_dim, k, k] for rois [N, 5, R] (torch_npu's form)."""
    if features.is_npu:
        return PSROIPool(group_size, group_size, spatial_scale, group_size, output_dim)(features, rois)
    # The CPU: each output is a mean over a bin, written as a weighted sum over the map's pixels.
    batch, _, height, width = features.shape
    g, scale = group_size, np.float32(spatial_scale)
    table = rois.detach().transpose(2, 1).reshape(-1, 5)
    weights = torch.zeros(len(table), g * g, height, width)
    for n, (_, x1, y1, x2, y2) in enumerate(table.numpy().astype(np.float32)):
        rows = _edges(_c_round(y1) * scale, (_c_round(y2) + np.float32(1)) * scale, g, height)
        cols = _edges(_c_round(x1) * scale, (_c_round(x2) + np.float32(1)) * scale, g, width)
        for i, (hs, he) in enumerate(rows):
            for j, (ws, we) in enumerate(cols):
                if he > hs and we > ws:
                    weights[n, i * g + j, hs:he, ws:we] = 1.0 / ((he - hs) * (we - ws))
    x = features.reshape(batch, output_dim, g * g, height * width)[table[:, 0].long()]
    return (x * weights.reshape(len(table), 1, g * g, -1)).sum(-1).reshape(-1, output_dim, g, g)


def bbox_encode(boxes, gt, stds=(1.0, 1.0, 1.0, 1.0)):
    """py-Faster/R-FCN's deltas (sizes end-inclusive, + 1) of gt from boxes, divided by stds."""
    if boxes.is_npu:
        return torch_npu.npu_bounding_box_encode(boxes, gt, 0, 0, 0, 0, *stds)
    pw, ph = boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1
    gw, gh = gt[:, 2] - gt[:, 0] + 1, gt[:, 3] - gt[:, 1] + 1
    dx = ((gt[:, 0] + gt[:, 2]) - (boxes[:, 0] + boxes[:, 2])) * 0.5 / pw
    dy = ((gt[:, 1] + gt[:, 3]) - (boxes[:, 1] + boxes[:, 3])) * 0.5 / ph
    return torch.stack([dx, dy, torch.log(gw / pw), torch.log(gh / ph)], 1) / torch.tensor(stds)


def bbox_decode(boxes, deltas, size, stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=16 / 1000):
    """The inverse of bbox_encode, boxes clipped to the size x size image."""
    if boxes.is_npu:
        return torch_npu.npu_bounding_box_decode(boxes, deltas, 0, 0, 0, 0, *stds, [size, size], wh_ratio_clip)
    d = deltas * torch.tensor(stds)
    limit = abs(np.log(wh_ratio_clip))
    pw, ph = boxes[:, 2] - boxes[:, 0] + 1, boxes[:, 3] - boxes[:, 1] + 1
    cx = (boxes[:, 0] + boxes[:, 2]) * 0.5 + pw * d[:, 0]
    cy = (boxes[:, 1] + boxes[:, 3]) * 0.5 + ph * d[:, 1]
    w, h = pw * d[:, 2].clamp(-limit, limit).exp(), ph * d[:, 3].clamp(-limit, limit).exp()
    out = torch.stack([cx - w * 0.5 + 0.5, cy - h * 0.5 + 0.5, cx + w * 0.5 - 0.5, cy + h * 0.5 - 0.5], 1)
    return out.clamp(0, size - 1)


# ---- the model ----

class RFCN(nn.Module):
    def __init__(self, width=16, group_size=3, classes=CLASSES, anchors=len(ANCHOR_SIZES)):
        super().__init__()
        self.k, self.classes = group_size, classes
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU(inplace=True))
        stages, c = [], width
        for cout in (width, 2 * width, 4 * width):  # strides 2, 4, 8
            stride = 1 if cout == width else 2
            down = None if stride == 1 else nn.Sequential(nn.Conv2d(c, cout, 1, stride, bias=False),
                                                          nn.BatchNorm2d(cout))
            stages += [BasicBlock(c, cout, stride, down), BasicBlock(cout, cout)]
            c = cout
        self.trunk = nn.Sequential(*stages)
        self.rpn = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU(inplace=True))
        self.rpn_cls, self.rpn_box = nn.Conv2d(c, anchors, 1), nn.Conv2d(c, 4 * anchors, 1)
        self.reduce = nn.Sequential(nn.Conv2d(c, 2 * c, 1), nn.ReLU(inplace=True))
        self.ps_cls = nn.Conv2d(2 * c, group_size ** 2 * (classes + 1), 1)
        self.ps_box = nn.Conv2d(2 * c, group_size ** 2 * 4, 1)

    def features(self, images):
        return self.trunk(self.stem(images))

    def rpn_head(self, features):
        """Objectness logits [N, h * w * A] and deltas [N, h * w * A, 4], anchors in grid_anchors' order."""
        r, n = self.rpn(features), features.size(0)
        return self.rpn_cls(r).permute(0, 2, 3, 1).reshape(n, -1), self.rpn_box(r).permute(0, 2, 3, 1).reshape(n, -1, 4)

    def rfcn_head(self, features, rois, spatial_scale):
        """Class logits [N * R, C + 1] and box deltas [N * R, 4] of rois [N, 5, R]: PSROIPooling, then a vote."""
        h = self.reduce(features)
        cls = ps_roi_pool(self.ps_cls(h), rois, spatial_scale, self.k, self.classes + 1).mean((2, 3))
        box = ps_roi_pool(self.ps_box(h), rois, spatial_scale, self.k, 4).mean((2, 3))
        return cls, box

    def forward(self, images, rois):
        features = self.features(images)
        return self.rpn_head(features), self.rfcn_head(features, rois, 1.0 / STRIDE)


# ---- anchors, targets, loss ----

def grid_anchors(image_size, device):
    """[h * w * A, 4] (x1, y1, x2, y2) square anchors centred on the stride-8 cells, cell-major."""
    n = image_size // STRIDE
    ys, xs = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    centres = (torch.stack([xs, ys], -1).reshape(-1, 1, 2).float() + 0.5) * STRIDE
    half = torch.tensor(ANCHOR_SIZES, dtype=torch.float32).reshape(1, -1, 1) * (image_size / 64) / 2
    return torch.cat([centres - half, centres + half], -1).reshape(-1, 4).to(device)


def rpn_targets(anchors, gt, pos_iou=0.7, neg_iou=0.3):
    """Faster R-CNN's anchor labels (1, 0, or -1: ignored) and matched gt boxes; every gt keeps its best anchor."""
    overlaps = torchvision.ops.box_iou(gt, anchors)
    best, matched = overlaps.max(0)
    labels = torch.full_like(best, -1.0)
    labels[best < neg_iou] = 0
    labels[best >= pos_iou] = 1
    labels[(overlaps == overlaps.max(1, keepdim=True).values).any(0)] = 1
    return labels, gt[matched]


def head_targets(proposals, gt, gt_labels, fg_iou=0.5):
    """Class of each proposal (0: background, below fg_iou with every gt) and its matched gt box."""
    best, matched = torchvision.ops.box_iou(proposals, gt).max(1)
    return torch.where(best >= fg_iou, gt_labels[matched] + 1, torch.zeros_like(matched)), gt[matched]


def loss_fn(model, batch, device):
    images, boxes, labels, proposals = batch
    images, proposals = images.to(device), proposals.to(device)  # proposals [N, R, 4]
    n, r = proposals.shape[:2]
    index = torch.arange(n, dtype=torch.float32, device=device)[:, None, None].expand(n, r, 1)
    rois = torch.cat([index, proposals], 2).transpose(1, 2).contiguous()  # [N, 5, R]
    (objectness, rpn_deltas), (cls, box) = model(images, rois)
    anchors = grid_anchors(images.size(-1), device)
    rpn_cls_loss = rpn_box_loss = 0
    head_labels, head_box_targets = [], []
    for i in range(n):
        gt, gt_labels = boxes[i].to(device), labels[i].to(device)
        with torch.no_grad():
            anchor_labels, anchor_gt = rpn_targets(anchors, gt)
            props = proposals[i]
            roi_labels, roi_gt = head_targets(props, gt, gt_labels)
            head_labels.append(roi_labels)
            head_box_targets.append(bbox_encode(props, roi_gt, HEAD_STDS))
        used, pos = anchor_labels >= 0, anchor_labels == 1
        rpn_cls_loss = rpn_cls_loss + F.binary_cross_entropy_with_logits(objectness[i][used], anchor_labels[used])
        rpn_box_loss = rpn_box_loss + F.smooth_l1_loss(
            rpn_deltas[i][pos], bbox_encode(anchors[pos], anchor_gt[pos]), beta=1 / 9, reduction="sum") / used.sum()
    head_labels, head_box_targets = torch.cat(head_labels), torch.cat(head_box_targets)
    fg = head_labels > 0
    cls_loss = F.cross_entropy(cls, head_labels)
    box_loss = F.smooth_l1_loss(box[fg], head_box_targets[fg], reduction="sum") / len(head_labels)
    return (rpn_cls_loss + rpn_box_loss) / n + cls_loss + box_loss


def detect(model, images, pre_nms=50, proposals_per_image=16, score_thr=0.05, max_per_image=10):
    """Per image: RPN proposals (decode, NMS 0.7), the R-FCN head on them, per-class NMS 0.3."""
    size = images.size(-1)
    features = model.features(images)
    objectness, rpn_deltas = model.rpn_head(features)
    anchors = grid_anchors(size, images.device)
    results = []
    for i in range(images.size(0)):
        top = objectness[i].topk(min(pre_nms, len(anchors))).indices
        props = bbox_decode(anchors[top], rpn_deltas[i][top], size)
        keep = torchvision.ops.nms(props, objectness[i][top], 0.7)[:proposals_per_image]
        props = props[keep]
        rois = torch.cat([torch.zeros(len(props), 1, device=images.device), props], 1).t()[None].contiguous()
        cls, box = model.rfcn_head(features[i:i + 1], rois, 1.0 / STRIDE)
        scores, labels = cls.softmax(1)[:, 1:].max(1)
        dets = bbox_decode(props, box, size, HEAD_STDS)
        keep = scores > score_thr
        dets, scores, labels = dets[keep], scores[keep], labels[keep]
        keep = torchvision.ops.batched_nms(dets, scores, labels, 0.3)[:max_per_image]
        results.append((dets[keep], scores[keep], labels[keep]))
    return results


def evaluate(model, batch, device):
    images, boxes = batch[0], batch[1]
    dets, scores, _ = detect(model, images.to(device))[0]
    best = torchvision.ops.box_iou(dets.cpu()[:1], boxes[0]).max().item() if len(dets) else 0.0
    return (f"image 0: {len(dets)} detections after NMS, top score {scores.max().item() if len(dets) else 0:.3f}, "
            f"its best IoU with a box {best:.3f}")


def make_batches(steps, batch_size, size, proposals_per_image=16, seed=0):
    """(images, [boxes [n, 4]], [labels [n]], proposals [N, R, 4]) per step; integer box corners."""
    g = torch.Generator().manual_seed(seed)
    colours = torch.tensor([[1.0, 0.2, 0.2], [0.2, 1.0, 0.2], [0.2, 0.2, 1.0]])
    batches = []
    for _ in range(steps):
        images = 0.2 * torch.randn(batch_size, 3, size, size, generator=g)
        all_boxes, all_labels, all_proposals = [], [], []
        for i in range(batch_size):
            n = int(torch.randint(1, 4, (1,), generator=g))
            wh = (torch.rand(n, 2, generator=g) * 0.4 + 0.2) * size
            xy = torch.rand(n, 2, generator=g) * (size - wh)
            boxes = torch.cat([xy, xy + wh], 1).round()
            labels = torch.randint(0, CLASSES, (n,), generator=g)
            for (x1, y1, x2, y2), c in zip(boxes.int().tolist(), labels.tolist()):
                images[i, :, y1:y2, x1:x2] += colours[c, :, None, None]
            # half the proposals jitter the boxes (by up to 20% of their size), the rest are random
            jittered = boxes[torch.arange(proposals_per_image // 2) % n]
            wh = jittered[:, 2:] - jittered[:, :2]
            jittered = jittered + (torch.rand(len(jittered), 4, generator=g) - 0.5) * 0.4 * wh.repeat(1, 2)
            xy = torch.rand(proposals_per_image - len(jittered), 2, generator=g) * size * 0.7
            random = torch.cat([xy, xy + (torch.rand(len(xy), 2, generator=g) * 0.5 + 0.15) * size], 1)
            all_proposals.append(torch.cat([jittered, random]).clamp(0, size - 1).round())
            all_boxes.append(boxes)
            all_labels.append(labels)
        batches.append((images, all_boxes, all_labels, torch.stack(all_proposals)))
    return batches


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv, lr=0.01)
    torch.manual_seed(0)
    model = RFCN()
    batches = make_batches(args.steps, args.batch_size, args.image_size)
    return run("rfcn", model, batches, loss_fn, args, args.batch_size, evaluate=evaluate)


if __name__ == "__main__":
    sys.exit(0 if main().ok else 1)
