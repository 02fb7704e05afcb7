"""DB (differentiable binarisation) text detector trained on synthetic text boxes, NPU against CPU.

    /usr/bin/python3 examples/seed_models/db_text.py [--steps 3] [--batch-size 2] [--image-size 64]

Liao et al.'s DBNet at a smaller width: a ResNet-18-style backbone whose 3x3
convolutions in stages 2-4 are modulated deformable convolutions
(torch_npu.contrib.module.DCNv2, on torchvision's deform_conv2d), an FPN that
upsamples and concatenates the four levels at 1/4 scale, and the DB head: a
probability map P and a threshold map T (each conv-BN-ReLU and two stride-2
transposed convolutions back to full resolution) and the approximate binary
map B = sigmoid(k (P - T)), k = 50. Loss: L_s (BCE of P with 3:1 hard-negative
mining) + L_b (dice of B) + 10 L_t (L1 of T inside the dilated boxes).
The data: 1-3 striped rectangles ("words") per image on noise; the targets are
DBNet's, for axis-aligned boxes (the box shrunk by D = A (1 - 0.4^2) / L for P,
a border ramp from 0.7 on the edge to 0.3 at distance D for T).
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_npu.contrib.module import DCNv2

from seed_common import parse_args, run


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride, dcn):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        # DBNet puts the deformable convolution in the second 3x3 of the block (stages 2-4).
        self.conv2 = DCNv2(cout, cout, 3, 1, 1, bias=False) if dcn else nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.down is None else self.down(x)))


def head(cin, mid):
    return nn.Sequential(nn.Conv2d(cin, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
                         nn.ConvTranspose2d(mid, mid, 2, 2), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
                         nn.ConvTranspose2d(mid, 1, 2, 2), nn.Sigmoid())


class DBNet(nn.Module):
    def __init__(self, width=16, inner=32, blocks=1, k=50.0):
        super().__init__()
        self.k = k
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        chans = [width, 2 * width, 4 * width, 8 * width]
        self.stages = nn.ModuleList()
        cin = width
        for i, cout in enumerate(chans):
            layers = [BasicBlock(cin if j == 0 else cout, cout, 1 if i == 0 or j else 2, dcn=i > 0)
                      for j in range(blocks)]
            self.stages.append(nn.Sequential(*layers))
            cin = cout
        self.lateral = nn.ModuleList(nn.Conv2d(c, inner, 1, bias=False) for c in chans)
        self.smooth = nn.ModuleList(nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False) for _ in chans)
        self.prob_head, self.thresh_head = head(inner, inner // 4), head(inner, inner // 4)

    def forward(self, images):
        x, features = self.stem(images), []
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        laterals = [conv(f) for conv, f in zip(self.lateral, features)]
        for i in range(len(laterals) - 1, 0, -1):  # top-down pathway
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], size=laterals[i - 1].shape[2:])
        size = laterals[0].shape[2:]
        fused = torch.cat([F.interpolate(conv(p), size=size) for conv, p in zip(self.smooth, laterals)], 1)
        prob, thresh = self.prob_head(fused), self.thresh_head(fused)
        binary = torch.sigmoid(self.k * (prob - thresh))  # differentiable binarisation
        return prob, thresh, binary


def db_targets(boxes, size, shrink=0.4):
    """DBNet's targets for axis-aligned boxes [n, 4]: (shrunk probability map, threshold map, its mask)."""
    ys, xs = torch.meshgrid(torch.arange(size) + 0.5, torch.arange(size) + 0.5, indexing="ij")
    prob, thresh, mask = torch.zeros(size, size), torch.full((size, size), 0.3), torch.zeros(size, size)
    for x1, y1, x2, y2 in boxes.tolist():
        w, h = x2 - x1, y2 - y1
        d = w * h * (1 - shrink ** 2) / (2 * (w + h))
        prob[(xs > x1 + d) & (xs < x2 - d) & (ys > y1 + d) & (ys < y2 - d)] = 1
        # distance to the box's edge, inside or outside
        dx, dy = (torch.maximum(x1 - xs, xs - x2)), (torch.maximum(y1 - ys, ys - y2))
        outside = torch.hypot(dx.clamp(min=0), dy.clamp(min=0))
        dist = torch.where((dx < 0) & (dy < 0), -torch.maximum(dx, dy), outside)
        near = dist < d
        thresh[near] = torch.maximum(thresh[near], 0.3 + 0.4 * (1 - dist[near] / d))
        mask[near] = 1
    return prob, thresh, mask


def make_batches(steps, batch_size, size, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(steps):
        images = 0.2 * torch.randn(batch_size, 3, size, size, generator=g)
        targets = []
        for i in range(batch_size):
            n = int(torch.randint(1, 4, (1,), generator=g))
            wh = torch.rand(n, 2, generator=g) * torch.tensor([0.5, 0.15]) * size + torch.tensor([0.2, 0.1]) * size
            xy = torch.rand(n, 2, generator=g) * (size - wh)
            boxes = torch.cat([xy, xy + wh], 1).round()
            for x1, y1, x2, y2 in boxes.int().tolist():
                stripes = (torch.arange(x2 - x1) % 4 < 2).float()
                images[i, :, y1:y2, x1:x2] += stripes + 0.5
            targets.append(torch.stack(db_targets(boxes, size)))
        batches.append((images, torch.stack(targets)))
    return batches


def balanced_bce(prob, gt, negative_ratio=3.0, eps=1e-6):
    """BCE over the positives and the 3x-as-many hardest negatives (DBNet's L_s)."""
    loss = F.binary_cross_entropy(prob, gt, reduction="none")
    positives = int(gt.sum().item())
    negatives = min(int((1 - gt).sum().item()), int(positives * negative_ratio))
    hard_negatives = torch.topk((loss * (1 - gt)).flatten(), negatives).values
    return ((loss * gt).sum() + hard_negatives.sum()) / (positives + negatives + eps)


def dice_loss(pred, gt, eps=1e-6):
    return 1 - 2 * (pred * gt).sum() / (pred.sum() + gt.sum() + eps)


def loss_fn(model, batch, device):
    images, targets = (t.to(device) for t in batch)
    gt_prob, gt_thresh, thresh_mask = targets.unbind(1)
    prob, thresh, binary = (t.squeeze(1) for t in model(images))
    loss_s = balanced_bce(prob, gt_prob)
    loss_b = dice_loss(binary, gt_prob)
    loss_t = ((thresh - gt_thresh).abs() * thresh_mask).sum() / (thresh_mask.sum() + 1e-6)
    return loss_s + loss_b + 10 * loss_t


def evaluate(model, batch, device):
    images, targets = batch
    prob, _, _ = model(images.to(device))
    pred, gt = (prob.squeeze(1) > 0.3).cpu(), targets[:, 0] > 0.5
    iou = (pred & gt).sum().item() / max((pred | gt).sum().item(), 1)
    return f"text-pixel IoU of P > 0.3 with the shrunk boxes {iou:.3f}"


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv, lr=0.02)
    torch.manual_seed(0)
    model = DBNet()
    batches = make_batches(args.steps, args.batch_size, args.image_size)
    return run("db_text", model, batches, loss_fn, args, args.batch_size, evaluate=evaluate)


if __name__ == "__main__":
    sys.exit(0 if main().ok else 1)
