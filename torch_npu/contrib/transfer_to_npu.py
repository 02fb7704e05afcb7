"""import torch_npu.contrib.transfer_to_npu: an unmodified CUDA script runs on the NPU.

    import torch
    import torch_npu.contrib.transfer_to_npu      # the one line a CUDA script needs
    model = Net().cuda()                           # on npu:0
    x = torch.randn(8, 3, device="cuda:0")        # on npu:0

or, without touching the script at all:

    python3 -m torch_npu.contrib.transfer_to_npu train.py --epochs 1

Note [Redirecting CUDA to the NPU]
The import patches PyTorch's Python surface, once, and prints what it redirected:
- torch.cuda: every public function and class that torch.cuda defines (its submodules included) is
  replaced by its torch.npu counterpart of the same name (torch.npu.amp for torch.cuda.amp); the few
  renamed ones (memory_cached -> memory_reserved, ...) by their new names; what has no counterpart
  (NVTX, jiterator, NCCL internals, ...) by a stub that raises a RuntimeError naming the
  CUDA API. Private names stay: torch's own modules keep working.
- Device arguments: "cuda", "cuda:N", torch.device("cuda", N) and, where torch reads an int as a CUDA
  ordinal (Tensor.to(0), .cuda(0), device=0), N mean the NPU in torch.device, the tensor factories
  (torch.zeros(..., device="cuda"), ...), Tensor.to / new_* / cuda / pin_memory / is_pinned, Module.to /
  cuda, torch.Generator, torch.load's map_location (a CUDA checkpoint without map_location loads onto
  the NPU) and torch.autocast(device_type="cuda").
- torch.device becomes a class whose instances are torch's own devices (isinstance keeps working);
  only `type(d) is torch.device` tells them apart.
- torch.distributed: backend "nccl" means "hccl" (init_process_group, new_group), is_nccl_available()
  is True; DistributedDataParallel(device_ids=[N]) works as on the NPU.
- DataLoader(pin_memory=True) pins batches for the NPU (torch.cuda.is_available() is now the NPU's, and
  Tensor.pin_memory() defaults to the NPU); torch.backends.cudnn flags are accepted as on any build.
- TorchScript: torch.jit.script compiles a call of a redirected factory or of torch.device as the
  aten op torch's own function compiles to (Note [Redirected functions in TorchScript]), so scripted
  code and modules that script at import (torch.distributed.optim) keep compiling. The redirection
  is Python's: a device that scripted code names literally ("cuda") is still CUDA when it runs.
- Tensor.is_cuda stays False for an NPU tensor: torch's own modules test it to pick CUDA-only kernels
  (nn.MultiheadAttention's fast path), so it is not redirected. `python3 -m torch_npu.tools.migrate`
  rewrites it to is_npu in the source.
"""
import builtins
import functools
import inspect
import sys
import types

import torch
import torch.distributed as dist

import torch_npu  # noqa: F401  (the NPU itself)
from torch_npu._patches import registry

_RealDevice = type(torch.device("cpu"))
_REPORT = {}


def _redirect(target, new, family=None):
    """Every replacement below, declared in registry.TRANSFER_TO_NPU (Note [The list of patches to torch])."""
    registry.replace(target, new, family=family, namespace="transfer_to_npu")


def npu_device(device):
    """'cuda' / 'cuda:N' / torch.device('cuda', N) -> the NPU's; anything else unchanged."""
    if isinstance(device, str) and (device == "cuda" or device.startswith("cuda:")):
        return "npu" + device[4:]
    if type(device) is _RealDevice and device.type == "cuda":
        return _RealDevice("npu", device.index) if device.index is not None else _RealDevice("npu")
    return device


def _npu_ordinal(device):
    """npu_device, and an int (torch's CUDA ordinal in device arguments) -> 'npu:N'."""
    if isinstance(device, int) and not isinstance(device, builtins.bool):
        return f"npu:{device}"
    return npu_device(device)


