"""torch_npu.optim: fused optimizers whose step is one kernel per combined buffer.

    optimizer = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-3)

See Note [Combined parameters] in torch_npu/optim/combined.py.
"""
from torch_npu.optim.fused_adadelta import NpuFusedAdadelta
from torch_npu.optim.fused_adam import NpuFusedAdam, NpuFusedAdamW
from torch_npu.optim.fused_bert_adam import NpuFusedBertAdam
from torch_npu.optim.fused_lamb import NpuFusedLamb
from torch_npu.optim.fused_rmsprop import NpuFusedRMSprop
from torch_npu.optim.fused_sgd import NpuFusedSGD

__all__ = ["NpuFusedSGD", "NpuFusedAdam", "NpuFusedAdamW", "NpuFusedLamb", "NpuFusedRMSprop", "NpuFusedAdadelta",
           "NpuFusedBertAdam"]
