"""torch.cuda.amp.custom_fwd / custom_bwd honour NPU autocast on a build without CUDA.

Library code keeps an autograd Function out of mixed precision with
`@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)` and runs its backward under the forward's
autocast state with `@torch.cuda.amp.custom_bwd`. Both read only CUDA autocast, which can never be
on in a build without CUDA: they pass everything through, so under torch.npu.amp.autocast such a
Function silently computes in float16. torch_npu points them at torch.npu.amp's decorators, which
do for NPU autocast what torch's do for CUDA's (they are torch's behaviour whenever NPU autocast is
off). A decorator is applied when the library is imported: import torch_npu first, as the porting
guide says.
"""
import torch
import torch.cuda.amp.autocast_mode as _cuda_autocast_mode

from torch_npu._patches.registry import replace
from torch_npu.npu.amp import autocast_mode as _npu_autocast_mode


def install():
    if torch.cuda.is_available():
        return  # real CUDA autocast can be on: keep torch's decorators
    for module in (torch.cuda.amp, _cuda_autocast_mode):
        replace(f"{module.__name__}.custom_fwd", _npu_autocast_mode.custom_fwd)
        replace(f"{module.__name__}.custom_bwd", _npu_autocast_mode.custom_bwd)
