"""nn.SyncBatchNorm on NPUs: its two CUDA checks, repaired.

torch 1.13's SyncBatchNorm.forward refuses any input that is not CUDA ("SyncBatchNorm expected input
tensor to be on GPU"), and its autograd Function asks torch.cuda.is_current_stream_capturing(),
which raises without CUDA. The work itself is five dispatcher ops (batch_norm_stats,
batch_norm_gather_stats_with_counts, batch_norm_elemt, batch_norm_backward_reduce,
batch_norm_backward_elemt: NPU kernels in csrc/aten/norm/SyncBatchNormOps.cpp) and collectives on the
module's process group (hccl). torch_npu repairs the two lines (Note [Repairing a torch function
from its source]): NPU inputs are accepted, and the capture check is asked only of CUDA inputs.
"""
import torch.nn.modules._functions as _functions
import torch.nn.modules.batchnorm as _batchnorm

from torch_npu._patches._source import repaired
from torch_npu._patches.registry import replace


def install():
    module_class, function_class = _batchnorm.SyncBatchNorm, _functions.SyncBatchNorm
    if getattr(module_class.forward, "_repaired_by_torch_npu", False):
        return
    replace("torch.nn.modules.batchnorm.SyncBatchNorm.forward", repaired(module_class.__dict__["forward"], [(
        "if not input.is_cuda:", "if not (input.is_cuda or input.device.type == \"npu\"):")]))
    replace("torch.nn.modules._functions.SyncBatchNorm.forward", repaired(function_class.__dict__["forward"], [(
        "if not torch.cuda.is_current_stream_capturing():",
        "if not (input.is_cuda and torch.cuda.is_current_stream_capturing()):")]))
