"""Train a small classifier on the simulated NPU, side by side with the CPU.

Prints per step: the loss on npu:0 and on the CPU (same initial weights, same
data), throughput, and the simulated NPU device time of the step; at the end
the ops that took the most simulated device time. Exits non-zero if the NPU
loss does not track the CPU loss or does not go down.

The chip's default precision mode is used (Ascend910A: fp32 matmuls run on the
fp16 Cube, so losses agree with the CPU to ~1e-4 rather than ~1e-7; pass
--precision-mode must_keep_origin_dtype for fp32 Cube operands).

    /usr/bin/python3 examples/train_demo.py [--steps 30] [--batch-size 64] [--precision-mode MODE]
"""
import argparse
import copy
import sys
import time

import torch
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)


def make_data(num_batches, batch_size, features, classes, seed=0):
    """Synthetic, learnable data: labels from a fixed random linear teacher."""
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(features, classes, generator=g)
    batches = []
    for _ in range(num_batches):
        x = torch.randn(batch_size, features, generator=g)
        y = (x @ teacher).argmax(dim=1)
        batches.append((x, y))
    return batches


def make_model(features, hidden, classes):
    return torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, classes))


def train_step(model, optimizer, criterion, x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def train_side_by_side(args, device, models, optimizers, criterion, data):
    """Trains the NPU and the CPU model on the same batches; returns (losses, worst rel diff, sim ms, wall s)."""
    (cpu_model, npu_model), (cpu_opt, npu_opt) = models, optimizers
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    total_sim_ms, total_wall = 0.0, 0.0
    losses, worst = [], 0.0
    print(f"{'step':>4} {'npu loss':>10} {'cpu loss':>10} {'rel diff':>9} {'samples/s':>10} {'sim ms':>8}")
    for step, (x, y) in enumerate(data):
        t0 = time.perf_counter()
        start.record()
        xd, yd = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        npu_loss = train_step(npu_model, npu_opt, criterion, xd, yd)
        end.record()
        npu_value = npu_loss.item()  # waits for the device
        wall = time.perf_counter() - t0
        sim_ms = start.elapsed_time(end)
        cpu_value = train_step(cpu_model, cpu_opt, criterion, x, y).item()

        rel = abs(npu_value - cpu_value) / max(abs(cpu_value), 1e-12)
        worst = max(worst, rel)
        losses.append(npu_value)
        total_sim_ms += sim_ms
        total_wall += wall
        print(f"{step:>4} {npu_value:>10.5f} {cpu_value:>10.5f} {rel:>9.2e} "
              f"{args.batch_size / wall:>10.0f} {sim_ms:>8.3f}", flush=True)

    return losses, worst, total_sim_ms, total_wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--precision-mode", choices=["allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp16"],
                        help="ACL_PRECISION_MODE (default: the chip preset's)")
    parser.add_argument("--rtol", type=float, default=None,
                        help="allowed relative NPU/CPU loss difference (default: 1e-5 with fp32 Cube operands, "
                             "2e-3 with fp16 ones)")
    parser.add_argument("--top-ops", type=int, default=8, help="how many ops to list by simulated time")
    args = parser.parse_args(argv)

    torch.npu.set_device(args.device)
    if args.precision_mode:
        torch.npu.set_option({"ACL_PRECISION_MODE": args.precision_mode})
    mode = torch.npu.get_option("ACL_PRECISION_MODE")
    rtol = args.rtol if args.rtol is not None else (1e-5 if mode == "must_keep_origin_dtype" else 2e-3)
    device = torch.device(args.device)
    print(f"torch {torch.__version__}, torch_npu on {torch.npu.get_device_name()} "
          f"({torch.npu.device_count()} simulated devices), training on {device}, precision mode {mode}")

    torch.manual_seed(0)
    cpu_model = make_model(args.features, args.hidden, args.classes)
    npu_model = copy.deepcopy(cpu_model).to(device)
    criterion = torch.nn.CrossEntropyLoss()
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=args.lr, momentum=0.9)
    npu_opt = torch.optim.SGD(npu_model.parameters(), lr=args.lr, momentum=0.9)
    data = make_data(args.steps, args.batch_size, args.features, args.classes)

    compiles_before = torch.npu.compile_count()
    with torch.npu.op_records() as records:
        losses, worst, total_sim_ms, total_wall = train_side_by_side(
            args, device, (cpu_model, npu_model), (cpu_opt, npu_opt), criterion, data)
    print(f"done: {args.steps} steps, {args.steps * args.batch_size / total_wall:.0f} samples/s (host wall clock), "
          f"simulated NPU time {total_sim_ms:.3f} ms ({total_sim_ms / args.steps:.3f} ms/step)")
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}; largest NPU/CPU relative loss difference {worst:.2e}")
    print(f"memory: {torch.npu.memory_allocated() / 2**20:.1f} MiB allocated, "
          f"{torch.npu.memory_reserved() / 2**20:.1f} MiB reserved; "
          f"{torch.npu.compile_count() - compiles_before} op plans compiled during training")
    print(f"top {args.top_ops} ops by simulated device time:")
    print(records.table(top=args.top_ops))
    ok = worst <= rtol and losses[-1] < losses[0]
    if not ok:
        print("FAILED: the NPU loss did not match the CPU loss or did not decrease", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
