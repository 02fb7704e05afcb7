"""RPC + DDP in the style of the RPC tutorials: a parameter server holds an EmbeddingBag through
RemoteModule, two trainers run a DDP Linear on their GPU over gloo, distributed autograd and
DistributedOptimizer (whose functional optimizers are TorchScript) update both."""
import json
import sys

import torch
import torch.distributed as dist
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
from torch.distributed.nn import RemoteModule
from torch.distributed.optim import DistributedOptimizer
from torch.distributed.rpc import RRef, TensorPipeRpcBackendOptions
from torch.nn.parallel import DistributedDataParallel as DDP


class Hybrid(torch.nn.Module):
    def __init__(self, embedding, device):
        super().__init__()
        self.embedding = embedding
        self.fc = DDP(torch.nn.Linear(8, 4).cuda(device), device_ids=[device])
        self.device = device

    def forward(self, indices, offsets):
        return self.fc(self.embedding.forward(indices, offsets).cuda(self.device))


def train(embedding, rank):
    torch.manual_seed(rank)
    model = Hybrid(embedding, rank)
    params = model.embedding.remote_parameters() + [RRef(p) for p in model.fc.parameters()]
    optimizer = DistributedOptimizer(torch.optim.SGD, params, lr=0.05)
    losses = []
    for _ in range(3):
        indices, offsets = torch.randint(0, 20, (12,)), torch.tensor([0, 4, 8])
        target = torch.randint(0, 4, (3,)).cuda(rank)
        with dist_autograd.context() as context:
            loss = torch.nn.functional.cross_entropy(model(indices, offsets), target)
            dist_autograd.backward(context, [loss])
            optimizer.step(context)
        losses.append(loss.item())
    return {"device": str(next(model.fc.parameters()).device), "losses": losses,
            "fc_weight_sum": round(model.fc.module.weight.sum().item(), 5)}


def worker(rank, world, port, queue):
    options = TensorPipeRpcBackendOptions(init_method=f"tcp://localhost:{port}")
    if rank == 2:
        rpc.init_rpc("master", rank=rank, world_size=world, rpc_backend_options=options)
        embedding = RemoteModule("ps", torch.nn.EmbeddingBag, args=(20, 8), kwargs={"mode": "sum"})
        futures = [rpc.rpc_async(f"trainer{r}", train, args=(embedding, r)) for r in (0, 1)]
        queue.put([f.wait() for f in futures])
    elif rank <= 1:
        dist.init_process_group("gloo", rank=rank, world_size=2, init_method=f"tcp://localhost:{int(port) + 1}")
        rpc.init_rpc(f"trainer{rank}", rank=rank, world_size=world, rpc_backend_options=options)
    else:
        rpc.init_rpc("ps", rank=rank, world_size=world, rpc_backend_options=options)
    rpc.shutdown()


if __name__ == "__main__":
    queue = mp.get_context("spawn").SimpleQueue()
    mp.spawn(worker, args=(4, sys.argv[1] if len(sys.argv) > 1 else "29501", queue), nprocs=4)
    print(json.dumps({"trainers": queue.get()}))
