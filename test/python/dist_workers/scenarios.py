"""Small ProcessGroupHCCL scenarios, one per test: `scenarios.py <name>`.

Every scenario prints one JSON line (its observations) and exits 0 unless it
crashed; the pytest side asserts on the JSON.
"""
import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401

RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
DEV = torch.device(f"npu:{RANK % 8}")


def init(seconds=60):
    torch.npu.set_device(DEV)
    dist.init_process_group("hccl", world_size=WORLD, rank=RANK, timeout=datetime.timedelta(seconds=seconds))


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - reported to the test
        return f"{type(e).__name__}: {e}"
    return None


def bad_inputs():
    init()
    out = {"backend": dist.get_backend()}
    out["cpu_tensor"] = error_of(lambda: dist.all_reduce(torch.ones(4)))
    out["int64_reduce"] = error_of(lambda: dist.all_reduce(torch.ones(4, dtype=torch.int64, device=DEV)))
    out["bad_root"] = error_of(lambda: dist.broadcast(torch.ones(4, device=DEV), src=WORLD + 3))
    out["bitwise_op"] = error_of(lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32, device=DEV),
                                                         op=dist.ReduceOp.BAND))
    t = torch.ones(4, device=DEV)
    dist.all_reduce(t)  # the group still works after rejected calls
    out["after"] = t.cpu().tolist()
    dist.destroy_process_group()
    return out


def mismatch():
    init(seconds=30)
    start = time.monotonic()
    t = torch.ones(1024, device=DEV)
    if RANK == 0:
        err = error_of(lambda: (dist.all_reduce(t), t.cpu()))
    else:
        err = error_of(lambda: (dist.broadcast(t, src=0), t.cpu()))
    return {"error": err, "seconds": time.monotonic() - start}


def killed_rank():
    timeout = float(os.environ.get("SCENARIO_TIMEOUT", "10"))
    init(seconds=timeout)
    t = torch.ones(1 << 16, device=DEV)
    dist.all_reduce(t)
    t.cpu()
    if RANK == WORLD - 1:
        os._exit(17)  # dies without a word, like a killed process
    start = time.monotonic()
    errors = []
    for _ in range(50):
        e = error_of(lambda: (dist.all_reduce(t), t.cpu()))
        if e:
            errors.append(e)
            break
    return {"error": errors[0] if errors else None, "seconds": time.monotonic() - start}


def silent_peer():
    """The last rank stays alive but never joins the collective: a timeout."""
    init(seconds=float(os.environ.get("SCENARIO_TIMEOUT", "5")))
    t = torch.ones(16, device=DEV)
    dist.all_reduce(t)
    t.cpu()
    if RANK == WORLD - 1:
        time.sleep(float(os.environ.get("SCENARIO_SLEEP", "15")))
        return {"slept": True}
    start = time.monotonic()
    err = error_of(lambda: (dist.all_reduce(t), t.cpu()))
    later = error_of(lambda: dist.all_reduce(t))
    return {"error": err, "later": later, "seconds": time.monotonic() - start}


def blocking_wait():
    init()
    t = torch.full((1000,), float(RANK + 1), device=DEV)
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    done = work.is_completed()  # blocking wait: the device has finished
    return {"completed_after_wait": done, "value": t[0].item()}


def reinit():
    values = []
    base_port = int(os.environ["MASTER_PORT"])
    for i in range(2):
        os.environ["MASTER_PORT"] = str(base_port + i)  # a fresh TCPStore: the old one may still be closing
        init()
        t = torch.full((8,), float(RANK + i), device=DEV)
        dist.all_reduce(t)
        values.append(t[0].item())
        dist.barrier()
        dist.destroy_process_group()
    return {"values": values}


def op_records():
    init()
    t = torch.ones(1 << 20, device=DEV)
    dist.all_reduce(t)
    torch.npu.synchronize()
    with torch.npu.op_records() as recs:
        dist.all_reduce(t)
        dist.broadcast(t, src=0)
        torch.npu.synchronize()
    rows = [{"op_type": r.op_type, "duration_us": r.duration_us, "core_type": r.core_type}
            for r in recs.records if r.op_type.startswith("Hccl")]
    return {"records": rows}


def profile_ddp():
    # A DDP step under the NPU profiler: its trace has the compute stream and the communication stream.
    init()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 64).to(DEV), device_ids=[RANK])
    x = torch.randn(8, 64, device=DEV)
    model(x).sum().backward()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        model(x).sum().backward()
    trace = prof.npu_chrome_trace()["traceEvents"]
    rows = {e["tid"]: e["args"]["name"] for e in trace if e["ph"] == "M" and e["name"] == "thread_name"}
    tasks = [(e["name"], rows[e["tid"]]) for e in trace if e.get("cat") == "npu_op"]
    return {"rows": sorted(rows.values()), "allreduce_rows": sorted({r for n, r in tasks if n == "HcclAllReduce"}),
            "compute_rows": sorted({r for n, r in tasks if n == "MatMul"}),
            "npu_total_us": prof.npu_time_total_us(),
            "records_us": sum(r.duration_us for r in prof.npu_records)}


