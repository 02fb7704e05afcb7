"""Every ProcessGroupHCCL collective x dtype x size against a CPU reference.

Each rank's input is a deterministic function of (rank, case), so every rank
computes the expected result of all ranks locally. Prints a JSON report
{"failures": [...], "cases": N}; failures name collective, dtype and size.
"""
import json
import os
import sys
import traceback

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
SIZES = [int(s) for s in os.environ.get("HCCL_TEST_SIZES", "0,1,1023,1048576").split(",")]
REDUCE_DTYPES = [torch.int8, torch.int32, torch.float16, torch.bfloat16, torch.float32]
MOVE_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
               torch.float32, torch.float64]
OPS = {"SUM": dist.ReduceOp.SUM, "PRODUCT": dist.ReduceOp.PRODUCT, "MIN": dist.ReduceOp.MIN,
       "MAX": dist.ReduceOp.MAX, "AVG": dist.ReduceOp.AVG}
DEV = torch.device(f"npu:{RANK}")

failures = []
cases = 0


def data(rank, n, dtype, salt):
    g = torch.Generator().manual_seed(7919 * salt + 104729 * rank + n)
    if dtype == torch.bool:
        return torch.rand(n, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.rand(n, generator=g) * 2 + 0.5).to(dtype)  # products of 4 stay small
    return torch.randint(-3, 4, (n,), generator=g).to(dtype)    # sums/products fit int8


def reference(op, stacked):
    if stacked.dtype == torch.bool:
        return stacked.any(0) if op in ("SUM", "MAX") else stacked.all(0)
    wide = stacked.double() if stacked.is_floating_point() else stacked.long()
    if op == "SUM":
        r = wide.sum(0)
    elif op == "AVG":
        r = wide.mean(0)
    elif op == "PRODUCT":
        r = wide.prod(0)
    elif op == "MIN":
        r = wide.min(0).values if wide.numel() else wide.sum(0)
    else:
        r = wide.max(0).values if wide.numel() else wide.sum(0)
    return r.to(stacked.dtype)


def check(name, actual, expected):
    global cases
    cases += 1
    try:
        # Reductions round once per step: a product over 4 ranks may be 2 units in the last place off.
        tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(expected.dtype, 1e-5)
        a = actual.cpu()
        assert a.dtype == expected.dtype, f"dtype {a.dtype} != {expected.dtype}"
        if expected.is_floating_point():
            torch.testing.assert_close(a.double(), expected.double(), rtol=tol, atol=tol)
        else:
            assert torch.equal(a, expected), f"values differ: {a.flatten()[:8]} vs {expected.flatten()[:8]}"
    except Exception as e:  # collect, keep going
        failures.append(f"{name}: {e}")


def run(name, fn):
    try:
        fn()
    except Exception:
        failures.append(f"{name}: raised\n{traceback.format_exc()}")


def all_reduce_cases():
    for dtype in REDUCE_DTYPES + [torch.bool]:
        for op in OPS:
            if op == "AVG" and not dtype.is_floating_point:
                continue
            for n in SIZES:
                name = f"all_reduce {op} {dtype} n={n}"
                inputs = [data(r, n, dtype, 1) for r in range(WORLD)]

                def case():
                    t = inputs[RANK].to(DEV)
                    dist.all_reduce(t, op=OPS[op])
                    check(name, t, reference(op, torch.stack(inputs)))
                run(name, case)


def reduce_cases():
    root = WORLD - 1
    for dtype in REDUCE_DTYPES:
        for op in ("SUM", "MAX"):
            for n in SIZES:
                name = f"reduce {op} {dtype} n={n}"
                inputs = [data(r, n, dtype, 2) for r in range(WORLD)]

                def case():
                    t = inputs[RANK].to(DEV)
                    dist.reduce(t, dst=root, op=OPS[op])
                    if RANK == root:
                        check(name, t, reference(op, torch.stack(inputs)))
                run(name, case)


def reduce_scatter_cases():
    for dtype in REDUCE_DTYPES:
        for n in SIZES:
            chunks = [[data(r, n, dtype, 30 + j) for j in range(WORLD)] for r in range(WORLD)]
            expected = reference("SUM", torch.stack([chunks[r][RANK] for r in range(WORLD)]))

            def list_case():
                out = torch.empty(n, dtype=dtype, device=DEV)
                dist.reduce_scatter(out, [c.to(DEV) for c in chunks[RANK]])
                check(f"reduce_scatter {dtype} n={n}", out, expected)

            def tensor_case():
                out = torch.empty(n, dtype=dtype, device=DEV)
                dist.reduce_scatter_tensor(out, torch.cat(chunks[RANK]).to(DEV))
                check(f"reduce_scatter_tensor {dtype} n={n}", out, expected)
            run(f"reduce_scatter {dtype} n={n}", list_case)
            run(f"reduce_scatter_tensor {dtype} n={n}", tensor_case)


