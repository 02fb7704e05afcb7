"""YOLOv3 detector (Darknet backbone, three heads) trained on synthetic boxes, NPU against CPU.

    /usr/bin/python3 examples/seed_models/yolov3.py [--steps 3] [--batch-size 2] [--image-size 64]

Redmon and Farhadi's YOLOv3 at a smaller width and depth: a Darknet backbone
(conv-BN-LeakyReLU, five stride-2 stages of residual 1x1/3x3 blocks; --blocks
1,2,8,8,4 and --width 32 is Darknet-53), the YOLOv3 neck (five-conv sets,
1x1 + 2x nearest upsampling + concatenation) and three heads at strides 8, 16
and 32 with three anchors each. Training targets and loss are mmdetection's
YOLOV3Head, with the torch_npu operators a port of it calls:
  * AnchorResponseFlags marks the anchors of the cells holding a box centre,
  * GridAssigner (pos/neg IoU 0.5) with GridAssignPositive for its positive part,
  * YoloBoxesEncode gives the (x, y, w, h) targets,
  * loss = BCE(class) + BCE(objectness over positives and negatives) + 2 BCE(xy) + 2 MSE(wh),
plus a GIoU box term, 1 - GIoU (torch_npu.npu_giou, [4, N] boxes, trans=True) of
the decoded positive boxes (--box-loss ciou: 1 - CIoU with npu_ciou).
On the CPU each of these operators is its reference expression in torch.
Evaluation decodes every anchor's box and score and runs torchvision's batched_nms.
The data: 1-3 boxes of 3 classes (a colour each) per image on noise.
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchvision

from seed_common import parse_args, run

CLASSES = 3
STRIDES = (8, 16, 32)
# Anchors (w, h) per level for 64-pixel images (scaled with --image-size), three per head.
ANCHORS_64 = (((6, 8), (10, 18), (18, 12)), ((16, 32), (32, 24), (30, 44)), ((52, 40), (44, 56), (60, 60)))


def cbl(cin, cout, k=1, s=1):
    """Darknet's convolution: conv, BatchNorm, LeakyReLU(0.1)."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.LeakyReLU(0.1, inplace=True))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(cbl(c, c // 2, 1), cbl(c // 2, c, 3))

    def forward(self, x):
        return x + self.body(x)


def conv_set(cin, c):
    """YOLOv3's five alternating 1x1 / 3x3 convolutions before each head."""
    return nn.Sequential(cbl(cin, c, 1), cbl(c, 2 * c, 3), cbl(2 * c, c, 1), cbl(c, 2 * c, 3), cbl(2 * c, c, 1))


