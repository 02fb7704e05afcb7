"""Elastic training under torchrun --max-restarts (test_elastic.py).

Trains STEPS steps of a small MLP under DDP on 2+ ranks. After every step rank 0 appends
"<step> <loss>" to OUT/losses.txt and saves a checkpoint (model, optimizer, step) atomically; at
start every rank resumes from the checkpoint if there is one. With KILL_AT=<step>, rank 1 of the
first attempt (TORCHELASTIC_RESTART_COUNT=0) dies in the middle of that step (after its forward,
before the backward's all-reduce), as a crashed process would; torchrun then stops the other ranks
and restarts the job. Batches depend only on (step, rank), so an interrupted and an uninterrupted run
see the same data."""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

import torch_npu  # noqa: F401

STEPS = 6


def batch(step, rank):
    g = torch.Generator().manual_seed(1000 * step + rank)
    return torch.randn(16, 32, generator=g), torch.randint(0, 4, (16,), generator=g)


def main(out):
    rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    kill_at = int(os.environ.get("KILL_AT", "-1"))
    torch.npu.set_device(local_rank)
    dist.init_process_group("hccl")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 4)).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    checkpoint = os.path.join(out, "checkpoint.pt")
    start = 0
    if os.path.exists(checkpoint):
        state = torch.load(checkpoint, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"] + 1
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    for step in range(start, STEPS):
        x, y = batch(step, rank)
        loss = nn.functional.cross_entropy(ddp(x.npu()), y.npu())
        if step == kill_at and rank == 1 and attempt == 0:
            os._exit(17)  # dies mid-step: no backward, no all-reduce
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total = loss.detach().clone()
        dist.all_reduce(total)
        if rank == 0:
            with open(os.path.join(out, "losses.txt"), "a") as f:
                f.write(f"{step} {total.item() / dist.get_world_size():.8f} attempt={attempt}\n")
            tmp = checkpoint + ".tmp"
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, tmp)
            os.replace(tmp, checkpoint)
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
