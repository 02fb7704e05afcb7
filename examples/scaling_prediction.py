"""Data-parallel scaling of ResNet-50 and BERT-Large (apex O2) from 1 to 64 servers, predicted.

    /usr/bin/python3 examples/scaling_prediction.py --out /tmp/scaling      # record + predict + plot
    /usr/bin/python3 examples/scaling_prediction.py --out /tmp/scaling --svg docs/images/scaling_prediction.svg

For each model (the setups of examples/predict_throughput.py: ResNet-50 v1.5 batch 32 with
NpuFusedSGD, a BERT-Large encoder batch 16 sequence 128 with NpuFusedLamb, both apex O2 with dynamic
loss scale) and each chip preset (Ascend910A, Ascend910B2), one child process trains a few steps
under DistributedDataParallel (a one-rank hccl group, so DDP's buckets and its all-reduces are in
the step) and records the last step with torch_npu.tools.scaling.record. The traces are then
replayed on 1..64 servers of eight NPUs (Note [Scaling by replay]); the table and the plot show the
weak-scaling efficiency with CANN's default algorithms. Traces already in --out are reused.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = ("Ascend910A", "Ascend910B2")
MODELS = ("resnet50", "bert")
LABELS = {"resnet50": "ResNet-50", "bert": "BERT-Large"}


def record_one(model, path, steps):
    """Runs in the child: trains `steps` steps of `model` under one-rank DDP, records the last."""
    import torch
    import torch.distributed as dist
    from apex import amp

    import torch_npu  # noqa: F401
    from torch_npu.tools import scaling
    sys.path.insert(0, HERE)
    from predict_throughput import SETUPS

    torch.npu.set_device(0)
    store = f"{path}.store"
    if os.path.exists(store):
        os.remove(store)
    dist.init_process_group("hccl", init_method=f"file://{store}", rank=0, world_size=1)
    args = argparse.Namespace(batch_size=0, bert_layers=24)
    net, optimizer, loss_of, _ = SETUPS[model](args)
    net, optimizer = amp.initialize(net, optimizer, opt_level="O2", loss_scale="dynamic", combine_grad=True,
                                    verbosity=0)
    ddp = torch.nn.parallel.DistributedDataParallel(net, device_ids=[0])

    def step():
        loss = loss_of(ddp)
        optimizer.zero_grad()
        with amp.scale_loss(loss, optimizer) as scaled:
            scaled.backward()
        optimizer.step()

    for _ in range(steps - 1):
        step()
    with scaling.record(path) as trace:
        step()
    print(f"{model} on {trace.soc}: recorded step {trace.span_us() / 1e3:.2f} ms (simulated)", flush=True)
    dist.destroy_process_group()
    os.remove(store)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for the traces")
    parser.add_argument("--servers", default="1,2,4,8,16,32,64")
    parser.add_argument("--steps", type=int, default=3, help="training steps per recording (the last is recorded)")
    parser.add_argument("--svg", help="write the efficiency plot here")
    parser.add_argument("--record", nargs=2, metavar=("MODEL", "PATH"), help=argparse.SUPPRESS)  # the child
    args = parser.parse_args(argv)
    if args.record:
        return record_one(args.record[0], args.record[1], args.steps)
    os.makedirs(args.out, exist_ok=True)
    for model in MODELS:
        for soc in PRESETS:
            path = os.path.join(args.out, f"{model}_{soc}.json")
            if not os.path.exists(path):
                env = {**os.environ, "ASCEND_SIM_SOC_VERSION": soc}
                subprocess.run([sys.executable, os.path.abspath(__file__), "--out", args.out, "--steps",
                                str(args.steps), "--record", model, path], env=env, check=True)

    from torch_npu.tools import scaling
    from torch_npu.tools.scaling import report
    servers = [int(s) for s in args.servers.split(",")]
    series = {}
    print(f"{'model':<11} {'chip':<12} " + " ".join(f"{s:>7}" for s in servers) + "   (efficiency; step ms at 1 / "
          f"{servers[-1]} servers)")
    for model in MODELS:
        for soc in PRESETS:
            trace = scaling.load(os.path.join(args.out, f"{model}_{soc}.json"))
            preds = [scaling.predict(trace, s, 8) for s in servers]
            series[f"{LABELS[model]}, {soc}"] = [(p.servers, p.efficiency) for p in preds]
            print(f"{LABELS[model]:<11} {soc:<12} " + " ".join(f"{p.efficiency:>7.1%}" for p in preds) +
                  f"   {preds[0].step_us / 1e3:.1f} / {preds[-1].step_us / 1e3:.1f} ({preds[-1].algorithms})")
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as f:
            f.write(report.svg_plot(series, "Predicted weak-scaling efficiency, servers of 8 NPUs (apex O2)",
                                    "efficiency vs one NPU", y_max=1.0, y_percent=True, width=640) + "\n")
        print(f"wrote {args.svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
