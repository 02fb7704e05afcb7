"""torch.npu.amp: automatic mixed precision on the NPU (mirrors torch.cuda.amp).

    with torch.npu.amp.autocast():            # matmuls/convs in fp16, fragile ops in fp32
        loss = model(x)
    scaler = torch.npu.amp.GradScaler()      # dynamic loss scaling
    scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()
"""
from torch_npu.npu.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_enabled
from torch_npu.npu.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler", "is_autocast_enabled"]
