"""FullyShardedDataParallel on NPUs over hccl, launched by torchrun: `fsdp_train.py CONFIG OUT_DIR`.

Trains 3 SGD steps of a small MLP, wrapped per layer (nested FSDP instances), on each rank's half of
every batch, starting from weights that differ on rank 1 (sync_module_states must fix them), then
clips the gradient norm, saves the full state dict, reloads it into a fresh FSDP model and checks the
outputs. Rank 0 writes the trained full state dict and its observations to OUT_DIR for the test,
which compares them with one process training on the whole batches on the CPU.
CONFIG: fp32 | fp16 (MixedPrecision fp16 params, reduce and buffers) | offload (CPUOffload).
"""
import functools
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.distributed.fsdp import CPUOffload, FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy
from torch.distributed.fsdp import StateDictType
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy

STEPS = 3
CLIP = 0.05  # max gradient norm: small enough to clip every step


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(8, 32), nn.Linear(32, 32), nn.Linear(32, 4)
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x))))) * self.scale


def batch(step, world):
    generator = torch.Generator().manual_seed(100 + step)
    return torch.randn(world * 6, 8, generator=generator), torch.randn(world * 6, 4, generator=generator)


def main(config, out_dir):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    device = torch.device("npu", int(os.environ["LOCAL_RANK"]))
    torch.npu.set_device(device)
    dist.init_process_group("hccl")
    torch.manual_seed(0 if rank == 0 else 1)  # rank 1 starts elsewhere: sync_module_states broadcasts rank 0's
    options = dict(sharding_strategy=ShardingStrategy.FULL_SHARD, sync_module_states=True, device_id=device,
                   auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=100))
    if config == "fp16":
        options["mixed_precision"] = MixedPrecision(param_dtype=torch.float16, reduce_dtype=torch.float16,
                                                    buffer_dtype=torch.float16)
    if config == "offload":
        options["cpu_offload"] = CPUOffload(offload_params=True)
    model = FSDP(Net().to(device), **options)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, output_dtypes = [], set()
    for step in range(STEPS):
        x, y = batch(step, world)
        out = model(x.chunk(world)[rank].to(device))
        output_dtypes.add(str(out.dtype))
        loss = (out.float() - y.chunk(world)[rank].to(device)).square().mean()
        optimizer.zero_grad()
        loss.backward()
        model.clip_grad_norm_(CLIP)  # torch 1.13 calls .cuda() here (Note [FSDP on the NPU])
        optimizer.step()
        losses.append(loss.item())
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        state = model.state_dict()
    default_state = model.state_dict()
    sharded_param_numel = sum(p.numel() for p in model.parameters())
    torch.manual_seed(5)
    reloaded = FSDP(Net().to(device), **options)
    with FSDP.state_dict_type(reloaded, StateDictType.FULL_STATE_DICT):
        reloaded.load_state_dict(state)
    probe = torch.randn(5, 8).to(device)
    with torch.no_grad():
        same_outputs = torch.equal(model(probe).cpu(), reloaded(probe).cpu())
    if rank == 0:
        torch.save({k: v.float().cpu() for k, v in state.items()}, os.path.join(out_dir, f"{config}.pt"))
        with open(os.path.join(out_dir, f"{config}.json"), "w") as f:
            json.dump({"losses": losses, "same_outputs_after_reload": same_outputs,
                       "default_state_dict_is_full": all(torch.equal(state[k].cpu(), default_state[k].cpu())
                                                         for k in state),
                       "compute_device": str(model.compute_device), "sharded_param_numel": sharded_param_numel,
                       "output_dtypes": sorted(output_dtypes),
                       "state_dtype": str(state["l1.weight"].dtype)}, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