# ---- torch.device -------------------------------------------------------------------------------
class _DeviceMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _RealDevice)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _RealDevice)

    def __call__(cls, *args, **kwargs):
        if args:
            args = (npu_device(args[0]),) + args[1:]
        if "type" in kwargs:
            kwargs["type"] = npu_device(kwargs["type"])
        return _RealDevice(*args, **kwargs)


class device(metaclass=_DeviceMeta):
    """torch.device, where "cuda" means the NPU (instances are torch's own devices)."""


# ---- functions and methods with device arguments -------------------------------------------------
_FACTORIES = ("tensor", "as_tensor", "asarray", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
              "randperm", "arange", "range", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like",
              "full_like", "rand_like", "randn_like", "randint_like", "empty_strided", "normal", "scalar_tensor",
              "tril_indices", "triu_indices", "hann_window", "hamming_window", "bartlett_window",
              "blackman_window", "kaiser_window", "sparse_coo_tensor", "frombuffer")
_TENSOR_NEW = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided")


def _scriptable_as(wrapper, fn):
    """TorchScript compiles a call of `wrapper` as the aten op it compiles `fn` to.

    Note [Redirected functions in TorchScript]
    The script compiler turns a call of a Python function into an aten op only if the function is in
    torch.jit._builtins' table (by identity); any other callable it tries to compile from source,
    which fails for the wrappers here ("got builtin_function_or_method"). Registering each wrapper
    under its original's op keeps scripting working; the compiled graph calls the op directly."""
    op = torch.jit._builtins._find_builtin(fn)
    if op is not None:
        torch.jit._builtins._register_builtin(wrapper, op)
    return wrapper


