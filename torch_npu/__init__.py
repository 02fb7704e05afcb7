"""torch_npu: PyTorch on a simulated Ascend NPU.

`import torch_npu` loads the NPU backend (registered on PyTorch's PrivateUse1
dispatch key), installs `torch.npu`, and adds the NPU spellings of the
PyTorch API: `tensor.npu()`, `tensor.is_npu`, `module.npu()`, `device="npu"`.
"""
import torch

if not hasattr(torch, "__version__") or not torch.__version__.startswith("1.13"):
    import warnings as _warnings
    _warnings.warn(f"torch_npu was built for PyTorch 1.13, found {getattr(torch, '__version__', '?')}")

try:
    from torch_npu import _C  # noqa: F401  (loads libtorch_npu.so and registers the kernels)
except ImportError as _e:  # pragma: no cover - a build problem, reported clearly
    raise ImportError(
        f"torch_npu's native extension could not be loaded ({_e}). Build it with "
        "`/usr/bin/python3 setup.py develop` (see README.md).") from _e

from torch_npu._device_name import DEVICE_TYPE
from torch_npu import npu
from torch_npu import _custom_ops, _patches
from torch_npu._formats import Format, empty_with_format, get_npu_format, npu_format_cast, npu_format_cast_
from torch_npu._float_status import npu_alloc_float_status, npu_clear_float_status, npu_get_float_status
from torch_npu import distributed  # noqa: F401  (torch_npu.distributed, the hccl backend)
from torch_npu import optim  # noqa: F401  (torch_npu.optim)
from torch_npu import profiler  # noqa: F401  (torch_npu.profiler)
from torch_npu import utils  # noqa: F401  (torch_npu.utils; its cpp_extension loads on first use)

__version__ = "0.1.0"

__all__ = ["npu", "DEVICE_TYPE", "Format", "empty_with_format", "get_npu_format", "npu_format_cast",
           "npu_format_cast_", "npu_alloc_float_status", "npu_get_float_status", "npu_clear_float_status",
           *_custom_ops.FUNCTIONS]

# Every patch of torch, torch.npu among them (Note [Patches to torch]).
_patches.install()
