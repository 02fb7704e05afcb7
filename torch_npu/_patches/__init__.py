"""Where torch_npu changes PyTorch 1.13's own Python code, for the NPU's sake.

Note [Patches to torch]
Every patch of torch, wherever its code lives, is declared in one list, registry.py's TORCH_NPU
(transfer_to_npu's are its TRANSFER_TO_NPU), and applied through registry.replace, which records it
and makes a second install a no-op (Note [The list of patches to torch]); `install()` below runs
every installer in the order `import torch_npu` always has, and
`torch_npu._patches.registry.patches()` lists them. To add a patch: declare a Patch (target, the
test that exercises it, a one-line reason) in registry.py and apply it with
`registry.replace(target, new)` from the installer of the module that owns the code;
test/python/patches/test_torch_patches.py fails on an assignment to a torch attribute anywhere else.

Several of PyTorch's subsystems special-case CUDA and thereby silently skip any other device; 1.13
gives an out-of-tree backend no hook for them. Each module of this package fixes one subsystem, says
why in its Note, and replaces only attributes of torch's modules (functions, methods, the
multiprocessing reducers), never builtins or os. The audit behind them, with the project's answer to
each CUDA special case, is docs/pytorch_cuda_paths.md. The other patches belong with the code they
install (the NPU spellings in _tensor_methods.py, serialization in _serialization.py, torch.Generator
in npu/generator.py, torch.autocast in npu/amp/autocast_mode.py, ...). The start-up hook's two
source repairs (_startup_fixes.py, Note [Torch 1.13 on Python 3.11]) run before torch is imported
and are not in the list.

| module             | fixes                                         | Note                                         |
|--------------------|-----------------------------------------------|----------------------------------------------|
| checkpoint         | RNG and autocast of the recompute             | [Checkpoint recompute on the NPU]            |
| random             | fork_rng(device_type="npu"), torch.seed       | module docstring                             |
| data_parallel      | device discovery, comm, parallel_apply        | [DataParallel on the NPU]                    |
| sharing            | share_memory_, torch.multiprocessing reducers | [NPU memory is not shared between processes] |
| cuda_amp           | torch.cuda.amp.custom_fwd / custom_bwd        | module docstring                             |
| object_collectives | _get_pg_device: hccl groups stage on the NPU  | module docstring                             |
| testing            | assert_close: float64 NPU tensors on the host | module docstring                             |
| fsdp               | FSDP's view of torch, its compute device      | [FSDP on the NPU]                            |
| sync_batch_norm    | SyncBatchNorm.forward: two CUDA checks        | module docstring                             |
| dataloader         | pinning without CUDA, the pin thread's device | module docstring                             |
| autograd_streams   | the backward's NPU stream                     | [Streams of the autograd engine's NPU threads] |

Where only a line or two of a long torch function is CUDA-specific, the function is recompiled from
its own source with that text replaced (`_source.repaired`, Note [Repairing a torch function from
its source]) rather than copied.
"""
import importlib
import sys

import torch

from torch_npu._patches import registry

# The subsystem fixes of this package (the table above), in the order they are installed.
_ALL = ("random", "checkpoint", "data_parallel", "sharing", "cuda_amp", "object_collectives", "testing", "fsdp",
        "sync_batch_norm", "dataloader", "autograd_streams")


def install():
    """Applies every patch of torch (registry.patches() lists them), in the order `import torch_npu` always has;
    called at the end of torch_npu/__init__.py. A second call changes nothing."""
    import torch_npu
    from torch_npu import _custom_ops, _device_name, _formats, _serialization, _tensor_methods, distributed, npu
    _tensor_methods.install()
    _serialization.install()
    _formats.install()
    _custom_ops.install(torch_npu)
    npu.generator.install()
    npu.autograd_profiler.install()
    npu.amp.autocast_mode.install_torch_autocast()
    distributed._install()
    for name in _ALL:
        importlib.import_module(f"torch_npu._patches.{name}").install()

    if _device_name.is_native():
        if not hasattr(torch, "npu"):  # torch's own way to add a device module; it refuses a second one
            torch._register_device_module("npu", npu)
    else:
        registry.replace("torch.npu", npu)
    sys.modules["torch.npu"] = npu
    sys.modules["torch.npu.amp"] = npu.amp
    # torch_npu's 1.11 line exposed its operators in torch's namespace too (torch.npu_slice, ...), and
    # ported code calls them that way.
    for name in torch_npu.__all__:
        if name.startswith("npu_") and not hasattr(torch, name):
            registry.replace(f"torch.{name}", getattr(torch_npu, name), family="torch.<torch_npu operator>")
