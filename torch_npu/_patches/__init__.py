"""Where torch_npu changes PyTorch 1.13's own Python code, for the NPU's sake.

Note [Patches to torch]
Several of PyTorch's subsystems special-case CUDA and thereby silently skip any other device; 1.13
gives an out-of-tree backend no hook for them. Each module of this package fixes one subsystem, says
why in its Note, and replaces only attributes of torch's modules (functions, methods, the
multiprocessing reducers), never builtins or os. Every replacement checks a marker so a second
install is a no-op. The audit behind them, with the project's answer to each CUDA special case, is
docs/pytorch_cuda_paths.md.

| module          | replaces                                                         | Note                                           |
|-----------------|------------------------------------------------------------------|------------------------------------------------|
| checkpoint      | CheckpointFunction.forward, _checkpoint_without_reentrant        | [Checkpoint recompute on the NPU]              |
| random          | torch.random.fork_rng (adds device_type="npu")                   | module docstring                               |
| data_parallel   | torch._utils device discovery, nn.parallel.comm, parallel_apply  | [DataParallel on the NPU]                      |
| sharing         | share_memory_ (Tensor, storages), torch.multiprocessing reducers | [NPU memory is not shared between processes]   |
| cuda_amp        | torch.cuda.amp.custom_fwd / custom_bwd (NPU autocast)            | module docstring                               |
| object_collectives | distributed_c10d._get_pg_device (hccl groups stage on the NPU) | module docstring                               |
| testing         | torch.testing.assert_close (float64 NPU tensors on the host)     | module docstring                               |
| fsdp            | `torch` as FSDP's modules see it; compute device; clip_grad_norm_ | [FSDP on the NPU]                              |
| sync_batch_norm | SyncBatchNorm.forward (module and Function): two CUDA checks     | module docstring                               |
| dataloader      | DataLoader iterators: pinning without CUDA, the pin thread's device | module docstring                            |

Where only a line or two of a long torch function is CUDA-specific, the function is recompiled from
its own source with that text replaced (`_source.repaired`, Note [Repairing a torch function from
its source]) rather than copied.
"""
from torch_npu._patches import (checkpoint, cuda_amp, data_parallel, dataloader, fsdp, object_collectives, random,
                                sharing, sync_batch_norm, testing)

_ALL = (random, checkpoint, data_parallel, sharing, cuda_amp, object_collectives, testing, fsdp, sync_batch_norm,
        dataloader)


def install():
    for patch in _ALL:
        patch.install()
