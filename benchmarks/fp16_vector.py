"""Host throughput of the simulator's Vector ops in fp16 against fp32 (issue: fp16 at fp32 speed).

    /usr/bin/python3 benchmarks/fp16_vector.py [--numel 4194304] [--repeat 10]

For add, mul, relu and sum over `numel` elements on npu:0, prints elements per
second of host wall clock in fp32 and in fp16 and their ratio (fp16 / fp32;
the target is >= 0.8: an fp16 op should cost the host no more than the same
op in fp32). Each sample is a burst of calls followed by one synchronize; fp32 and
fp16 samples alternate and the best of each counts.
"""
import argparse
import time

import torch

import torch_npu  # noqa: F401

OPS = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "relu": lambda a, b: torch.relu(a),
    "sum": lambda a, b: a.sum(),
}


def best_elements_per_second(op, numel, repeat, burst=5):
    """{dtype: elements/s} of the best burst; fp32 and fp16 samples alternate, so that a slow phase of
    the host (another process, frequency changes) hits both dtypes alike."""
    operands = {}
    for dtype in (torch.float32, torch.float16):
        a = torch.randn(numel, device="npu").to(dtype)
        b = torch.randn(numel, device="npu").to(dtype)
        op(a, b)
        operands[dtype] = (a, b)
    torch.npu.synchronize()
    best = {dtype: float("inf") for dtype in operands}
    for _ in range(repeat):
        for dtype, (a, b) in operands.items():
            start = time.perf_counter()
            for _ in range(burst):
                op(a, b)
            torch.npu.synchronize()
            best[dtype] = min(best[dtype], (time.perf_counter() - start) / burst)
    return {dtype: numel / seconds for dtype, seconds in best.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numel", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    print(f"{'op':6s} {'fp32 Melem/s':>14s} {'fp16 Melem/s':>14s} {'fp16/fp32':>10s}  (target >= 0.8)")
    for name, op in OPS.items():
        rates = best_elements_per_second(op, args.numel, args.repeat)
        f32, f16 = rates[torch.float32], rates[torch.float16]
        print(f"{name:6s} {f32 / 1e6:14.1f} {f16 / 1e6:14.1f} {f16 / f32:10.2f}")


if __name__ == "__main__":
    main()