def group_size():
    init()
    err = error_of(lambda: dist.all_reduce(torch.ones(4, device=DEV)))
    # Rank 0 serves the TCPStore: it leaves last, once every rank has its answer
    # (the others only report in and never touch the store again).
    store = dist.distributed_c10d._get_default_store()
    store.add("group_size_done", 1)
    deadline = time.monotonic() + 60
    while RANK == 0 and store.add("group_size_done", 0) < WORLD and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"error": err}


def netns():
    # init_method=tcp:// across two network namespaces
    torch.npu.set_device(DEV)
    dist.init_process_group("hccl", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
                            world_size=WORLD, rank=RANK, timeout=datetime.timedelta(seconds=60))
    t = torch.arange(1000, dtype=torch.float32, device=DEV) * (RANK + 1)
    dist.all_reduce(t)
    b = torch.full((77,), float(RANK), device=DEV)
    dist.broadcast(b, src=1)
    out = {"sum_ok": bool(torch.equal(t.cpu(), torch.arange(1000, dtype=torch.float32) * sum(range(1, WORLD + 1)))),
           "bcast": b[0].item()}
    dist.destroy_process_group()
    return out


def file_init():
    torch.npu.set_device(DEV)
    dist.init_process_group("hccl", init_method=f"file://{os.environ['SCENARIO_FILE']}", world_size=WORLD,
                            rank=RANK)
    t = torch.full((5,), float(RANK + 1), device=DEV)
    dist.all_reduce(t)
    return {"value": t[0].item()}


def object_collectives():
    """all_gather_object / broadcast_object_list / gather_object / scatter_object_list on hccl."""
    init()
    gathered = [None] * WORLD
    dist.all_gather_object(gathered, {"rank": RANK, "name": f"r{RANK}"})
    objects = [{"from": 0, "list": [1, 2, 3]}] if RANK == 0 else [None]
    dist.broadcast_object_list(objects, src=0)
    into = [None] * WORLD if RANK == 0 else None
    dist.gather_object(("g", RANK), into, dst=0)
    scattered = [None]
    dist.scatter_object_list(scattered, [f"s{r}" for r in range(WORLD)] if RANK == 0 else None, src=0)
    return {"gathered": gathered, "broadcast": objects[0], "gather": into, "scatter": scattered[0]}


def gloo_with_npu_tensors():
    """gloo stages NPU tensors through host memory (Note [gloo with NPU tensors]); DDP on gloo trains."""
    torch.npu.set_device(DEV)
    dist.init_process_group("gloo", world_size=WORLD, rank=RANK)
    out = {"group_class": type(dist.distributed_c10d._get_default_group()).__name__}
    t = torch.full((5,), float(RANK + 1), device=DEV)
    dist.all_reduce(t)
    out["all_reduce"], out["device"] = t.cpu().tolist(), str(t.device)
    b = torch.full((3,), float(RANK), device=DEV)
    dist.broadcast(b, src=1)
    out["broadcast"] = b.cpu().tolist()
    gathered = [torch.zeros(2, device=DEV) for _ in range(WORLD)]
    dist.all_gather(gathered, torch.full((2,), float(RANK), device=DEV))
    out["all_gather"] = [g.cpu().tolist() for g in gathered]
    received = torch.zeros(3, device=DEV)
    if RANK == 0:
        dist.send(torch.arange(3.0, device=DEV), dst=1)
    else:
        out["recv_from"] = dist.recv(received)
    out["recv"] = received.cpu().tolist()
    cpu = torch.ones(2)
    dist.all_reduce(cpu)
    out["cpu_all_reduce"] = cpu.tolist()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(6, 3).to(DEV), device_ids=[DEV.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    generator = torch.Generator().manual_seed(RANK)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(4, 6, generator=generator).to(DEV)).square().sum().backward()
        optimizer.step()
    out["ddp_weight_sum"] = model.module.weight.detach().sum().item()
    dist.destroy_process_group()
    return out


def sync_batch_norm():
    """nn.SyncBatchNorm under DDP on hccl: 2 ranks with batches of 4 and 2 train as one batch norm over 6."""
    init()
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})  # compared with the CPU's fp32
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                              torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 2))
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.SyncBatchNorm.convert_sync_batchnorm(net).to(DEV), device_ids=[DEV.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(1)
    for _ in range(2):
        x = torch.randn(6, 3, 6, 6, generator=generator)
        part = x[:4] if RANK == 0 else x[4:]
        optimizer.zero_grad()
        # sum over the whole batch / 6: each rank's share, DDP averages over 2 ranks (hence * 2)
        (model(part.to(DEV)).square().sum() * 2 / 6).backward()
        optimizer.step()
    bn = model.module[1]
    return {"weight": model.module[0].weight.detach().cpu().flatten().tolist(),
            "running_mean": bn.running_mean.cpu().tolist(), "running_var": bn.running_var.cpu().tolist(),
            "type": type(bn).__name__}


if __name__ == "__main__":
    result = globals()[sys.argv[1]]()
    print(json.dumps({"rank": RANK, **(result or {})}), flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip teardown of groups left open on purpose (failed peers)
