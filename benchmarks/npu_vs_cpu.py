"""The same work on npu:0 and on PyTorch's CPU backend, in one process: speed ratios.

    /usr/bin/python3 benchmarks/npu_vs_cpu.py [--quick] [--json out.json]

ratio = CPU time / NPU host time (>= 1: the simulated NPU is as fast as the CPU
backend on this machine). NPU times are host wall clock: a timed sample is a
burst of back-to-back calls followed by one torch.npu.synchronize() (the
steady state of an asynchronous device), divided by the number of calls; the
CPU backend is timed the same way. Note [Interleaved rounds]: the two sides are
sampled round by round (CPU then NPU, NPU then CPU, ...), each round gives one
ratio, and a row reports the median of its rounds' ratios with their spread
(max / min - 1), so that a slow spell of the machine lands on both sides of a
round instead of on one side of the row. The simulated device time of one NPU call
is printed too. Memory: the caching allocator's peak reserved bytes for a
resnet18 training step against the CPU backend's peak bytes for the same step
(live parameters, gradients, optimizer state and inputs plus the step's peak
of allocations, from the profiler's memory events), and the reserved bytes
after 1 and after 100 steps.
Cases and issue 6 targets: mm fp32 (>= 0.8), conv2d (>= 0.7), add (>= 0.8),
10 000 tiny ops with / without the task queue (NPU per-op overhead <= 2x CPU,
i.e. ratio >= 0.5), resnet18 training step (ratio >= 0.8, i.e. <= 1.25x CPU).
Issue 16 added fp16 conv2d (>= 0.7), an LSTM and a transformer language-model
training step (>= 0.8) and the all_reduce bus bandwidth table of
allreduce_busbw.py (hccl >= gloo from 64 KB to 64 MB, 2 and 4 processes).
Issue 38 added 3-D convolution (>= 0.7), torchvision's r3d_18 video training step (>= 0.8), 1-element adds
eager and replayed from an NPU graph, and (full runs only) ResNet-50 fp32 / apex O2, BERT-base fp32 / autocast
and torchvision's Faster R-CNN training steps (>= 0.8; the mixed-precision steps no slower than fp32).
"""
import argparse
import json
import os
import platform
import time

import torch
import torch.nn as nn
import torchvision

import torch_npu  # noqa: F401
from torch_npu import _C

NPU = torch.device("npu:0")


def warm_up(fn, sync):
    """Per-call seconds of one call after warming up; see Note [Warm-up before timing]."""
    # Note [Warm-up before timing]: the first calls are not the steady state on either side (the NPU
    # "compiles" its op plans; the CPU backend's first training steps of a model run at up to 3-6x their
    # steady time while its allocator and thread pools warm up). Warm up for 3 calls and 0.3 s.
    warm_start, warm_calls = time.perf_counter(), 0
    while warm_calls < 3 or time.perf_counter() - warm_start < 0.3:
        fn()
        sync()
        warm_calls += 1
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def burst(fn, sync, calls, clock=time.perf_counter):
    """Per-call seconds of `calls` back-to-back calls and one sync."""
    start = clock()
    for _ in range(calls):
        fn()
    sync()
    return (clock() - start) / calls


def median(values):
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def interleaved(cpu_fn, npu_fn, npu_sync, rounds, sample=burst):
    """Note [Interleaved rounds]: (median CPU s, median NPU s, median ratio, spread) over `rounds` rounds."""
    calls = {}
    for side, fn, sync in (("cpu", cpu_fn, lambda: None), ("npu", npu_fn, npu_sync)):
        once = warm_up(fn, sync)
        calls[side] = max(1, min(200, int(0.02 / max(once, 1e-9))))  # bursts of >= ~20 ms
    cpu, npu, ratios = [], [], []
    for r in range(rounds):
        if r % 2 == 0:
            c = sample(cpu_fn, lambda: None, calls["cpu"])
            n = sample(npu_fn, npu_sync, calls["npu"])
        else:
            n = sample(npu_fn, npu_sync, calls["npu"])
            c = sample(cpu_fn, lambda: None, calls["cpu"])
        cpu.append(c)
        npu.append(n)
        ratios.append(c / n)
    return median(cpu), median(npu), median(ratios), max(ratios) / min(ratios) - 1


