"""The porting guide's multi-device ImageNet script, on fake data, on simulated NPUs.

    /usr/bin/python3 examples/ddp_imagenet.py --arch resnet18 --device-list 0,1 \
        --dist-backend hccl --multiprocessing-distributed --world-size 1 --rank 0 \
        --batch-size 8 --steps 5

As in the guide: a device-list -> process map, MASTER_ADDR / MASTER_PORT set in
main(), one process per device started with mp.spawn, the global batch size
divided by the number of devices, `torch.npu.set_device(loc)`, and
DistributedDataParallel(model, device_ids=[args.gpu]) with --dist-backend hccl.
Each rank prints loss, images/s and simulated NPU time per step.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data
import torchvision
import torchvision.transforms as transforms

import torch_npu  # noqa: F401

parser = argparse.ArgumentParser(description="PyTorch ImageNet-style DDP training on simulated NPUs")
parser.add_argument("--arch", default="resnet18")
parser.add_argument("--batch-size", default=8, type=int, help="global batch size over all devices")
parser.add_argument("--image-size", default=64, type=int)
parser.add_argument("--steps", default=5, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--workers", default=0, type=int)
parser.add_argument("--world-size", default=1, type=int, help="number of nodes")
parser.add_argument("--rank", default=0, type=int, help="node rank")
parser.add_argument("--dist-url", default="tcp://127.0.0.1:29688", type=str)
parser.add_argument("--dist-backend", default="hccl", type=str)
parser.add_argument("--multiprocessing-distributed", action="store_true")
# npu modify begin (the guide's added arguments)
parser.add_argument("--device", default="npu", type=str, help="npu or gpu")
parser.add_argument("--addr", default="127.0.0.1", type=str, help="master addr")
parser.add_argument("--port", default="29688", type=str, help="master port")
parser.add_argument("--device-list", default="0,1", type=str, help="device id list")
# npu modify end


def device_id_to_process_device_map(device_list):
    devices = sorted(int(x) for x in device_list.split(","))
    return {process_id: device_id for process_id, device_id in enumerate(devices)}


def main():
    args = parser.parse_args()
    os.environ["MASTER_ADDR"] = args.addr
    os.environ["MASTER_PORT"] = args.port
    args.process_device_map = device_id_to_process_device_map(args.device_list)
    ngpus_per_node = len(args.process_device_map)
    if args.multiprocessing_distributed:
        args.world_size = ngpus_per_node * args.world_size
        mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))
    else:
        main_worker(0, ngpus_per_node, args)


def main_worker(gpu, ngpus_per_node, args):
    args.gpu = args.process_device_map[gpu]
    distributed = args.multiprocessing_distributed or args.world_size > 1
    if distributed:
        args.rank = args.rank * ngpus_per_node + gpu
        # as in the guide: no init_method for the NPU, MASTER_ADDR/PORT come from the environment
        dist.init_process_group(backend=args.dist_backend, world_size=args.world_size, rank=args.rank)
    model = torchvision.models.__dict__[args.arch](num_classes=100)
    loc = f"npu:{args.gpu}"
    torch.npu.set_device(loc)
    args.batch_size = int(args.batch_size / ngpus_per_node)
    model = model.to(loc)
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    criterion = nn.CrossEntropyLoss().to(loc)
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    dataset = torchvision.datasets.FakeData(size=args.batch_size * ngpus_per_node * args.steps,
                                            image_size=(3, args.image_size, args.image_size), num_classes=100,
                                            transform=transforms.ToTensor())
    sampler = torch.utils.data.distributed.DistributedSampler(dataset) if distributed else None
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=(sampler is None),
                                         num_workers=args.workers, pin_memory=False, sampler=sampler,
                                         drop_last=True)
    start_event, end_event = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    model.train()
    for step, (images, target) in enumerate(loader):
        tic = time.perf_counter()
        start_event.record()
        images = images.to(loc, non_blocking=True)
        target = target.to(torch.int32).to(loc, non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        end_event.record()
        torch.npu.synchronize()
        wall = time.perf_counter() - tic
        print(f"[rank {args.rank} {loc}] step {step} loss {loss.item():.4f} "
              f"{args.batch_size / wall:.1f} images/s, simulated NPU {start_event.elapsed_time(end_event):.3f} ms",
              flush=True)
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
