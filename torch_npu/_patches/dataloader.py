"""DataLoader pins batches for the NPU, with or without worker processes.

torch 1.13's DataLoader pins only when CUDA is available (`pin_memory=True` without a
`pin_memory_device` silently pins nothing on a build without CUDA), and its pin-memory thread
(used with `num_workers > 0`) asks torch.cuda.current_device() and torch.cuda.set_device(), which
raise without CUDA, so `pin_memory_device="npu"` with workers failed. Three one-line repairs (Note
[Repairing a torch function from its source]): `pin_memory=True` pins when CUDA or an NPU is
available (Tensor.pin_memory without a device pins for the NPU on such a build,
torch_npu/_tensor_methods.py), and the pin thread takes and sets the NPU's current device when
there is no CUDA.
"""
import torch.utils.data._utils.pin_memory as _pin_memory
import torch.utils.data.dataloader as _dataloader

from torch_npu._patches._source import repaired
from torch_npu._patches.registry import replace


def install():
    base, multi = _dataloader._BaseDataLoaderIter, _dataloader._MultiProcessingDataLoaderIter
    if getattr(base.__init__, "_repaired_by_torch_npu", False):
        return
    replace("torch.utils.data.dataloader._BaseDataLoaderIter.__init__", repaired(base.__dict__["__init__"], [(
        "self._pin_memory = loader.pin_memory and torch.cuda.is_available()",
        "self._pin_memory = loader.pin_memory and (torch.cuda.is_available() or torch.npu.is_available())")]))
    multi_init = repaired(multi.__dict__["__init__"], [(
        "torch.cuda.current_device(),",
        "torch.cuda.current_device() if torch.cuda.is_available() else torch.npu.current_device(),")], owner=multi)
    replace("torch.utils.data.dataloader._MultiProcessingDataLoaderIter.__init__", multi_init)
    replace("torch.utils.data._utils.pin_memory._pin_memory_loop", repaired(_pin_memory._pin_memory_loop, [(
        "torch.cuda.set_device(device_id)",
        "(torch.cuda if torch.cuda.is_available() else torch.npu).set_device(device_id)")]))
