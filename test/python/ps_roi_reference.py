"""R-FCN's position-sensitive RoI pooling, torch_npu.npu_ps_roi_pooling and its backward (CANN's
PSROIPoolingV2 / PSROIPoolingGradV2D in their own form), as a loop over the bins on the CPU: the reference
of npu_op_tests/detection/test_ps_roi_pooling.py and of ops/test_contrib.py's PSROIPool test.

Roi n is rois.transpose(2, 1).reshape(-1, 5)[n] = (batch index, x1, y1, x2, y2). Its bins are those of
R-FCN's Caffe kernel, in float32 as the kernel computes them: start = round(x1) * scale (C's round, halves
away from zero), end = (round(x2) + 1) * scale, bin = max(end - start, 0.1) / group_size, bin (i, j) covers
rows [floor(i * bin_h + start_h), ceil((i + 1) * bin_h + start_h)) and the columns likewise, clipped to
the map; output (n, c, i, j) is the mean of input channel (c * group_size + i) * group_size + j over its
bin, 0 if the bin is empty, and the gradient spreads grad / area over the same pixels.
"""
import numpy as np
import torch

__all__ = ["ps_roi_pooling_bins", "ps_roi_pooling_reference", "ps_roi_pooling_backward_reference"]

_F32 = np.float32


def _c_round(v):
    """C's roundf of a float32: halves away from zero (torch.round and np.round round them to even)."""
    r = np.trunc(v)
    return r + np.sign(v) if abs(v - r) >= 0.5 else r


def _edges(start, end, group_size, size):
    """The [start, end) pixels of the group_size bins along one axis, clipped to [0, size]."""
    step = max(end - start, _F32(0.1)) / _F32(group_size)
    k = np.arange(group_size + 1, dtype=_F32)
    lo = np.clip(np.floor(k[:-1] * step + start), 0, size).astype(np.int64)
    hi = np.clip(np.ceil(k[1:] * step + start), 0, size).astype(np.int64)
    return lo.tolist(), hi.tolist()


def ps_roi_pooling_bins(rois, spatial_scale, group_size, height, width):
    """Yields (n, batch index, i, j, hstart, hend, wstart, wend) for bin (i, j) of every roi n of a
    [B, 5, R] roi tensor, on a height x width map."""
    table = rois.detach().cpu().float().transpose(2, 1).reshape(-1, 5).numpy()
    scale = _F32(spatial_scale)
    for n, (b, x1, y1, x2, y2) in enumerate(table):
        hs, he = _edges(_c_round(y1) * scale, (_c_round(y2) + _F32(1)) * scale, group_size, height)
        ws, we = _edges(_c_round(x1) * scale, (_c_round(x2) + _F32(1)) * scale, group_size, width)
        for i in range(group_size):
            for j in range(group_size):
                yield n, int(b), i, j, hs[i], he[i], ws[j], we[j]


def ps_roi_pooling_reference(x, rois, spatial_scale, group_size, output_dim):
    """npu_ps_roi_pooling(x, rois, ...) in float32: [B * R, output_dim, group_size, group_size]."""
    x = x.detach().cpu().float()
    g = group_size
    out = torch.zeros(rois.size(0) * rois.size(2), output_dim, g, g)
    channels = torch.arange(output_dim) * g * g
    for n, b, i, j, hs, he, ws, we in ps_roi_pooling_bins(rois, spatial_scale, g, x.size(2), x.size(3)):
        if he > hs and we > ws:
            out[n, :, i, j] = x[b, channels + i * g + j, hs:he, ws:we].mean((1, 2))
    return out


def ps_roi_pooling_backward_reference(grad, rois, spatial_scale, group_size, output_dim, input_size):
    """npu_ps_roi_pooling_backward(grad, rois, ...) in float32: [B, output_dim * group_size ** 2, H, W]."""
    grad = grad.detach().cpu().float()
    g, (height, width) = group_size, input_size
    out = torch.zeros(rois.size(0), output_dim * g * g, height, width)
    channels = torch.arange(output_dim) * g * g
    for n, b, i, j, hs, he, ws, we in ps_roi_pooling_bins(rois, spatial_scale, g, height, width):
        if he > hs and we > ws:
            out[b, channels + i * g + j, hs:he, ws:we] += (grad[n, :, i, j] / ((he - hs) * (we - ws)))[:, None, None]
    return out
