"""torch.utils.checkpoint recomputes an NPU block exactly as it ran in the forward.

Note [Checkpoint recompute on the NPU]
torch 1.13's checkpoint, in both forms (CheckpointFunction for use_reentrant=True,
_checkpoint_without_reentrant otherwise), stashes the CPU RNG state and, for CUDA tensors among the
inputs, the CUDA RNG states; the recompute in backward restores them and re-enters
torch.cuda.amp.autocast and torch.cpu.amp.autocast with the forward's settings. An NPU block gets
neither: dropout draws new masks in the recompute, and the recompute runs outside NPU autocast, so
the gradients differ from the plain block's, with no error.

torch_npu wraps the function checkpoint is given, at the moment checkpoint receives it, in a
_ForwardReplay. It records what the forward runs under: the RNG state of every NPU device that
holds a tensor input (when preserve_rng_state, as torch does for CUDA) and the NPU autocast
settings. Its first call is the forward and runs as is. Every later call is a recompute: it
forks the recorded devices' RNG (their states are put back afterwards, as torch.random.fork_rng
does), sets the forward's states and enters NPU autocast with the forward's settings, innermost, so
it wins over the CUDA autocast checkpoint itself enters (which transfer_to_npu maps to the NPU's).
"""
import contextlib
import functools

import torch
import torch.utils.checkpoint as _checkpoint

from torch_npu import _C
from torch_npu._patches.random import fork_npu_rng
from torch_npu._patches.registry import replace


def _npu_devices_of(args):
    return sorted({arg.get_device() for arg in args
                   if isinstance(arg, torch.Tensor) and arg.device.type == "npu"})


@contextlib.contextmanager
def _forked_rng(devices, states):
    """Sets each device's RNG to `states` for the block, then puts back what it held before."""
    with fork_npu_rng(devices):
        for device, state in zip(devices, states):
            torch.npu.set_rng_state(state, device)
        yield


class _ForwardReplay:
    """`function`, whose second and later calls run under the RNG and autocast state of the first."""

    def __init__(self, function, preserve_rng_state, args):
        functools.update_wrapper(self, function, updated=())
        self.function = function
        self.devices = _npu_devices_of(args) if preserve_rng_state else []
        self.rng_states = [torch.npu.get_rng_state(device) for device in self.devices]
        self.autocast = dict(enabled=_C._npu_isAutocastEnabled(), dtype=_C._npu_getAutocastDtype(),
                             cache_enabled=torch.is_autocast_cache_enabled())
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls == 1:
            return self.function(*args, **kwargs)
        with _forked_rng(self.devices, self.rng_states), torch.npu.amp.autocast(**self.autocast):
            return self.function(*args, **kwargs)


def _replaying_reentrant_forward(forward):
    @functools.wraps(forward)
    def replaying_forward(ctx, run_function, preserve_rng_state, *args):
        return forward(ctx, _ForwardReplay(run_function, preserve_rng_state, args), preserve_rng_state, *args)

    return staticmethod(replaying_forward)


def _replaying_without_reentrant(checkpoint_without_reentrant):
    @functools.wraps(checkpoint_without_reentrant)
    def replaying(function, preserve_rng_state=True, *args, **kwargs):
        replay = _ForwardReplay(function, preserve_rng_state, args + tuple(kwargs.values()))
        return checkpoint_without_reentrant(replay, preserve_rng_state, *args, **kwargs)

    return replaying


def install():
    replace("torch.utils.checkpoint.CheckpointFunction.forward",
            _replaying_reentrant_forward(_checkpoint.CheckpointFunction.forward))
    replace("torch.utils.checkpoint._checkpoint_without_reentrant",
            _replaying_without_reentrant(_checkpoint._checkpoint_without_reentrant))
