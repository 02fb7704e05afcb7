"""torch_npu.npu_get_float_status / npu_clear_float_status (see torch_npu.npu.numerics)."""
import torch


def npu_get_float_status(tensor):
    """An 8-element float32 NPU tensor; element 0 is non-zero after an fp16 overflow."""
    return torch.ops.npu.npu_get_float_status(tensor)


def npu_clear_float_status(tensor):
    return torch.ops.npu.npu_clear_float_status(tensor)
