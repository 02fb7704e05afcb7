"""all_reduce bus bandwidth: hccl on simulated NPUs vs gloo on CPU tensors, in one run.

    /usr/bin/python3 benchmarks/allreduce_busbw.py [--worlds 2,4] [--max-mb 64] [--json out.json]

For each world size the script starts that many processes twice (backend hccl
with npu tensors, backend gloo with CPU tensors of the same size) and times
all_reduce(SUM, float32) for 1 KB ... 64 MB. Bus bandwidth follows nccl-tests:
busbw = bytes / time x 2 (p - 1) / p. Host time is wall clock per call (after
warm-up, synchronized); for hccl the simulated device time per call (from the
per-op records) is printed too. Ratios are hccl / gloo host bus bandwidth.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

PYTHON = "/usr/bin/python3"


def worker(backend, sizes, iters):
    import torch
    import torch.distributed as dist
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if backend == "hccl":
        import torch_npu  # noqa: F401
        torch.npu.set_device(f"npu:{rank}")
        device = torch.device(f"npu:{rank}")
        sync = torch.npu.synchronize
    else:
        device, sync = torch.device("cpu"), (lambda: None)
    dist.init_process_group(backend, world_size=world, rank=rank)
    rows = []
    for nbytes in sizes:
        t = torch.ones(max(nbytes // 4, 1), dtype=torch.float32, device=device)
        n = max(2, iters if nbytes <= (1 << 20) else iters // 4)
        for _ in range(2):
            dist.all_reduce(t)
        sync()
        dist.barrier()
        sim_us = None
        if backend == "hccl":
            with torch.npu.op_records() as rec:
                start = time.perf_counter()
                for _ in range(n):
                    dist.all_reduce(t)
                sync()
                host = (time.perf_counter() - start) / n
            sims = [r.duration_us for r in rec.records if r.op_type == "HcclAllReduce"]
            sim_us = sum(sims) / len(sims) if sims else None
        else:
            start = time.perf_counter()
            for _ in range(n):
                dist.all_reduce(t)
            host = (time.perf_counter() - start) / n
        rows.append({"bytes": t.numel() * 4, "host_s": host, "sim_us": sim_us})
    dist.destroy_process_group()
    if rank == 0:
        print(json.dumps(rows))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(backend, world, sizes, iters):
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([PYTHON, __file__, "--worker", backend, "--sizes", ",".join(map(str, sizes)),
                                       "--iters", str(iters)], env=env, stdout=subprocess.PIPE, text=True, cwd="/tmp"))
    outs = [p.communicate(timeout=900)[0] for p in procs]
    if any(p.returncode for p in procs):
        sys.exit(f"{backend} world {world} failed")
    return json.loads(outs[0].strip().splitlines()[-1])


def busbw(nbytes, seconds, world):
    return nbytes / seconds * 2 * (world - 1) / world / 1e9


def measure(worlds, max_mb=64, iters=20, out=print):
    """Rows {world, bytes, hccl/gloo host bus bandwidth, ratio, simulated}; prints the tables."""
    sizes, s = [], 1024
    while s <= max_mb << 20:
        sizes.append(s)
        s *= 4
    report = []
    for world in worlds:
        hccl, gloo = run("hccl", world, sizes, iters), run("gloo", world, sizes, iters)
        out(f"\nall_reduce float32 SUM, {world} processes (bus bandwidth GB/s, nccl-tests convention)")
        out(f"{'size':>10} {'hccl host':>10} {'gloo host':>10} {'ratio':>7} {'hccl sim':>10} {'sim us':>9}")
        for h, g in zip(hccl, gloo):
            hb, gb = busbw(h["bytes"], h["host_s"], world), busbw(g["bytes"], g["host_s"], world)
            sb = busbw(h["bytes"], h["sim_us"] * 1e-6, world) if h["sim_us"] else float("nan")
            out(f"{h['bytes']:>10} {hb:>10.3f} {gb:>10.3f} {hb / gb:>7.2f} {sb:>10.2f} {h['sim_us'] or 0:>9.1f}")
            report.append({"world": world, "bytes": h["bytes"], "hccl_host_busbw_gbs": hb, "gloo_host_busbw_gbs": gb,
                           "ratio": hb / gb, "hccl_sim_busbw_gbs": sb, "hccl_sim_us": h["sim_us"]})
    return report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", default="2,4")
    ap.add_argument("--max-mb", type=int, default=64)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--worker")
    ap.add_argument("--sizes")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, [int(s) for s in args.sizes.split(",")], args.iters)
    report = measure([int(w) for w in args.worlds.split(",")], args.max_mb, args.iters)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
