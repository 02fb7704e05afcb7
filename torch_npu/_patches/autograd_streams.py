"""torch.autograd.backward and torch.autograd.grad run the NPU's backward nodes on the caller's
current NPU streams (Note [Streams of the autograd engine's NPU threads] in csrc/core/NPUStream.h).

torch 1.13's engine guards a node onto its forward's stream only for CUDA; for the NPU it runs every
node on its worker thread's default stream. With the caller's streams published for the call, a
forward and backward run under `torch.npu.stream(s)` stay on `s` (ordered, and capturable in an NPU
graph), as they do on CUDA.
"""
import functools

from torch_npu import _C
from torch_npu._patches.registry import replace

import torch


def _on_caller_streams(run):
    @functools.wraps(run)
    def running(*args, **kwargs):
        _C._npu_publishBackwardStreams()
        try:
            return run(*args, **kwargs)
        finally:
            _C._npu_unpublishBackwardStreams()

    return running


def install():
    for name in ("backward", "grad"):  # replace() does nothing the second time
        replace(f"torch.autograd.{name}", _on_caller_streams(getattr(torch.autograd, name)))
