"""torch_npu.contrib.module.NpuDropPath (torch_npu/contrib/module/npu_droppath.py): stochastic depth
(timm's DropPath, per sample) whose random numbers are drawn ahead, on a side NPU stream, by a
forward-pre-hook that NpuDropPath.enable_droppath_ensemble(model) installs on the model.

Note [Random numbers drawn ahead]
Every training forward of an NpuDropPath counts a request under the key (shape, device, dtype, dim) of its
input. The model's forward-pre-hook then draws, for each key, as many uniform (B, 1, ..., 1) tensors as
the last iteration requested and queues them. A forward takes the next queued tensor r and returns
x / keep_prob * floor(keep_prob + r); when the queue is empty (the first iteration, or without the hook)
it returns x unchanged, as torch_npu does.
"""
import torch
from torch import nn

__all__ = ["NpuDropPath"]


class NpuDropPath(nn.Module):
    """NpuDropPath(drop_prob): in training, each sample of x is zeroed with probability drop_prob and the
    others scaled by 1 / (1 - drop_prob); identity in eval mode or when drop_prob is 0 (None means 0).
    Call NpuDropPath.enable_droppath_ensemble(model) once (Note [Random numbers drawn ahead])."""

    task_dict = {}
    droppath_streams = {}

    def __init__(self, drop_prob=None):
        super().__init__()
        self.drop_prob = 0. if drop_prob is None else float(drop_prob)
        self.keep_prob = 1. - self.drop_prob

    @classmethod
    def enable_droppath_ensemble(cls, model):
        """Installs the forward-pre-hook that draws the next iteration's random numbers on `model`."""
        return model.register_forward_pre_hook(cls._draw_ahead)

    @classmethod
    def _side_stream(cls, device):
        if device.type != "npu":
            return None
        index = device.index if device.index is not None else torch.npu.current_device()
        if index not in cls.droppath_streams:
            cls.droppath_streams[index] = torch.npu.Stream(index)
        return cls.droppath_streams[index]

    @classmethod
    def _draw_ahead(cls, module, inputs):
        for (shape, device, dtype, ndim), task in cls.task_dict.items():
            count, task["request_count"] = task["request_count"], 0
            size = (shape[0],) + (1,) * (ndim - 1)
            stream = cls._side_stream(device)
            if stream is None:
                task["rand_queue"] = [torch.rand(size, device=device, dtype=dtype) for _ in range(count)]
            else:
                with torch.npu.stream(stream):
                    task["rand_queue"] = [torch.rand(size, device=device, dtype=dtype) for _ in range(count)]

    def forward(self, x):
        if not self.training or self.drop_prob == 0.:
            return x
        key = (tuple(x.shape), x.device, x.dtype, x.dim())
        task = NpuDropPath.task_dict.setdefault(key, {"request_count": 0, "rand_queue": []})
        task["request_count"] += 1
        if not task["rand_queue"]:
            return x
        rand = task["rand_queue"].pop(0)
        stream = self._side_stream(x.device)
        if stream is not None:
            current = torch.npu.current_stream(x.device)
            current.wait_stream(stream)
            rand.record_stream(current)
        return x.div(self.keep_prob) * torch.floor(self.keep_prob + rand)

    def extra_repr(self):
        return f"drop_prob={self.drop_prob}"