def movement_cases():
    for dtype in MOVE_DTYPES:
        for n in SIZES:
            inputs = [data(r, n, dtype, 4) for r in range(WORLD)]
            root = 1 % WORLD

            def broadcast():
                t = inputs[RANK].to(DEV)
                dist.broadcast(t, src=root)
                check(f"broadcast {dtype} n={n}", t, inputs[root])

            def all_gather():
                outs = [torch.empty(n, dtype=dtype, device=DEV) for _ in range(WORLD)]
                dist.all_gather(outs, inputs[RANK].to(DEV))
                for r in range(WORLD):
                    check(f"all_gather {dtype} n={n} part {r}", outs[r], inputs[r])

            def all_gather_into_tensor():
                out = torch.empty(WORLD, n, dtype=dtype, device=DEV)
                dist.all_gather_into_tensor(out, inputs[RANK].to(DEV))
                check(f"all_gather_into_tensor {dtype} n={n}", out, torch.stack(inputs))

            def gather():
                dst = WORLD - 1
                outs = [torch.empty(n, dtype=dtype, device=DEV) for _ in range(WORLD)] if RANK == dst else None
                dist.gather(inputs[RANK].to(DEV), gather_list=outs, dst=dst)
                if RANK == dst:
                    for r in range(WORLD):
                        check(f"gather {dtype} n={n} part {r}", outs[r], inputs[r])

            def scatter():
                parts = [[data(r, n, dtype, 50 + j) for j in range(WORLD)] for r in range(WORLD)]
                out = torch.empty(n, dtype=dtype, device=DEV)
                dist.scatter(out, [p.to(DEV) for p in parts[0]] if RANK == 0 else None, src=0)
                check(f"scatter {dtype} n={n}", out, parts[0][RANK])

            def all_to_all_single_equal():
                parts = [[data(r, n, dtype, 60 + j) for j in range(WORLD)] for r in range(WORLD)]
                out = torch.empty(WORLD * n, dtype=dtype, device=DEV)
                dist.all_to_all_single(out, torch.cat(parts[RANK]).to(DEV))
                check(f"all_to_all_single {dtype} n={n}", out, torch.cat([parts[r][RANK] for r in range(WORLD)]))

            def all_to_all_single_split():
                # rank r sends (r + j) % 3 * n rows of width 1 to rank j
                sizes = [[((r + j) % 3) * max(n // 7, 1) if n else 0 for j in range(WORLD)] for r in range(WORLD)]
                parts = [[data(r, sizes[r][j], dtype, 70 + j) for j in range(WORLD)] for r in range(WORLD)]
                recv_sizes = [sizes[r][RANK] for r in range(WORLD)]
                out = torch.empty(sum(recv_sizes), dtype=dtype, device=DEV)
                dist.all_to_all_single(out, torch.cat(parts[RANK]).to(DEV), output_split_sizes=recv_sizes,
                                       input_split_sizes=sizes[RANK])
                check(f"all_to_all_single split {dtype} n={n}", out,
                      torch.cat([parts[r][RANK] for r in range(WORLD)]))

            def all_to_all_lists():
                parts = [[data(r, n, dtype, 80 + j) for j in range(WORLD)] for r in range(WORLD)]
                outs = [torch.empty(n, dtype=dtype, device=DEV) for _ in range(WORLD)]
                dist.all_to_all(outs, [p.to(DEV) for p in parts[RANK]])
                for r in range(WORLD):
                    check(f"all_to_all {dtype} n={n} part {r}", outs[r], parts[r][RANK])

            def point_to_point():
                # a ring exchange as one batch, then 0 -> 1 with plain send/recv
                right, left = (RANK + 1) % WORLD, (RANK - 1) % WORLD
                got = torch.empty(n, dtype=dtype, device=DEV)
                reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, inputs[RANK].to(DEV), right),
                                               dist.P2POp(dist.irecv, got, left)])
                for req in reqs:
                    req.wait()
                check(f"batch_isend_irecv {dtype} n={n}", got, inputs[left])
                if RANK == 0:
                    dist.send(inputs[0].to(DEV), dst=1)
                elif RANK == 1:
                    got = torch.empty(n, dtype=dtype, device=DEV)
                    dist.recv(got, src=0)
                    check(f"send/recv {dtype} n={n}", got, inputs[0])

            for fn in (broadcast, all_gather, all_gather_into_tensor, gather, scatter, all_to_all_single_equal,
                       all_to_all_single_split, all_to_all_lists, point_to_point):
                run(f"{fn.__name__} {dtype} n={n}", fn)


def async_cases():
    inputs = [data(r, 1023, torch.float32, 9) for r in range(WORLD)]
    t = inputs[RANK].to(DEV)
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future()
    work.wait()
    value = fut.wait()
    check("async all_reduce future", value[0], reference("SUM", torch.stack(inputs)))
    check("async all_reduce", t, reference("SUM", torch.stack(inputs)))
    global cases
    cases += 1
    if not work.is_completed():
        failures.append("async all_reduce: is_completed() is False after the future finished")
    dist.barrier()


torch.npu.set_device(DEV)
dist.init_process_group("hccl", init_method="env://", world_size=WORLD, rank=RANK)
for section in (all_reduce_cases, reduce_cases, reduce_scatter_cases, movement_cases, async_cases):
    run(section.__name__, section)
dist.barrier()
dist.destroy_process_group()
print(json.dumps({"rank": RANK, "cases": cases, "failures": failures[:40], "failed": len(failures)}))
sys.exit(0)
