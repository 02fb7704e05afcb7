"""One optimizer step, fused (torch_npu.optim) against the per-tensor loop (torch.optim, foreach=False).

    /usr/bin/python3 benchmarks/fused_optimizers.py [--model resnet50|mlp] [--repeat 3]

For each fused optimizer with a torch.optim counterpart, prints the kernel launches, the simulated
device time (910A preset, sum over the step's op records) and the host wall clock of one step, for
both, and the ratios (targets: at least 3x fewer launches, lower simulated time). NpuFusedLamb and
NpuFusedBertAdam, which have no torch.optim counterpart, are printed alone.
"""
import argparse
import time

import torch
import torchvision

import torch_npu

PAIRS = [
    ("SGD", lambda p: torch_npu.optim.NpuFusedSGD(p, lr=0.1, momentum=0.9, weight_decay=1e-4),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=False)),
    ("Adam", lambda p: torch_npu.optim.NpuFusedAdam(p, lr=1e-3),
     lambda p: torch.optim.Adam(p, lr=1e-3, foreach=False)),
    ("AdamW", lambda p: torch_npu.optim.NpuFusedAdamW(p, lr=1e-3),
     lambda p: torch.optim.AdamW(p, lr=1e-3, foreach=False)),
    ("RMSprop", lambda p: torch_npu.optim.NpuFusedRMSprop(p, lr=1e-3, momentum=0.9),
     lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9, foreach=False)),
    ("Adadelta", lambda p: torch_npu.optim.NpuFusedAdadelta(p),
     lambda p: torch.optim.Adadelta(p, foreach=False)),
    ("Lamb", lambda p: torch_npu.optim.NpuFusedLamb(p, lr=1e-3), None),
    ("BertAdam", lambda p: torch_npu.optim.NpuFusedBertAdam(p, lr=1e-3), None),
]


def make_model(name):
    torch.manual_seed(0)
    if name == "resnet50":
        return torchvision.models.resnet50(num_classes=100).npu(), torch.randn(2, 3, 64, 64)
    layers = []
    for _ in range(8):
        layers += [torch.nn.Linear(512, 512), torch.nn.LayerNorm(512), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).npu(), torch.randn(16, 512)


def measure(model_name, factory, repeat):
    """(launches, simulated us, host ms) of the best of `repeat` steps after a warm-up step."""
    model, x = make_model(model_name)
    optimizer = factory(model.parameters())
    x = x.npu()
    model(x).float().mean().backward()
    optimizer.step()  # warm-up: state, combined buffers, compiled plans
    best = None
    for _ in range(repeat):
        torch.npu.synchronize()
        with torch.npu.op_records() as rec:
            start = time.perf_counter()
            optimizer.step()
            torch.npu.synchronize()
            host_ms = (time.perf_counter() - start) * 1e3
        sample = (len(rec.records), sum(r.duration_us for r in rec.records), host_ms)
        best = sample if best is None or sample[2] < best[2] else best
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["resnet50", "mlp"], default="resnet50")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    torch.npu.set_device("npu:0")
    print(f"model {args.model}, one step; launches / simulated us / host ms")
    print(f"{'optimizer':10s} {'fused':>22s} {'torch.optim loop':>24s} {'launch ratio':>13s} {'sim ratio':>10s}")
    for name, fused, loop in PAIRS:
        f = measure(args.model, fused, args.repeat)
        cells = f"{f[0]:6d} {f[1]:8.1f} {f[2]:6.1f}"
        if loop is None:
            print(f"{name:10s} {cells:>22s} {'(no counterpart)':>24s}")
            continue
        r = measure(args.model, loop, args.repeat)
        print(f"{name:10s} {cells:>22s} {r[0]:8d} {r[1]:8.1f} {r[2]:6.1f} {r[0] / f[0]:13.1f} {r[1] / f[1]:10.2f}")
    print("targets: launch ratio >= 3, sim ratio > 1")


if __name__ == "__main__":
    main()
