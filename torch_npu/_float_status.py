"""torch_npu.npu_alloc_float_status / npu_get_float_status / npu_clear_float_status
(see torch_npu.npu.numerics)."""
import torch


def npu_alloc_float_status(tensor):
    """A zeroed 8-element float32 status tensor on `tensor`'s NPU, for the two below."""
    return torch.ops.npu.npu_alloc_float_status(tensor)


def npu_get_float_status(tensor):
    """An 8-element float32 NPU tensor; element 0 is non-zero after an fp16 overflow."""
    return torch.ops.npu.npu_get_float_status(tensor)


def npu_clear_float_status(tensor):
    return torch.ops.npu.npu_clear_float_status(tensor)
