"""torch.npu.amp.autocast (Note [NPU autocast] in csrc/aten/common/AutocastNPU.cpp).

PyTorch 1.13's torch.autocast accepts only "cuda", "cpu" and "xpu", so the
NPU has its own context manager with torch.cuda.amp.autocast's interface, and
install_torch_autocast makes torch.autocast("npu", ...) return it.
The op lists and cast policies are CUDA's; bfloat16 needs a 910B chip.
"""
import functools
import threading

import torch

from torch_npu import _C
from torch_npu._patches.registry import replace

_state = threading.local()


def _nesting():
    return getattr(_state, "nesting", 0)


def is_autocast_enabled():
    """True inside an enabled torch.npu.amp.autocast region (this thread)."""
    return _C._npu_isAutocastEnabled()


def get_autocast_dtype():
    return _C._npu_getAutocastDtype()


class autocast:
    """Context manager / decorator: ops on NPU tensors run in mixed precision.

    Args:
        enabled: whether autocasting is on in the region (default True).
        dtype: torch.float16 (default) or torch.bfloat16 (910B chips only).
        cache_enabled: cache the fp16 copies of parameters inside the region.
    """

    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        if not isinstance(enabled, bool):
            raise TypeError(f"torch.npu.amp.autocast: enabled must be a bool, got {type(enabled).__name__}")
        if dtype not in (torch.float16, torch.bfloat16):
            raise RuntimeError(f"torch.npu.amp.autocast supports dtype torch.float16 and torch.bfloat16, got {dtype}")
        if enabled and dtype == torch.bfloat16 and not torch.npu.is_bf16_supported():
            raise RuntimeError(
                f"torch.npu.amp.autocast(dtype=torch.bfloat16) needs an Ascend 910B chip; this device is "
                f"{torch.npu.get_device_name()} (torch.npu.is_bf16_supported() is False). Use dtype=torch.float16, "
                "or select a 910B preset with ASCEND_SIM_SOC_VERSION=Ascend910B2.")
        self._enabled = enabled
        self._dtype = dtype
        self._cache_enabled = cache_enabled

    def __enter__(self):
        self._prev = (_C._npu_isAutocastEnabled(), _C._npu_getAutocastDtype(), torch.is_autocast_cache_enabled())
        _state.nesting = _nesting() + 1
        _C._npu_setAutocastEnabled(self._enabled)
        _C._npu_setAutocastDtype(self._dtype)
        torch.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc):
        _state.nesting = _nesting() - 1
        if _state.nesting == 0:
            _C._npu_clearAutocastCache()
        enabled, dtype, cache_enabled = self._prev
        _C._npu_setAutocastEnabled(enabled)
        _C._npu_setAutocastDtype(dtype)
        torch.set_autocast_cache_enabled(cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def cast_tensors(value, dtype, eligible):
    """`value` with every tensor `eligible(t)` selects cast to dtype, through lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if eligible(value) else value
    if isinstance(value, dict):
        return {k: cast_tensors(v, dtype, eligible) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(cast_tensors(v, dtype, eligible) for v in value)
    return value


def _is_autocast_eligible(t):
    return t.is_floating_point() and t.device.type == "npu" and t.dtype is not torch.float64


def _cast(value, dtype):
    return cast_tensors(value, dtype, _is_autocast_eligible)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """As torch.cuda.amp.custom_fwd, for the forward of a torch.autograd.Function.

    Without cast_inputs the forward runs under the caller's autocast state;
    with cast_inputs (e.g. torch.float32) inside an autocast region, floating
    NPU inputs are cast to it and the forward runs with autocast off.
    """
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._fwd_autocast_dtype = get_autocast_dtype()
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled()
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled()
        ctx._fwd_used_autocast = False
        if autocast_context:
            with autocast(enabled=False):
                return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd):
    """As torch.cuda.amp.custom_bwd: the backward runs under the forward's autocast state (on or off,
    and its dtype)."""
    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(enabled=args[0]._fwd_used_autocast, dtype=args[0]._fwd_autocast_dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def install_torch_autocast():
    """torch.autocast(device_type="npu", ...) means torch.npu.amp.autocast (as in torch_npu 2.x)."""
    original = torch.autocast

    @functools.wraps(original)
    def npu_aware_autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
        if device_type == "npu":
            return autocast(enabled=enabled, dtype=torch.float16 if dtype is None else dtype,
                            cache_enabled=True if cache_enabled is None else cache_enabled)
        return original(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    replace("torch.autocast", npu_aware_autocast)