class YOLOv3(nn.Module):
    def __init__(self, width=8, blocks=(1, 1, 1, 1, 1), anchors=3, classes=CLASSES):
        super().__init__()
        self.stem, c = cbl(3, width, 3), width
        self.stages = nn.ModuleList()
        for n in blocks:  # strides 2, 4, 8, 16, 32
            self.stages.append(nn.Sequential(cbl(c, 2 * c, 3, 2), *[Residual(2 * c) for _ in range(n)]))
            c *= 2
        c3, c4, c5 = c // 4, c // 2, c
        out = anchors * (5 + classes)
        self.set5, self.set4, self.set3 = conv_set(c5, c5 // 2), conv_set(c4 + c4 // 2, c4 // 2), \
            conv_set(c3 + c3 // 2, c3 // 2)
        self.up5, self.up4 = cbl(c5 // 2, c4 // 2), cbl(c4 // 2, c3 // 2)
        self.heads = nn.ModuleList(nn.Sequential(cbl(c // 2, c, 3), nn.Conv2d(c, out, 1)) for c in (c3, c4, c5))

    def forward(self, images):
        x, features = self.stem(images), []
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        c3, c4, c5 = features[2:]
        p5 = self.set5(c5)
        p4 = self.set4(torch.cat([F.interpolate(self.up5(p5), scale_factor=2), c4], 1))
        p3 = self.set3(torch.cat([F.interpolate(self.up4(p4), scale_factor=2), c3], 1))
        return [head(p) for head, p in zip(self.heads, (p3, p4, p5))]  # strides 8, 16, 32


# ---- mmdetection's YOLOv3 target operators: torch_npu on the NPU, their reference on the CPU ----

def anchor_response_flags(gt, featmap_size, stride, num_anchors):
    """uint8 [h * w * A]: 1 for the anchors of the cells holding a gt box's centre."""
    if gt.is_npu:
        return torch_npu.npu_anchor_response_flags(gt, featmap_size, [stride, stride], num_anchors)
    h, w = featmap_size
    cell = (torch.floor((gt[:, 1] + gt[:, 3]) * 0.5 / stride) * w + torch.floor((gt[:, 0] + gt[:, 2]) * 0.5 / stride))
    flags = torch.zeros(h * w, dtype=torch.uint8)
    flags[cell.long()] = 1
    return flags.repeat_interleave(num_anchors)


def grid_assign_positive(assigned, overlaps, flags, max_ov, argmax_ov, gt_max_ov, gt_argmax_ov, pos_iou_thr,
                         min_pos_iou):
    """GridAssigner's positive part (gt_max_assign_all): 1-based gt index of each positive anchor."""
    if overlaps.is_npu:
        return torch_npu.npu_grid_assign_positive(assigned, overlaps, flags, max_ov, argmax_ov.int(), gt_max_ov,
                                                  gt_argmax_ov.int(), overlaps.size(0), pos_iou_thr, min_pos_iou,
                                                  True)
    assigned, flags = assigned.clone(), flags.bool()
    pos = (max_ov > pos_iou_thr) & flags
    assigned[pos] = argmax_ov[pos].to(assigned.dtype) + 1
    for i in range(overlaps.size(0)):
        if gt_max_ov[i] > min_pos_iou:
            assigned[(overlaps[i] == gt_max_ov[i]) & flags] = i + 1
    return assigned


def yolo_boxes_encode(anchors, gt, stride, eps=1e-6):
    """(tx, ty, tw, th): the centre's offset in its cell and the log size ratio to the anchor."""
    if gt.is_npu:
        return torch_npu.npu_yolo_boxes_encode(anchors, gt, stride, False)
    anchor_c, anchor_wh = (anchors[:, :2] + anchors[:, 2:]) * 0.5, anchors[:, 2:] - anchors[:, :2]
    gt_c, gt_wh = (gt[:, :2] + gt[:, 2:]) * 0.5, gt[:, 2:] - gt[:, :2]
    xy = ((gt_c - anchor_c) / stride[:, None].float() + 0.5).clamp(eps, 1 - eps)
    return torch.cat([xy, torch.log((gt_wh / anchor_wh).clamp(min=eps))], 1)


def iou_loss(pred, gt, kind):
    """1 - GIoU (or 1 - CIoU) of paired (cx, cy, w, h) boxes given as [4, N]; CIoU's alpha is a constant."""
    if pred.is_npu:
        if kind == "giou":
            return 1 - torch_npu.npu_giou(pred, gt, trans=True, is_cross=False, mode=0).flatten()
        return 1 - torch_npu.npu_ciou(pred, gt, True, False, 0, True).flatten()
    eps = 1e-9
    p1, p2, g1, g2 = pred[:2] - pred[2:] / 2, pred[:2] + pred[2:] / 2, gt[:2] - gt[2:] / 2, gt[:2] + gt[2:] / 2
    inter = (torch.min(p2, g2) - torch.max(p1, g1)).clamp(min=0).prod(0)
    union = pred[2] * pred[3] + gt[2] * gt[3] - inter + eps
    iou = inter / union
    enclosing = torch.max(p2, g2) - torch.min(p1, g1)
    if kind == "giou":
        area = enclosing.prod(0) + eps
        return 1 - (iou - (area - union) / area)
    rho2 = ((gt[:2] - pred[:2]) ** 2).sum(0)
    c2 = (enclosing ** 2).sum(0) + eps
    v = 4 / math.pi ** 2 * (torch.atan(gt[2] / (gt[3] + eps)) - torch.atan(pred[2] / (pred[3] + eps))) ** 2
    alpha = (v / (1 + eps - iou + v)).detach()
    return 1 - (iou - rho2 / c2 - alpha * v)


# ---- anchors, targets, loss ----

def grid_anchors(image_size, device, dtype=torch.float32):
    """Per level: anchors [h * w * A, 4] (x1, y1, x2, y2) centred on the cells, cell-major as the heads' outputs."""
    scale = image_size / 64
    levels = []
    for stride, sizes in zip(STRIDES, ANCHORS_64):
        n = image_size // stride
        ys, xs = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
        centres = (torch.stack([xs, ys], -1).reshape(-1, 1, 2).float() + 0.5) * stride
        wh = torch.tensor(sizes, dtype=torch.float32) * scale
        levels.append(torch.cat([centres - wh / 2, centres + wh / 2], -1).reshape(-1, 4).to(device, dtype))
    return levels


def level_strides(levels):
    """int32 [M]: the stride of every anchor of grid_anchors' levels."""
    return torch.cat([torch.full((len(a),), s, dtype=torch.int32, device=a.device) for s, a in zip(STRIDES, levels)])


def targets_for_image(gt, labels, levels, image_size, pos_iou_thr=0.5, neg_iou_thr=0.5, min_pos_iou=0.0):
    """mmdetection's YOLOv3 targets for one image: (positive mask, negative mask, target rows [M, 5 + C])."""
    anchors = torch.cat(levels)
    num_anchors = len(ANCHORS_64[0])
    flags = torch.cat([anchor_response_flags(gt, [image_size // s] * 2, s, num_anchors) for s in STRIDES])
    strides = level_strides(levels)
    overlaps = torchvision.ops.box_iou(gt, anchors)  # [k gts, M anchors]
    assigned = torch.full((len(anchors),), -1.0, device=gt.device)
    max_ov, _ = overlaps.max(0)
    assigned[(max_ov >= 0) & (max_ov <= neg_iou_thr)] = 0  # negatives
    overlaps = overlaps.masked_fill(flags[None] == 0, -1.0)  # positives come from responsible cells only
    max_ov, argmax_ov = overlaps.max(0)
    gt_max_ov, gt_argmax_ov = overlaps.max(1)
    assigned = grid_assign_positive(assigned, overlaps, flags, max_ov, argmax_ov, gt_max_ov, gt_argmax_ov,
                                    pos_iou_thr, min_pos_iou)
    pos, neg = assigned > 0, assigned == 0
    matched = assigned[pos].long() - 1
    target = torch.zeros(len(anchors), 5 + CLASSES, dtype=gt.dtype, device=gt.device)
    target[pos, :4] = yolo_boxes_encode(anchors[pos], gt[matched], strides[pos])
    target[pos, 4] = 1
    target[pos, 5:] = F.one_hot(labels[matched], CLASSES).to(gt.dtype)
    return pos, neg, target, anchors, strides, gt[matched]


def flatten_predictions(maps):
    """[N, A * (5 + C), h, w] per level -> [N, M, 5 + C], anchors in the order of grid_anchors."""
    return torch.cat([m.permute(0, 2, 3, 1).reshape(m.size(0), -1, 5 + CLASSES) for m in maps], 1)


def decode(pred, anchors, strides):
    """mmdetection's YOLOBBoxCoder.decode as (cx, cy, w, h): centre offset by (sigmoid - 0.5) strides."""
    centre = (anchors[:, :2] + anchors[:, 2:]) * 0.5 + (torch.sigmoid(pred[:, :2]) - 0.5) * strides[:, None]
    return torch.cat([centre, (anchors[:, 2:] - anchors[:, :2]) * torch.exp(pred[:, 2:4])], 1)


def loss_fn(model, batch, device, box_loss="giou"):
    images, boxes, labels = batch
    images = images.to(device)
    size = images.size(-1)
    pred = flatten_predictions(model(images))
    levels = grid_anchors(size, device, images.dtype)
    total = 0
    for i in range(images.size(0)):
        with torch.no_grad():
            pos, neg, target, anchors, strides, gt = targets_for_image(boxes[i].to(device, images.dtype),
                                                                       labels[i].to(device), levels, size)
        p, t = pred[i][pos], target[pos]
        loss_cls = F.binary_cross_entropy_with_logits(p[:, 5:], t[:, 5:], reduction="sum")
        loss_conf = F.binary_cross_entropy_with_logits(pred[i][pos | neg, 4], target[pos | neg, 4], reduction="sum")
        loss_xy = F.binary_cross_entropy_with_logits(p[:, :2], t[:, :2], reduction="sum")
        loss_wh = F.mse_loss(p[:, 2:4], t[:, 2:4], reduction="sum")
        gt_cxcywh = torch.cat([(gt[:, :2] + gt[:, 2:]) / 2, gt[:, 2:] - gt[:, :2]], 1)
        loss_box = iou_loss((decode(p, anchors[pos], strides[pos]) / size).t(), (gt_cxcywh / size).t(),
                            box_loss).sum()
        total = total + loss_cls + loss_conf + 2 * loss_xy + 2 * loss_wh + loss_box
    return total / images.size(0)


def detect(model, images, score_thr=0.05, iou_thr=0.45, max_per_image=20):
    """Boxes (x1, y1, x2, y2), scores and labels per image after batched NMS."""
    size = images.size(-1)
    pred = flatten_predictions(model(images))
    levels = grid_anchors(size, images.device)
    anchors, strides = torch.cat(levels), level_strides(levels)
    results = []
    for p in pred:
        box = decode(p, anchors, strides)
        box = torch.cat([box[:, :2] - box[:, 2:] / 2, box[:, :2] + box[:, 2:] / 2], 1).clamp(0, size)
        scores, labels = (torch.sigmoid(p[:, 4:5]) * torch.sigmoid(p[:, 5:])).max(1)
        keep = scores > score_thr
        box, scores, labels = box[keep], scores[keep], labels[keep]
        keep = torchvision.ops.batched_nms(box, scores, labels, iou_thr)[:max_per_image]
        results.append((box[keep], scores[keep], labels[keep]))
    return results


def evaluate(model, batch, device):
    images, boxes, _ = batch
    dets, scores, _ = detect(model, images.to(device))[0]
    best = torchvision.ops.box_iou(dets.cpu()[:1], boxes[0]).max().item() if len(dets) else 0.0
    return (f"image 0: {len(dets)} detections after NMS, top score {scores.max().item() if len(dets) else 0:.3f}, "
            f"its best IoU with a box {best:.3f}")


def make_batches(steps, batch_size, size, seed=0):
    """(images, [boxes [n, 4]] per image, [labels [n]] per image) per step."""
    g = torch.Generator().manual_seed(seed)
    colours = torch.tensor([[1.0, 0.2, 0.2], [0.2, 1.0, 0.2], [0.2, 0.2, 1.0]])
    batches = []
    for _ in range(steps):
        images = 0.2 * torch.randn(batch_size, 3, size, size, generator=g)
        all_boxes, all_labels = [], []
        for i in range(batch_size):
            n = int(torch.randint(1, 4, (1,), generator=g))
            wh = (torch.rand(n, 2, generator=g) * 0.45 + 0.12) * size
            xy = torch.rand(n, 2, generator=g) * (size - wh)
            boxes = torch.cat([xy, xy + wh], 1).round()
            labels = torch.randint(0, CLASSES, (n,), generator=g)
            for (x1, y1, x2, y2), c in zip(boxes.int().tolist(), labels.tolist()):
                images[i, :, y1:y2, x1:x2] += colours[c, :, None, None]
            all_boxes.append(boxes)
            all_labels.append(labels)
        batches.append((images, all_boxes, all_labels))
    return batches


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv, lr=0.005, extra=lambda p: (
        p.add_argument("--box-loss", choices=["giou", "ciou"], default="giou"),
        p.add_argument("--width", type=int, default=8),
        p.add_argument("--blocks", default="1,1,1,1,1", help="residual blocks per stage (Darknet-53: 1,2,8,8,4)")))
    torch.manual_seed(0)
    model = YOLOv3(args.width, [int(b) for b in args.blocks.split(",")])
    batches = make_batches(args.steps, args.batch_size, args.image_size)
    return run("yolov3", model, batches, lambda m, b, d: loss_fn(m, b, d, args.box_loss), args, args.batch_size,
               evaluate=evaluate)


if __name__ == "__main__":
    sys.exit(0 if main().ok else 1)
