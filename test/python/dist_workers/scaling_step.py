"""One data-parallel training setup, for the scaling prediction tests (test_scaling.py).

Run under torchrun (any --nnodes / --nproc_per_node, or one process with WORLD_SIZE=1): trains
STEPS steps of an MLP under DDP and records the last step with torch_npu.tools.scaling.record on
global rank 0 into OUT_DIR/step_<world>.json. Every rank computes the same per-device batch
(weak scaling), as the prediction assumes."""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn

import torch_npu  # noqa: F401
from torch_npu.tools import scaling

STEPS = 4


def main(out_dir):
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.npu.set_device(local_rank)
    dist.init_process_group("hccl")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 16)).npu()
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank], bucket_cap_mb=4)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 512).npu()
    y = torch.randint(0, 16, (64,)).npu()

    def step():
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        optimizer.step()

    for _ in range(STEPS - 1):
        step()
    path = os.path.join(out_dir, f"step_{dist.get_world_size()}.json") if dist.get_rank() == 0 else None
    with scaling.record(path):
        step()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
