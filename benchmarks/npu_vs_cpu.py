"""The same work on npu:0 and on PyTorch's CPU backend, in one process: speed ratios.

    /usr/bin/python3 benchmarks/npu_vs_cpu.py [--quick] [--json out.json]

ratio = CPU time / NPU host time (>= 1: the simulated NPU is as fast as the CPU
backend on this machine). NPU times are host wall clock including
synchronization; the simulated device time of the NPU work is printed too.
Cases and issue 6 targets: mm fp32 (>= 0.8), conv2d (>= 0.7), add (>= 0.8),
10 000 tiny ops with / without the task queue (NPU per-op overhead <= 2x CPU,
i.e. ratio >= 0.5), resnet18 training step (ratio >= 0.8, i.e. <= 1.25x CPU).
"""
import argparse
import json
import platform
import time

import torch
import torch.nn as nn
import torchvision

import torch_npu  # noqa: F401
from torch_npu import _C

NPU = torch.device("npu:0")


def timed(fn, sync, repeat):
    fn()
    sync()  # warm-up: first launches "compile"
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def simulated_us(fn):
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        fn()
        torch.npu.synchronize()
    return sum(r.duration_us for r in rec.records)


def case(rows, name, make, repeat, target):
    cpu_fn, npu_fn = make("cpu"), make(NPU)
    cpu = timed(cpu_fn, lambda: None, repeat)
    npu = timed(npu_fn, torch.npu.synchronize, repeat)
    sim = simulated_us(npu_fn)
    rows.append({"case": name, "cpu_ms": cpu * 1e3, "npu_ms": npu * 1e3, "ratio": cpu / npu, "target": target,
                 "npu_sim_ms": sim / 1e3})
    r = rows[-1]
    print(f"{name:<34}{r['cpu_ms']:>10.3f}{r['npu_ms']:>10.3f}{r['ratio']:>8.2f}{target:>8.2f}{r['npu_sim_ms']:>11.3f}",
          flush=True)


def mm(n, dtype):
    def make(dev):
        # torch 1.13 has no fp16 GEMM on the CPU: its peer for fp16 is its own fp32 GEMM
        dt = torch.float32 if dev == "cpu" else dtype
        a = torch.randn(n, n).to(dt).to(dev)
        b = torch.randn(n, n).to(dt).to(dev)
        return lambda: torch.mm(a, b)
    return make


def conv(n, c, h, k, cout, stride):
    def make(dev):
        x = torch.randn(n, c, h, h).to(dev)
        w = torch.randn(cout, c, k, k).to(dev)
        return lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=k // 2)
    return make


def add(n):
    def make(dev):
        a, b = torch.randn(n).to(dev), torch.randn(n).to(dev)
        return lambda: torch.add(a, b)
    return make


def tiny_ops(count):
    def make(dev):
        t = torch.ones(4).to(dev)

        def run():
            x = t
            for _ in range(count):
                x = x + 1
            return x
        return run
    return make


def resnet_step(batch, size):
    def make(dev):
        torch.manual_seed(0)
        model = torchvision.models.resnet18(num_classes=100).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(batch, 3, size, size).to(dev)
        y = torch.randint(0, 100, (batch,)).to(dev)
        loss_fn = nn.CrossEntropyLoss()

        def step():
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        return step
    return make


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no 224x224 step")
    ap.add_argument("--json")
    args = ap.parse_args()
    rep = 2 if args.quick else 5
    print(f"{platform.node()} {time.strftime('%Y-%m-%d')} torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads, NPU {torch.npu.get_device_name(0)}")
    print(f"{'case':<34}{'cpu ms':>10}{'npu ms':>10}{'ratio':>8}{'target':>8}{'npu sim ms':>11}")
    rows = []
    for n in (256, 1024, 2048):
        case(rows, f"mm {n} fp32", mm(n, torch.float32), rep, 0.8)
    for n in (256, 1024, 2048):
        case(rows, f"mm {n} fp16", mm(n, torch.float16), rep, 0.8)
    case(rows, "conv2d 8x64x56x56 k3 -> 64", conv(8, 64, 56, 3, 64, 1), rep, 0.7)
    case(rows, "conv2d 8x128x28x28 k3 -> 128", conv(8, 128, 28, 3, 128, 1), rep, 0.7)
    case(rows, "conv2d 8x3x224x224 k7 s2 -> 64", conv(8, 3, 224, 7, 64, 2), rep, 0.7)
    for n in (1 << 10, 1 << 20, 1 << 24):
        case(rows, f"add {n}", add(n), rep, 0.8)
    for queue in (True, False):
        _C._npu_setTaskQueueEnabled(queue)
        case(rows, f"10000 tiny adds (task queue {'on' if queue else 'off'})", tiny_ops(10000), rep, 0.5)
    _C._npu_setTaskQueueEnabled(True)
    for size in ((112,) if args.quick else (112, 224)):
        case(rows, f"resnet18 train step b8 {size}x{size}", resnet_step(8, size), max(1, rep // 2), 0.8)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
