"""torch_npu's fused matmul-communication ops on every rank of a hccl job.

Written the way torch_npu's examples call them: the communicator's name from
the default group's get_hccl_comm_name(rank). Every rank builds the same global
tensors (one seed) and takes its shard. Prints one JSON line: the largest
differences against the unfused NPU composition and the CPU, the ops' errors,
and the profiler's view of the pipeline.
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch_npu
from torch.distributed.distributed_c10d import _get_default_group

from scenarios import error_of

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
DEV = torch.device(f"npu:{RANK}")


def max_diff(a, b):
    return (a.detach().cpu().double() - b.detach().cpu().double()).abs().max().item() if a.numel() else 0.0


def shards(dtype, m, k, n):
    g = torch.Generator().manual_seed(1234)
    x = (torch.randn(m, k * WORLD, generator=g) / 8).to(dtype)
    w = (torch.randn(k * WORLD, n, generator=g) / 8).to(dtype)
    bias = (torch.randn(n, generator=g) / 8).to(dtype)
    return x, w, bias


def all_reduce_case(hcom, dtype, shape_3d=False):
    # Row-parallel linear: x and w split along k; the partial products are summed. Each rank adds its own
    # x3 before the sum (CANN's all_reduce(x1 @ x2 + bias + x3)). x2 is a transposed nn.Linear weight.
    x, w, bias = shards(dtype, 600, 256, 64)  # 600 rows: two tiles
    x1 = x[:, RANK * 256:(RANK + 1) * 256].contiguous().to(DEV)
    x2 = w[RANK * 256:(RANK + 1) * 256].t().contiguous().to(DEV).t()
    b = bias.to(DEV)
    x3 = torch.full((600, 64), 0.125 * (RANK + 1), dtype=dtype)
    if shape_3d:
        x1, x3 = x1.view(3, 200, 256), x3.view(3, 200, 64)
    out = torch_npu.npu_mm_all_reduce_base(x1, x2, hcom, reduce_op="sum", bias=b, x3=x3.to(DEV))
    unfused = torch.addmm(b, x1.reshape(-1, 256), x2).view(out.shape) + x3.to(DEV)
    dist.all_reduce(unfused)
    x3_sum = 0.125 * WORLD * (WORLD + 1) / 2
    cpu = (x.float() @ w.float() + WORLD * bias.float() + x3_sum).view(out.shape)
    return {"shape": list(out.shape), "vs_unfused": max_diff(out, unfused), "vs_cpu": max_diff(out, cpu)}


def all_gather_case(hcom, dtype, gather_output=True):
    x, w, _ = shards(dtype, 520 * WORLD, 256 // WORLD, 48)  # x: [520 W, 256], each rank 520 rows (two tiles)
    x1 = x[RANK * 520:(RANK + 1) * 520].to(DEV)
    x2 = w.to(DEV)
    out, gathered = torch_npu.npu_all_gather_base_mm(x1, x2, hcom, WORLD, gather_output=gather_output)
    res = {"shape": list(out.shape), "gathered_shape": list(gathered.shape),
           "vs_cpu": max_diff(out, x.float() @ w.float()),
           "vs_unfused": max_diff(out, torch.mm(x.to(DEV), x2))}
    if gather_output:
        res["gathered_exact"] = bool(torch.equal(gathered.cpu(), x))
    return res


def reduce_scatter_case(hcom, dtype):
    x, w, _ = shards(dtype, 528 * WORLD, 256, 40)  # each rank: all rows, its 256 columns of k; blocks of 528
    x1 = x[:, RANK * 256:(RANK + 1) * 256].contiguous().to(DEV)
    x2 = w[RANK * 256:(RANK + 1) * 256].to(DEV)
    out = torch_npu.npu_mm_reduce_scatter_base(x1, x2, hcom, WORLD, reduce_op="sum")
    partial = torch.mm(x1, x2)
    unfused = torch.empty(528, 40, dtype=dtype, device=DEV)
    dist.reduce_scatter(unfused, list(partial.chunk(WORLD)))
    cpu = (x.float() @ w.float())[RANK * 528:(RANK + 1) * 528]
    return {"shape": list(out.shape), "vs_unfused": max_diff(out, unfused), "vs_cpu": max_diff(out, cpu)}


def simulated_us(fn):
    torch.npu.synchronize()
    start = torch.npu.simulated_time_us()
    fn()
    torch.npu.synchronize()
    return torch.npu.simulated_time_us() - start


def pipeline_view(hcom):
    # A product that takes about as long as its all-reduce (which grows with the rank count): the case
    # the pipeline is for. Under the NPU profiler.
    k = 4096 * WORLD
    x1 = (torch.randn(1024, k) / 32).half().to(DEV)
    x2 = (torch.randn(k, 1024) / 32).half().to(DEV)
    fused = torch_npu.npu_mm_all_reduce_base(x1, x2, hcom)

    def unfused():
        y = torch.mm(x1, x2)
        dist.all_reduce(y)
        return y

    times = {"fused_us": simulated_us(lambda: torch_npu.npu_mm_all_reduce_base(x1, x2, hcom)),
             "unfused_us": simulated_us(unfused), **gather_pipeline(hcom)}
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        torch_npu.npu_mm_all_reduce_base(x1, x2, hcom)
        torch.npu.synchronize()
    trace = prof.npu_chrome_trace()["traceEvents"]
    rows = {e["tid"]: e["args"]["name"] for e in trace if e["ph"] == "M" and e["name"] == "thread_name"}
    ops = [e for e in trace if e.get("cat") == "npu_op"]
    mm = [(e["ts"], e["ts"] + e["dur"], rows[e["tid"]]) for e in ops if e["name"] == "MatMul"]
    ar = [(e["ts"], e["ts"] + e["dur"], rows[e["tid"]]) for e in ops if e["name"] == "HcclAllReduce"]
    overlap = sum(max(0.0, min(a1, b1) - max(a0, b0)) for a0, a1, _ in mm for b0, b1, _ in ar)
    return {**times, "vs_unfused": max_diff(fused, unfused()), "matmuls": len(mm), "allreduces": len(ar),
            "overlap_us": overlap,
            "matmul_us": [round(b - a, 2) for a, b, _ in mm], "allreduce_us": [round(b - a, 2) for a, b, _ in ar],
            "matmul_rows": sorted({r for *_, r in mm}), "allreduce_rows": sorted({r for *_, r in ar})}


def gather_pipeline(hcom):
    # npu_all_gather_base_mm against all_gather + mm: this rank's product and each tile's hide transfers.
    x1 = (torch.randn(1024, 2048 * WORLD) / 32).half().to(DEV)
    x2 = (torch.randn(2048 * WORLD, 1024) / 32).half().to(DEV)
    torch_npu.npu_all_gather_base_mm(x1, x2, hcom, WORLD)

    def unfused():
        gathered = torch.empty(1024 * WORLD, x1.shape[1], dtype=x1.dtype, device=DEV)
        dist._all_gather_base(gathered, x1)
        return torch.mm(gathered, x2)

    fused_us = simulated_us(lambda: torch_npu.npu_all_gather_base_mm(x1, x2, hcom, WORLD))
    return {"gather_fused_us": fused_us, "gather_unfused_us": simulated_us(unfused),
            "gather_vs_unfused": max_diff(torch_npu.npu_all_gather_base_mm(x1, x2, hcom, WORLD)[0], unfused())}


def main():
    torch.npu.set_device(DEV)
    dist.init_process_group("hccl", rank=RANK, world_size=WORLD)
    hcom = _get_default_group().get_hccl_comm_name(RANK)
    report = {"hcom": hcom, "cases": {}}
    for dtype in (torch.float16, torch.bfloat16):
        name = str(dtype).split(".")[1]
        report["cases"][f"all_reduce_{name}"] = all_reduce_case(hcom, dtype)
        report["cases"][f"all_reduce_3d_{name}"] = all_reduce_case(hcom, dtype, shape_3d=True)
        report["cases"][f"all_gather_{name}"] = all_gather_case(hcom, dtype)
        report["cases"][f"reduce_scatter_{name}"] = reduce_scatter_case(hcom, dtype)
    report["cases"]["all_gather_no_output"] = all_gather_case(hcom, torch.float16, gather_output=False)
    report["pipeline"] = pipeline_view(hcom)
    x = torch.ones(64, 256, dtype=torch.float16, device=DEV)
    report["wrong_world_size"] = error_of(lambda: torch_npu.npu_all_gather_base_mm(x, x.t(), hcom, WORLD + 1))
    report["unknown_hcom"] = error_of(lambda: torch_npu.npu_mm_all_reduce_base(x, x.t(), "nope"))
    report["cpu_x2"] = error_of(lambda: torch_npu.npu_mm_all_reduce_base(x, x.t().cpu(), hcom))
    report["bias_dtype"] = error_of(lambda: torch_npu.npu_mm_all_reduce_base(
        x, x.t(), hcom, bias=torch.ones(64, device=DEV)))
    report["rows_not_divisible"] = error_of(lambda: torch_npu.npu_mm_reduce_scatter_base(
        x[:WORLD * 8 + 1], x.t(), hcom, WORLD))
    # The group still works after rejected calls.
    t = torch.ones(4, device=DEV)
    dist.all_reduce(t)
    report["after"] = t.cpu().tolist()
    dist.destroy_process_group()
    report["after_destroy"] = error_of(lambda: torch_npu.npu_mm_all_reduce_base(x, x.t(), hcom))
    print(json.dumps({"rank": RANK, **report}), flush=True)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
