"""DDP over NCCL with torch.multiprocessing.spawn, one process per GPU, in the style of the DDP
tutorials: the optimizer is built before the model moves to its GPU, and the script itself is
started with plain `python3` (so the children must be redirected by the launcher)."""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank, world, port, queue):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "localhost", port
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    model = nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # before .to(rank), as the tutorials do
    model = DDP(model.to(rank), device_ids=[rank])
    generator = torch.Generator().manual_seed(1)
    data, target = torch.randn(3, 8, 20, generator=generator), torch.randn(3, 8, 1, generator=generator)
    for step in range(3):
        optimizer.zero_grad()
        x, y = data[step, rank::world].to(rank), target[step, rank::world].to(rank)
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    queue.put({"rank": rank, "device": str(next(model.parameters()).device),
               "weight_sum": round(model.module.weight.detach().sum().item(), 5)})
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else torch.cuda.device_count()
    queue = mp.get_context("spawn").SimpleQueue()
    mp.spawn(train, args=(world, sys.argv[2] if len(sys.argv) > 2 else "12355", queue), nprocs=world)
    results = sorted((queue.get() for _ in range(world)), key=lambda r: r["rank"])
    print(json.dumps({"ranks": results}))