def simulated_us(fn):
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        fn()
        torch.npu.synchronize()
    return sum(r.duration_us for r in rec.records)


def case(rows, name, make, rounds, target):
    cpu_fn, npu_fn = make("cpu"), make(NPU)
    cpu, npu, ratio, spread = interleaved(cpu_fn, npu_fn, torch.npu.synchronize, rounds)
    sim = simulated_us(npu_fn)
    rows.append({"case": name, "cpu_ms": cpu * 1e3, "npu_ms": npu * 1e3, "ratio": ratio, "spread": spread,
                 "rounds": rounds, "target": target, "met": ratio >= target, "npu_sim_ms": sim / 1e3})
    r = rows[-1]
    print(f"{name:<38}{r['cpu_ms']:>10.3f}{r['npu_ms']:>10.3f}{ratio:>8.2f}{spread:>8.0%}{target:>8.2f}"
          f"{'' if r['met'] else '  gap':<6}{r['npu_sim_ms']:>11.3f}", flush=True)


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


def conv_fp16(n, c, h, k, cout, stride):
    def make(dev):
        # torch 1.13 has no fp16 convolution on the CPU: its peer is its own fp32 one
        dt = torch.float32 if dev == "cpu" else torch.float16
        x = torch.randn(n, c, h, h).to(dt).to(dev)
        w = torch.randn(cout, c, k, k).to(dt).to(dev)
        return lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=k // 2)
    return make


def conv3d(n, c, d, h, k, cout):
    def make(dev):
        x = torch.randn(n, c, d, h, h).to(dev)
        w = torch.randn(cout, c, k, k, k).to(dev)
        return lambda: torch.nn.functional.conv3d(x, w, padding=k // 2)
    return make


def video_step(batch, frames, size):
    def make(dev):
        torch.manual_seed(0)
        model = torchvision.models.video.r3d_18(num_classes=10).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(batch, 3, frames, size, size).to(dev)
        y = torch.randint(0, 10, (batch,)).to(dev)

        def step():
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        return step
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


def one_element_adds(count, graphed=False):
    """`count` in-place adds to a 1-element tensor; on the NPU with graphed=True, the same loop captured once
    in an NPU graph and replayed (the CPU backend has no graphs: its peer is its eager loop)."""
    def make(dev):
        x = torch.zeros(1).to(dev)

        def run():
            for _ in range(count):
                x.add_(1)
        if not graphed or dev == "cpu":
            return run
        graph = torch.npu.NPUGraph()
        with torch.npu.graph(graph):
            run()
        return graph.replay
    return make


def resnet_setup(dev, batch, size):
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
    return model, opt, (x, y), step


def resnet_step(batch, size):
    return lambda dev: resnet_setup(dev, batch, size)[3]


def resnet50_step(batch, size, mixed):
    """A ResNet-50 training step; on the NPU with mixed=True, apex O2 as the porting guide sets it up (fp16
    model, fp32 master weights, static loss scale 128, combined gradients). The CPU peer is always fp32."""
    def make(dev):
        torch.manual_seed(0)
        model = torchvision.models.resnet50(num_classes=100).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        if mixed and dev != "cpu":
            from apex import amp
            model, opt = amp.initialize(model, opt, opt_level="O2", loss_scale=128.0, combine_grad=True,
                                        verbosity=0)
        x = torch.randn(batch, 3, size, size).to(dev)
        y = torch.randint(0, 100, (batch,)).to(dev)

        def step():
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            if mixed and dev != "cpu":
                with amp.scale_loss(loss, opt) as scaled:
                    scaled.backward()
            else:
                loss.backward()
            opt.step()
        return step
    return make


def bert_base_step(batch, seq, mixed, vocab=30522):
    """A BERT-base-sized encoder (12 layers, width 768, 12 heads, FFN 3072, GELU) with a masked-LM head,
    one training step; on the NPU with mixed=True, under torch.npu.amp.autocast with a GradScaler."""
    def make(dev):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu", batch_first=True)
        model = nn.ModuleDict({"emb": nn.Embedding(vocab, 768), "enc": nn.TransformerEncoder(layer, 12),
                               "head": nn.Linear(768, vocab)}).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randint(0, vocab, (batch, seq)).to(dev), torch.randint(0, vocab, (batch, seq)).to(dev)
        on_npu = mixed and dev != "cpu"
        scaler = torch.npu.amp.GradScaler(enabled=on_npu)

        def step():
            opt.zero_grad()
            with torch.npu.amp.autocast(enabled=on_npu):
                logits = model["head"](model["enc"](model["emb"](x)))
                loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), y.flatten())
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return step
    return make


