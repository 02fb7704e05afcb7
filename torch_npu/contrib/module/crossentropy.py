"""torch_npu.contrib.module.LabelSmoothingCrossEntropy (torch_npu/contrib/module/crossentropy.py):
cross entropy against label-smoothed one-hot targets, on torch_npu.npu_softmax_cross_entropy_with_logits."""
import torch
import torch.nn.functional as F
from torch import nn

import torch_npu

__all__ = ["LabelSmoothingCrossEntropy"]


class LabelSmoothingCrossEntropy(nn.Module):
    """LabelSmoothingCrossEntropy(num_classes=1000, smooth_factor=0.); forward(pred, target).

    pred: (N, num_classes) logits; target: (N,) class indices. The target distribution is 1 - smooth_factor
    on the class and smooth_factor / (num_classes - 1) on each other class; returns the batch mean of
    -sum_c target_c * log_softmax(pred)_c, a float32 scalar.
    """

    def __init__(self, num_classes=1000, smooth_factor=0.):
        super().__init__()
        if num_classes < 2:
            raise ValueError(f"LabelSmoothingCrossEntropy: num_classes must be at least 2, got {num_classes}")
        self.num_classes, self.smooth_factor = num_classes, smooth_factor
        self.on_value = 1.0 - smooth_factor
        self.off_value = smooth_factor / (num_classes - 1)

    def forward(self, pred, target):
        labels = torch.full_like(pred, self.off_value)
        labels.scatter_(1, target.long().unsqueeze(1), self.on_value)
        if pred.device.type == "npu":
            loss = torch_npu.npu_softmax_cross_entropy_with_logits(pred, labels)
        else:
            loss = -(labels * F.log_softmax(pred, dim=1)).sum(1)
        return loss.mean(0, dtype=torch.float32)

    def extra_repr(self):
        return f"num_classes={self.num_classes}, smooth_factor={self.smooth_factor}"
