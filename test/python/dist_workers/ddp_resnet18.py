"""DDP(resnet18, device_ids=[rank]) for 3 SGD steps; saves the parameters.

`ddp_resnet18.py <out.pt>`: with WORLD_SIZE=1 it trains without DDP on the
whole batch of 4 (the reference); with WORLD_SIZE=2 each rank takes its half.
Batch norm layers run in eval mode: their batch statistics would differ
between one batch of 4 and two batches of 2 by definition (SyncBatchNorm is
CUDA-only in torch 1.13), which is not what this test is about.
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
BATCH = 4
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})

torch.manual_seed(0)
model = torchvision.models.resnet18(num_classes=10)
images = torch.randn(3, BATCH, 3, 64, 64)
labels = torch.randint(0, 10, (3, BATCH))

torch.npu.set_device(f"npu:{RANK}")
model = model.npu()
for m in model.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.eval()
if WORLD > 1:
    dist.init_process_group(backend="hccl", world_size=WORLD, rank=RANK)
    model = DDP(model, device_ids=[RANK])
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss().npu()
per_rank = BATCH // WORLD
losses = []
for step in range(3):
    x = images[step, RANK * per_rank:(RANK + 1) * per_rank]  # CPU: DDP moves it to npu:RANK
    y = labels[step, RANK * per_rank:(RANK + 1) * per_rank].npu()
    optimizer.zero_grad()
    loss = criterion(model(x if WORLD > 1 else x.npu()), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
params = {k: v.detach().cpu() for k, v in (model.module if WORLD > 1 else model).state_dict().items()}
if RANK == 0:
    torch.save(params, sys.argv[1])
if WORLD > 1:
    dist.destroy_process_group()
print(json.dumps({"rank": RANK, "losses": losses}))
