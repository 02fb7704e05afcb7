"""Hand port of ../ddp_train.py to the NPU (hccl)."""
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.npu.set_device(rank)
    dist.init_process_group(backend="hccl", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).npu(rank)
    model = DDP(model, device_ids=[rank], output_device=rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(1)
    data, labels = torch.randn(3, 8, 16, generator=generator), torch.randint(0, 4, (3, 8), generator=generator)
    losses = []
    for step in range(3):
        x = data[step, rank * 4:(rank + 1) * 4].npu(rank)
        y = labels[step, rank * 4:(rank + 1) * 4].to(f"npu:{rank}")
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    weight = model.module[0].weight.detach().sum().item()
    dist.destroy_process_group()
    print(json.dumps({"rank": rank, "losses": losses, "weight_sum": round(weight, 5)}))


if __name__ == "__main__":
    main()