def _with_npu_device_kwarg(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("device") is not None:
            kwargs["device"] = _npu_ordinal(kwargs["device"])
        return fn(*args, **kwargs)
    return _scriptable_as(wrapper, fn)


def _with_npu_device_first(fn):
    """For to(): the first positional argument may be a device."""
    @functools.wraps(fn)
    def to(self, *args, **kwargs):
        if args:
            args = (_npu_ordinal(args[0]),) + args[1:]
        if kwargs.get("device") is not None:
            kwargs["device"] = _npu_ordinal(kwargs["device"])
        return fn(self, *args, **kwargs)
    return to


def _tensor_cuda(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """Tensor.cuda: a copy on the NPU."""
    return self.npu(_npu_ordinal(device) if device is not None else None, non_blocking=non_blocking,
                    memory_format=memory_format)


def _module_cuda(self, device=None):
    """Module.cuda: parameters and buffers to the NPU."""
    return self.npu(_npu_ordinal(device) if device is not None else None)


def _pinning_device(fn):
    """pin_memory / is_pinned: a CUDA device means the NPU (no device already does: _tensor_methods.py)."""
    @functools.wraps(fn)
    def wrapper(self, device=None):
        return fn(self, _npu_ordinal(device) if device is not None else None)
    return wrapper


def _patch_device_arguments():
    count = 0
    for name in _FACTORIES:
        fn = getattr(torch, name, None)
        if fn is not None:
            _redirect(f"torch.{name}", _with_npu_device_kwarg(fn), family="torch.<tensor factory>")
            count += 1
    for name in _TENSOR_NEW:
        _redirect(f"torch.Tensor.{name}", _with_npu_device_kwarg(getattr(torch.Tensor, name)),
                  family="torch.Tensor.<new_* method>")
    _redirect("torch.Tensor.to", _with_npu_device_first(torch.Tensor.to))
    _redirect("torch.nn.Module.to", _with_npu_device_first(torch.nn.Module.to))
    _redirect("torch.Tensor.cuda", _tensor_cuda)
    _redirect("torch.nn.Module.cuda", _module_cuda)
    _redirect("torch.Tensor.pin_memory", _pinning_device(torch.Tensor.pin_memory))
    _redirect("torch.Tensor.is_pinned", _pinning_device(torch.Tensor.is_pinned))
    _redirect("torch.device", _scriptable_as(device, _RealDevice))
    _patch_generator()
    _patch_load()
    _patch_autocast()
    _REPORT["device arguments"] = (f"torch.device, {count} tensor factories, Tensor.to/new_*/cuda/pin_memory, "
                                   "Module.to/cuda, torch.Generator, torch.load map_location, torch.autocast")


def _patch_generator():
    base = torch.Generator

    class Generator(base):
        """torch.Generator, where device "cuda" means the NPU."""

        def __new__(cls, device="cpu"):
            return base(_npu_ordinal(device))

    _redirect("torch.Generator", Generator)


def _patch_load():
    real_load = torch.load

    def restore_on_npu(storage, location):
        return torch.serialization.default_restore_location(storage, npu_device(location))

    def map_location_on_npu(map_location):
        if map_location is None:
            return restore_on_npu  # a checkpoint saved on CUDA loads onto the NPU
        if isinstance(map_location, (str, _RealDevice)):
            return npu_device(map_location)
        if isinstance(map_location, dict):
            mapped = {key: npu_device(value) for key, value in map_location.items()}
            mapped.update({npu_device(key): value for key, value in mapped.items() if isinstance(key, str)})
            return mapped
        return map_location

    @functools.wraps(real_load)
    def load(f, map_location=None, *args, **kwargs):
        return real_load(f, map_location_on_npu(map_location), *args, **kwargs)

    _redirect("torch.load", load)


def _patch_autocast():
    npu_aware_autocast = torch.autocast  # accepts "npu" (torch_npu/npu/amp/autocast_mode.py)

    @functools.wraps(npu_aware_autocast)
    def autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
        return npu_aware_autocast("npu" if device_type == "cuda" else device_type, dtype=dtype, enabled=enabled,
                                  cache_enabled=cache_enabled)

    _redirect("torch.autocast", autocast)


# ---- torch.cuda ----------------------------------------------------------------------------------
_RENAMED = {"CUDAGraph": "NPUGraph", "memory_cached": "memory_reserved", "max_memory_cached": "max_memory_reserved",
            "reset_max_memory_cached": "reset_peak_memory_stats"}


def cuda_only(api, original):
    """A stand-in for a CUDA-only function or class: raises naming it."""
    message = (f"{api} is CUDA-only: torch_npu.contrib.transfer_to_npu has no NPU counterpart for it. Remove the "
               "call or guard it with a CUDA check (python3 -m torch_npu.tools.migrate lists such calls)")

    def unavailable(*args, **kwargs):
        raise RuntimeError(message)

    if inspect.isclass(original):
        return type(original.__name__, (), {"__init__": unavailable, "__doc__": message})
    unavailable.__name__ = getattr(original, "__name__", api)
    unavailable.__doc__ = message
    return unavailable


def _public_definitions(module):
    """(name, object) of the public functions and classes `module` itself defines."""
    for name, obj in vars(module).items():
        if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
            continue  # functions, classes and wrapped functions (device_count is an lru_cache)
        if inspect.isclass(obj) and (issubclass(obj, BaseException) or name.endswith("Storage")):
            continue  # `except torch.cuda.OutOfMemoryError` must stay valid; storages are torch's own
        if getattr(obj, "__module__", "").startswith("torch.cuda"):
            yield name, obj


def _redirect_cuda_module(module, counterparts, prefix, stats):
    for name, obj in list(_public_definitions(module)):
        target = next((getattr(ns, _RENAMED.get(name, name)) for ns in counterparts
                       if hasattr(ns, _RENAMED.get(name, name))), None)
        if target is not None:
            _redirect(f"{module.__name__}.{name}", target, family="torch.cuda.<API>")
            stats["redirected"] += 1
        else:
            _redirect(f"{module.__name__}.{name}", cuda_only(f"{prefix}.{name}", obj), family="torch.cuda.<API>")
            stats["cuda_only"].append(f"{prefix}.{name}")


def _patch_torch_cuda():
    stats = {"redirected": 0, "cuda_only": []}
    submodules = {name: obj for name, obj in vars(torch.cuda).items()
                  if isinstance(obj, types.ModuleType) and obj.__name__.startswith("torch.cuda.")}
    for name, module in submodules.items():
        npu_sub = getattr(torch.npu, name, None)
        counterparts = [npu_sub, torch.npu] if isinstance(npu_sub, types.ModuleType) else [torch.npu]
        _redirect_cuda_module(module, counterparts, f"torch.cuda.{name}", stats)
    _redirect_cuda_module(torch.cuda, [torch.npu], "torch.cuda", stats)
    # Private, but what every memory-debugging recipe calls (torch 2 adds _dump_snapshot; 1.13 lacks it).
    for name in ("_record_memory_history", "_snapshot", "_dump_snapshot"):
        _redirect(f"torch.cuda.memory.{name}", getattr(torch.npu.memory, name), family="torch.cuda.<API>")
        stats["redirected"] += 1
    for name in ("FloatTensor", "HalfTensor", "DoubleTensor", "IntTensor", "LongTensor", "ShortTensor",
                 "CharTensor", "ByteTensor", "BoolTensor"):
        if hasattr(torch.npu, name):
            _redirect(f"torch.cuda.{name}", getattr(torch.npu, name), family="torch.cuda.<API>")
    _REPORT["torch.cuda"] = (f"{stats['redirected']} APIs to torch.npu; {len(stats['cuda_only'])} CUDA-only "
                             "ones raise (NVTX, torch.cuda.nccl, cudart, ...)")
    return stats


# ---- torch.distributed ---------------------------------------------------------------------------
def _hccl(backend):
    return "hccl" if isinstance(backend, str) and backend.lower() == "nccl" else backend


def _patch_distributed():
    real_init, real_new_group = dist.init_process_group, dist.new_group

    @functools.wraps(real_init)
    def init_process_group(backend=None, *args, **kwargs):
        return real_init(_hccl(backend), *args, **kwargs)

    @functools.wraps(real_new_group)
    def new_group(*args, **kwargs):
        if "backend" in kwargs:
            kwargs["backend"] = _hccl(kwargs["backend"])
        elif len(args) >= 3:
            args = args[:2] + (_hccl(args[2]),) + args[3:]
        return real_new_group(*args, **kwargs)

    _redirect("torch.distributed.init_process_group", init_process_group)
    _redirect("torch.distributed.new_group", new_group)
    _redirect("torch.distributed.is_nccl_available", lambda: True)
    _REPORT["torch.distributed"] = "backend nccl -> hccl"


def install(verbose=True):
    """Applies the redirection (once); prints what it redirected to stderr."""
    if _REPORT:
        return _REPORT
    stats = _patch_torch_cuda()
    _patch_device_arguments()
    _patch_distributed()
    _REPORT["cuda_only"] = stats["cuda_only"]
    if verbose:
        parts = [f"{key}: {value}" for key, value in _REPORT.items() if key != "cuda_only"]
        print("torch_npu.contrib.transfer_to_npu: CUDA calls run on the NPU. " + "; ".join(parts) + ".",
              file=sys.stderr)
    return _REPORT


_USAGE = "usage: python3 -m torch_npu.contrib.transfer_to_npu (SCRIPT | -m MODULE) [ARGS...]"


def _run_script(argv):
    """python3 -m torch_npu.contrib.transfer_to_npu SCRIPT [ARGS...] runs SCRIPT as __main__, and
    `-m MODULE [ARGS...]` runs a module (torch.distributed.run, ...), as python3 itself would. The
    processes they start inherit TORCH_NPU_TRANSFER_TO_NPU=1, which makes the start-up hook install
    the redirection in them too (Note [transfer_to_npu in child processes])."""
    import os
    import runpy
    if not argv or (argv[0] == "-m" and len(argv) < 2):
        raise SystemExit(_USAGE)
    os.environ["TORCH_NPU_TRANSFER_TO_NPU"] = "1"
    if argv[0] == "-m":
        sys.argv = [argv[1]] + list(argv[2:])
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    from torch_npu.contrib import transfer_to_npu as _installed  # noqa: F401  (installs, under its own name)
    _run_script(sys.argv[1:])
else:
    import os as _os
    install(verbose=_os.environ.get("TORCH_NPU_TRANSFER_TO_NPU") != "1")  # children: the parent said it
