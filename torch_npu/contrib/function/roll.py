"""torch_npu.contrib.function.roll (torch_npu/contrib/function/roll.py): torch.roll of an NHWC tensor
over H and W (Swin Transformer's cyclic shift) as one index_select over the flattened H * W positions,
with an index_select of the inverse permutation as its backward."""
import torch

__all__ = ["roll"]


class _RollIndexSelect(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, forward_index, backward_index):
        n, h, w, c = x.shape
        ctx.backward_index = backward_index
        return x.reshape(n, h * w, c).index_select(1, forward_index).reshape(n, h, w, c)

    @staticmethod
    def backward(ctx, grad):
        n, h, w, c = grad.shape
        grad = grad.reshape(n, h * w, c).index_select(1, ctx.backward_index).reshape(n, h, w, c)
        return grad, None, None


class _NpuRollWithIndexSelect:
    """roll(x, shifts, dims): x (N, H, W, C), shifts (sh, sw); dims (two values) is not read: H and W
    are rolled, as torch.roll(x, shifts, dims=(1, 2)). The permutations are cached per shape, shift and
    device."""

    def __init__(self):
        self._index_cache = {}

    def _indices(self, h, w, shifts, dims, device):
        key = (h, w, shifts, dims, device)
        if key not in self._index_cache:
            positions = torch.arange(h * w).reshape(h, w)
            forward_index = torch.roll(positions, shifts, dims=(0, 1)).reshape(-1)
            backward_index = torch.argsort(forward_index)
            self._index_cache[key] = (forward_index.to(device), backward_index.to(device))
        return self._index_cache[key]

    def __call__(self, x, shifts, dims):
        if x.dim() != 4:
            raise ValueError(f"roll: x must be 4-D (N, H, W, C), got shape {tuple(x.shape)}")
        if len(shifts) != 2 or len(dims) != 2:
            raise ValueError(f"roll: shifts and dims must hold 2 values each, got {shifts} and {dims}")
        shifts, dims = tuple(int(s) for s in shifts), tuple(int(d) for d in dims)
        forward_index, backward_index = self._indices(x.size(1), x.size(2), shifts, dims, x.device)
        return _RollIndexSelect.apply(x, forward_index, backward_index)


roll = _NpuRollWithIndexSelect()