def detection_step(batch, size, classes=5):
    """torchvision's Faster R-CNN (ResNet-50 FPN backbone, untrained) in training mode: RPN and ROI heads with
    their losses, two boxes per image, SGD. Images are resized to `size` by the model's own transform."""
    def make(dev):
        torch.manual_seed(0)
        model = torchvision.models.detection.fasterrcnn_resnet50_fpn(
            weights=None, weights_backbone=None, num_classes=classes, min_size=size, max_size=size).to(dev).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        images = [torch.rand(3, size, size).to(dev) for _ in range(batch)]
        boxes = torch.tensor([[0.03, 0.06, 0.62, 0.69], [0.16, 0.19, 0.38, 0.94]]) * size
        targets = [{"boxes": boxes.to(dev), "labels": torch.tensor([1, 3]).to(dev)} for _ in range(batch)]

        def step():
            opt.zero_grad()
            sum(model(images, targets).values()).backward()
            opt.step()
        return step
    return make


def lstm_step(batch, seq, vocab=1000, hidden=256):
    """A 2-layer LSTM language model: embedding, LSTM, vocabulary head, cross entropy, SGD."""
    def make(dev):
        torch.manual_seed(0)
        emb, lstm, head = nn.Embedding(vocab, 128), nn.LSTM(128, hidden, num_layers=2, batch_first=True), \
            nn.Linear(hidden, vocab)
        params = nn.ModuleList([emb, lstm, head]).to(dev).parameters()
        opt = torch.optim.SGD(params, lr=0.1)
        x, y = torch.randint(0, vocab, (batch, seq)).to(dev), torch.randint(0, vocab, (batch, seq)).to(dev)

        def step():
            opt.zero_grad()
            out, _ = lstm(emb(x))
            nn.functional.cross_entropy(head(out).flatten(0, 1), y.flatten()).backward()
            opt.step()
        return step
    return make


class TransformerLM(nn.Module):
    def __init__(self, vocab, width, heads, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, vocab)

    def forward(self, x):
        t = x.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf"), device=x.device), 1)
        return self.head(self.enc(self.emb(x), mask=causal))


def transformer_step(batch, seq, vocab=1000, width=256):
    """A 2-layer causal transformer language model with dropout, trained with Adam."""
    def make(dev):
        torch.manual_seed(0)
        model = TransformerLM(vocab, width, 4, 2).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, y = torch.randint(0, vocab, (batch, seq)).to(dev), torch.randint(0, vocab, (batch, seq)).to(dev)

        def step():
            opt.zero_grad()
            nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()).backward()
            opt.step()
        return step
    return make


def allreduce_rows(worlds):
    """hccl (npu tensors) against gloo (CPU tensors), separate processes; target: >= gloo from 64 KB."""
    import allreduce_busbw
    rows = allreduce_busbw.measure(worlds, 64, 20, out=lambda line: print(line, flush=True))
    for r in rows:
        r["target"] = 1.0 if r["bytes"] >= 64 << 10 else None
        r["met"] = r["target"] is None or r["ratio"] >= r["target"]
    return rows


def live_bytes(model, opt, inputs):
    """Bytes of the tensors a training step keeps alive between steps."""
    tensors = list(model.parameters()) + list(model.buffers()) + list(inputs)
    tensors += [p.grad for p in model.parameters() if p.grad is not None]
    for state in opt.state.values():
        tensors += [v for v in state.values() if torch.is_tensor(v)]
    return sum(t.numel() * t.element_size() for t in tensors)


