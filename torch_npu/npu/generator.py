"""NPU generators as torch.Generator objects.

Note [NPU torch.Generator]
Each NPU has a default Philox generator (Note [NPU random numbers] in
csrc/core/NPUGenerator.h); it is a c10::GeneratorImpl, so Python sees it as
a torch.Generator: `torch.npu.default_generators[i]` (as
torch.cuda.default_generators), with manual_seed/seed/initial_seed/
get_state/set_state and `device` working as for CUDA.

PyTorch 1.13's torch.Generator(device=...) constructor only knows the CPU
and CUDA, so `install()` replaces `torch.Generator` with a class whose
constructor also makes NPU generators and otherwise builds the original
torch._C.Generator. isinstance/issubclass checks and attribute lookups on the
class are forwarded to torch._C.Generator, so code that tests
`isinstance(g, torch.Generator)` or passes `generator=` keeps working.
"""
import torch

from torch_npu import _C
from torch_npu._device_name import DEVICE_TYPE, device_index
from torch_npu._patches.registry import replace

_ORIGINAL = torch._C.Generator


def _is_npu(device):
    if isinstance(device, int):
        return False
    if isinstance(device, torch.device):
        return device.type == DEVICE_TYPE
    return str(device).partition(":")[0] in ("npu", DEVICE_TYPE)


class _GeneratorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _ORIGINAL)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _ORIGINAL)

    def __getattr__(cls, name):
        return getattr(_ORIGINAL, name)


class Generator(metaclass=_GeneratorMeta):
    """torch.Generator(device="cpu"): also accepts device="npu" / "npu:N"."""

    def __new__(cls, device="cpu"):
        if _is_npu(device):
            return _C._npu_newGenerator(device_index(device))
        return _ORIGINAL(device)


def _default_generators():
    return tuple(_C._npu_defaultGenerator(index) for index in range(_C._npu_getDeviceCount()))


default_generators = _default_generators()


def install():
    replace("torch.Generator", Generator)
