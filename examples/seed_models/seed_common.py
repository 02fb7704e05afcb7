"""The training loop the seed-model examples share: the same model and data on the NPU and on the CPU.

Every example (yolov3.py, crnn.py, db_text.py, rfcn.py, densenet.py) builds a
model with seeded initial weights and a list of synthetic batches, and gives a
`loss_fn(model, batch, device)`. `run()` trains a copy on the NPU (recording the
device's ops) and a copy with the same weights on the CPU, for the same steps
and batches, and prints per step the two losses, images/s (host wall clock) and
the simulated NPU device time; then the ops that took the most simulated time.
It checks that no operator ran on the host (a `host_fallback` op record, which
the opt-in TORCH_NPU_CPU_FALLBACK=1 would produce) and that the first step's
losses agree within `--rtol` (both steps start from the same weights and data;
later steps drift apart by the rounding of the earlier updates).
"""
import argparse
import copy
import os
import sys
from dataclasses import dataclass, field

import torch
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lm_common import StepTimer  # noqa: E402  (the examples' step timer: wall clock and simulated time)


def parse_args(description, argv=None, extra=None, **defaults):
    """The examples' common options; extra(parser) adds an example's own, `defaults` overrides defaults."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--precision-mode", default="must_keep_origin_dtype",
                        choices=["allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp16"],
                        help="ACL_PRECISION_MODE (must_keep_origin_dtype: fp32 Cube operands, as the CPU)")
    parser.add_argument("--rtol", type=float, default=None,
                        help="allowed relative NPU/CPU difference of the first step's loss "
                             "(default 1e-4 with fp32 Cube operands, 5e-3 with fp16 ones)")
    parser.add_argument("--no-cpu", action="store_true", help="train on the NPU only")
    parser.add_argument("--top-ops", type=int, default=8, help="how many ops to list by simulated time")
    if extra:
        extra(parser)
    parser.set_defaults(**defaults)
    return parser.parse_args(argv)


@dataclass
class Result:
    """What run() measured: per-step losses, host wall-clock and simulated device time of the NPU run."""
    npu_losses: list
    cpu_losses: list = field(default_factory=list)
    wall_s: list = field(default_factory=list)
    sim_ms: list = field(default_factory=list)
    images_per_step: int = 0
    host_fallbacks: list = field(default_factory=list)
    records: object = None
    rtol: float = 1e-4

    @property
    def first_step_rel_diff(self):
        if not self.cpu_losses:
            return float("nan")
        return abs(self.npu_losses[0] - self.cpu_losses[0]) / max(abs(self.cpu_losses[0]), 1e-12)

    @property
    def ok(self):
        return not self.host_fallbacks and (not self.cpu_losses or self.first_step_rel_diff <= self.rtol)


def train(model, batches, loss_fn, device, lr, make_optimizer=None, on_step=None):
    """Trains `model` on `device` over `batches`; returns (losses, StepTimers).

    loss_fn(model, batch, device) -> scalar loss (it moves the batch to the device);
    make_optimizer(params, lr) defaults to SGD with momentum 0.9.
    """
    model = model.to(device).train()
    optimizer = (make_optimizer or (lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9)))(
        model.parameters(), lr)
    losses, timers = [], []
    for step, batch in enumerate(batches):
        with StepTimer(device) as timer:
            optimizer.zero_grad()
            loss = loss_fn(model, batch, device)
            loss.backward()
            optimizer.step()
            value = loss.item()  # waits for the device
        losses.append(value)
        timers.append(timer)
        if on_step:
            on_step(step, value, timer)
    return losses, timers


def run(name, model, batches, loss_fn, args, images_per_step, make_optimizer=None, evaluate=None):
    """Trains `model` (CPU weights) on args.device, then the same weights on the CPU; prints and returns a Result.

    evaluate(model, batch, device), if given, runs after training on the NPU model (inference:
    box decoding, NMS, ...) with the op records still on, and prints what it returns.
    """
    device = torch.device(args.device)
    torch.npu.set_device(device)
    saved_mode = torch.npu.get_option("ACL_PRECISION_MODE")
    torch.npu.set_option({"ACL_PRECISION_MODE": args.precision_mode})
    rtol = args.rtol if args.rtol is not None else (1e-4 if args.precision_mode == "must_keep_origin_dtype" else 5e-3)
    params = sum(p.numel() for p in model.parameters())
    print(f"{name}: {params / 1e6:.2f} M parameters, {args.steps} steps, {images_per_step} images per step, "
          f"on {device} ({torch.npu.get_device_name()}), precision mode {args.precision_mode}", flush=True)
    cpu_model = copy.deepcopy(model)

    def show(step, loss, timer):
        print(f"step {step:>3}  loss {loss:9.5f}  {images_per_step / timer.wall_s:8.1f} img/s  "
              f"sim {timer.sim_ms:8.3f} ms", flush=True)

    try:
        with torch.npu.op_records(device) as records:
            npu_losses, timers = train(model, batches, loss_fn, device, args.lr, make_optimizer, show)
            if evaluate is not None:
                model.eval()
                with torch.no_grad():
                    print("evaluation:", evaluate(model, batches[0], device), flush=True)
    finally:
        torch.npu.set_option({"ACL_PRECISION_MODE": saved_mode})
    result = Result(npu_losses, wall_s=[t.wall_s for t in timers], sim_ms=[t.sim_ms for t in timers],
                    images_per_step=images_per_step, records=records, rtol=rtol,
                    host_fallbacks=sorted({r.op_type for r in records.records if r.core_type == "host_fallback"}))
    if not args.no_cpu:
        result.cpu_losses, _ = train(cpu_model, batches, loss_fn, "cpu", args.lr, make_optimizer)
        print(f"{'step':>4} {'npu loss':>11} {'cpu loss':>11} {'rel diff':>9}")
        for step, (a, b) in enumerate(zip(result.npu_losses, result.cpu_losses)):
            print(f"{step:>4} {a:>11.6f} {b:>11.6f} {abs(a - b) / max(abs(b), 1e-12):>9.2e}")
    later = slice(1, None) if len(timers) > 1 else slice(None)  # step 0 also compiles the op plans
    wall, sim = sum(result.wall_s[later]), sum(result.sim_ms[later])
    steps = len(result.wall_s[later])
    print(f"{name}: {steps * images_per_step / wall:.1f} images/s (host), {sim / steps:.3f} ms simulated per step "
          f"= {steps * images_per_step / (sim / 1e3):.0f} images/s simulated (mean over steps {later.start or 0}.."
          f"{len(timers) - 1})")
    print(f"top {args.top_ops} ops by simulated device time:")
    print(records.table(top=args.top_ops))
    print(f"host fallbacks: {', '.join(result.host_fallbacks) or 'none'}")
    if result.cpu_losses:
        print(f"first-step loss NPU {result.npu_losses[0]:.6f} vs CPU {result.cpu_losses[0]:.6f}: relative "
              f"difference {result.first_step_rel_diff:.2e} (allowed {rtol:.0e})")
    if not result.ok:
        print(f"FAILED: {name} ran an op on the host or its loss does not match the CPU's", flush=True)
    return result