def cpu_step_peak_bytes(step):
    """Peak of the CPU allocator's live bytes during step(), from profiler memory events."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = sorted((e.start_us(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                    if e.name() == "[memory]")
    live = peak = 0
    for _, nbytes in events:
        live += nbytes
        peak = max(peak, live)
    return peak


def memory(batch, size, steps, growth_batch, growth_size):
    mib = 1 << 20
    model, opt, inputs, step = resnet_setup("cpu", batch, size)
    step()  # creates gradients and momentum buffers
    cpu_peak = live_bytes(model, opt, inputs) + cpu_step_peak_bytes(step)
    del model, opt, inputs, step
    torch.npu.empty_cache()
    _, _, _, step = resnet_setup(NPU, batch, size)
    step()
    torch.npu.synchronize()
    torch.npu.reset_peak_memory_stats()
    step()
    torch.npu.synchronize()
    npu_reserved = torch.npu.max_memory_reserved()
    del step
    torch.npu.empty_cache()
    _, _, _, step = resnet_setup(NPU, growth_batch, growth_size)
    reserved = []  # after each step
    for _ in range(steps):
        step()
        torch.npu.synchronize()
        reserved.append(torch.npu.memory_reserved())
    # Step 1 creates gradients and momentum buffers; from step 2 on a step
    # reuses the same cached blocks, so reserved memory must stay flat.
    after_first, after_second, after_last = reserved[0], reserved[1], reserved[-1]
    ratio = npu_reserved / cpu_peak
    print(f"memory: resnet18 step b{batch} {size}x{size}: NPU peak reserved {npu_reserved / mib:.1f} MiB, "
          f"CPU peak {cpu_peak / mib:.1f} MiB, ratio {ratio:.2f} (target <= 1.20{'' if ratio <= 1.2 else ', gap'})")
    flat = max(reserved[1:]) <= after_second
    print(f"memory: reserved after 1, 2 and {steps} steps (b{growth_batch} {growth_size}x{growth_size}): "
          f"{after_first / mib:.1f} / {after_second / mib:.1f} / {after_last / mib:.1f} MiB "
          f"({'no growth after step 2' if flat else 'GROWTH'})")
    return {"batch": batch, "size": size, "npu_peak_reserved_bytes": npu_reserved, "cpu_peak_bytes": cpu_peak,
            "ratio": ratio, "target": 1.2, "met": ratio <= 1.2, "growth_steps": steps,
            "reserved_after_first": after_first, "reserved_after_second": after_second,
            "reserved_after_last": after_last, "no_growth_after_second": flat}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no 224x224 step")
    ap.add_argument("--json")
    ap.add_argument("--no-allreduce", action="store_true", help="skip the all_reduce bus bandwidth table")
    args = ap.parse_args()
    # Note [Fair CPU peer]: the simulator runs its AI cores on every host core,
    # so the CPU backend gets every host core too (Debian's torch defaults to 1).
    torch.set_num_threads(os.cpu_count() or 1)
    rounds = 3 if args.quick else 7
    print(f"{platform.node()} {time.strftime('%Y-%m-%d')} torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads, NPU {torch.npu.get_device_name(0)}")
    # Memory first, on a fresh allocator: later rows leave state behind (apex's O2 keeps its model and
    # master weights for the life of the process), which the reserved figures would count.
    mem = memory(8, 112, 100, 2, 64)
    print(f"rows: medians over {rounds} interleaved rounds (Note [Interleaved rounds]); spread = max / min ratio - 1")
    print(f"{'case':<38}{'cpu ms':>10}{'npu ms':>10}{'ratio':>8}{'spread':>8}{'target':>8}{'':<6}{'npu sim ms':>11}")
    rows = []
    for n in (256, 1024, 2048):
        case(rows, f"mm {n} fp32", mm(n, torch.float32), rounds, 0.8)
    for n in (256, 1024, 2048):
        case(rows, f"mm {n} fp16 (CPU: fp32)", mm(n, torch.float16), rounds, 0.8)
    case(rows, "conv2d 8x64x56x56 k3 -> 64", conv(8, 64, 56, 3, 64, 1), rounds, 0.7)
    case(rows, "conv2d 8x128x28x28 k3 -> 128", conv(8, 128, 28, 3, 128, 1), rounds, 0.7)
    case(rows, "conv2d 8x3x224x224 k7 s2 -> 64", conv(8, 3, 224, 7, 64, 2), rounds, 0.7)
    case(rows, "conv2d fp16 8x64x56x56 k3 (CPU: fp32)", conv_fp16(8, 64, 56, 3, 64, 1), rounds, 0.7)
    case(rows, "conv3d 2x64x8x28x28 k3 -> 64", conv3d(2, 64, 8, 28, 3, 64), rounds, 0.7)
    for n in (1 << 10, 1 << 20, 1 << 24):
        case(rows, f"add {n}", add(n), rounds, 0.8)
    for queue in (True, False):
        _C._npu_setTaskQueueEnabled(queue)
        case(rows, f"10000 tiny adds (task queue {'on' if queue else 'off'})", tiny_ops(10000), rounds, 0.5)
    _C._npu_setTaskQueueEnabled(True)
    case(rows, "1000 1-element adds", one_element_adds(1000), rounds, 0.67)
    case(rows, "1000 1-element adds, NPU graph replay", one_element_adds(1000, graphed=True), rounds, 2.0)
    eager, replayed = rows[-2]["npu_ms"], rows[-1]["npu_ms"]
    print(f"{'':<38}NPU graph replay vs eager: {eager / replayed:.1f}x faster (target 3x)", flush=True)
    for size in ((112,) if args.quick else (112, 224)):
        case(rows, f"resnet18 train step b8 {size}x{size}", resnet_step(8, size), max(3, rounds // 2), 0.8)
    case(rows, "LSTM LM train step b8 seq32", lstm_step(8, 32), max(3, rounds // 2), 0.8)
    case(rows, "r3d_18 train step b1 8x56x56", video_step(1, 8, 56), max(3, rounds // 2), 0.8)
    case(rows, "transformer LM train step b8 seq64", transformer_step(8, 64), max(3, rounds // 2), 0.8)
    if not args.quick:
        # Mixed precision (issue: at least 0.8 of the CPU's fp32 step, and no slower than the NPU's own fp32).
        for mixed in (False, True):
            case(rows, f"resnet50 train step b16 224 {'apex O2' if mixed else 'fp32'}", resnet50_step(16, 224, mixed),
                 3, 0.8)
        for mixed in (False, True):
            case(rows, f"BERT-base train step b8 seq128 {'autocast' if mixed else 'fp32'}",
                 bert_base_step(8, 128, mixed), 3, 0.8)
        for fp32, mixed in ((rows[-4], rows[-3]), (rows[-2], rows[-1])):
            print(f"{'':<38}{mixed['case']}: {mixed['npu_ms'] / fp32['npu_ms']:.2f}x the NPU fp32 step's time "
                  f"(target <= 1)", flush=True)
        case(rows, "Faster R-CNN R50-FPN train step b2 320", detection_step(2, 320), 3, 0.8)
    met = sum(r["met"] for r in rows)
    print(f"{met} of {len(rows)} speed targets met; memory target {'met' if mem['met'] else 'not met'}")
    busbw = [] if args.no_allreduce else allreduce_rows((2,) if args.quick else (2, 4))
    if busbw:
        short = [r for r in busbw if not r["met"]]
        print(f"all_reduce bus bandwidth >= gloo from 64 KB: {'met' if not short else 'not met'}"
              + "".join(f"; {r['world']} ranks {r['bytes']} B {r['ratio']:.2f}x" for r in short))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": platform.node(), "date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
                       "cpu_threads": torch.get_num_threads(), "npu": torch.npu.get_device_name(0),
                       "cases": rows, "memory": mem, "allreduce_busbw": busbw}, f, indent=1)


if __name__ == "__main__":
    main()
