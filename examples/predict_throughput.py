"""Predicted training throughput of ResNet-50 v1.5 and BERT-Large in apex O2 on the simulated 910A.

    /usr/bin/python3 examples/predict_throughput.py                    # both models
    /usr/bin/python3 examples/predict_throughput.py --model resnet50 --steps 3 --breakdown

Each model trains with apex.amp O2 (fp16 model, fp32 master weights, batch norm in fp32, dynamic
loss scale) and a fused optimizer, as the porting guide sets it up:
- ResNet-50 v1.5 (torchvision's resnet50), 224x224 images, batch 32, NpuFusedSGD (momentum 0.9);
- a BERT-Large-shaped encoder (24 layers, hidden 1024, 16 heads, feed-forward 4096, sequence 128)
  with its masked-LM head, batch 16, NpuFusedLamb.
The simulated step time is the NPU's own clock between two events around a whole step (forward,
backward, unscale and overflow check, optimizer); the first step is excluded (it compiles every op).
Images/s and sentences/s are batch / step time. Published reference for one Ascend 910 (MindSpore
0.5 benchmark, mixed precision): 2115 images/s (ResNet-50 v1.5, batch 256) and 269 sentences/s
(BERT-Large, batch 96, sequence 128). docs/mixed_precision.md explains the prediction and its
constants; --breakdown prints where the simulated time goes (per unit and per op type).
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F
import torch_npu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PUBLISHED = {"resnet50": (2115.0, "images"), "bert": (269.0, "sentences")}


def resnet50_setup(args):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet50(num_classes=1000).npu()
    g = torch.Generator().manual_seed(1)
    x = torch.randn(args.batch_size or 32, 3, 224, 224, generator=g).npu()
    y = torch.randint(0, 1000, (x.size(0),), generator=g).npu()
    optimizer = torch_npu.optim.NpuFusedSGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    return model, optimizer, lambda m: F.cross_entropy(m(x), y), x.size(0)


def bert_setup(args):
    from bert_step import BertEncoderMLM
    torch.manual_seed(0)
    batch, seq, vocab = args.batch_size or 16, 128, 30522
    model = BertEncoderMLM(vocab, 1024, args.bert_layers, 16, 4096).npu()
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, vocab, (batch, seq), generator=g).npu()
    token_types = (torch.arange(seq) >= seq // 2).long().expand(batch, -1).contiguous().npu()
    padding = torch.zeros(batch, seq, dtype=torch.bool).npu()
    labels = torch.full((batch, seq), -100, dtype=torch.long)
    masked = torch.rand(batch, seq, generator=g) < 0.15
    labels[masked] = torch.randint(0, vocab, (int(masked.sum()),), generator=g)
    labels = labels.npu()
    optimizer = torch_npu.optim.NpuFusedLamb(model.parameters(), lr=1e-4, weight_decay=0.01)

    def loss_of(m):
        logits = m(tokens, token_types, padding)
        return F.cross_entropy(logits.reshape(-1, vocab).float(), labels.reshape(-1), ignore_index=-100)
    return model, optimizer, loss_of, batch


SETUPS = {"resnet50": resnet50_setup, "bert": bert_setup}


def breakdown(records, top=12):
    """Where the simulated time goes: per unit (bound) and per op type."""
    total = sum(r.duration_us for r in records) or 1.0
    by_unit, by_type = {}, {}
    for r in records:
        shares = {"Cube": r.cube_ratio, "Vector": r.vector_ratio, "MTE": r.mte_ratio}
        unit = {"ai_cpu": "AI CPU", "dma": "DMA"}.get(r.core_type) or max(shares, key=shares.get)
        by_unit[unit] = by_unit.get(unit, 0.0) + r.duration_us
        calls, us = by_type.get(r.op_type, (0, 0.0))
        by_type[r.op_type] = (calls + 1, us + r.duration_us)
    lines = [f"    {len(records)} ops, {total / 1e3:.2f} ms of op time; bound by: " +
             ", ".join(f"{u} {us / total:.0%}" for u, us in sorted(by_unit.items(), key=lambda kv: -kv[1]))]
    for op, (calls, us) in sorted(by_type.items(), key=lambda kv: -kv[1][1])[:top]:
        lines.append(f"    {op:32s} {calls:5d} calls {us / 1e3:8.2f} ms {us / total:6.1%}")
    return "\n".join(lines)


def predict(name, args):
    from apex import amp
    model, optimizer, loss_of, batch = SETUPS[name](args)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O2", loss_scale="dynamic", combine_grad=True,
                                      verbosity=0)
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    times = []
    for step in range(args.steps):
        t0 = time.perf_counter()
        with torch.npu.op_records() as rec:
            start.record()
            loss = loss_of(model)
            optimizer.zero_grad()
            with amp.scale_loss(loss, optimizer) as scaled:
                scaled.backward()
            optimizer.step()
            end.record()
            end.synchronize()
        sim_ms = start.elapsed_time(end)
        times.append(sim_ms)
        print(f"  {name} step {step}: loss {loss.item():.4f}  simulated {sim_ms:7.2f} ms  host "
              f"{time.perf_counter() - t0:5.1f} s", flush=True)
    steady = times[1:] or times
    mean_ms = sum(steady) / len(steady)
    rate = batch / (mean_ms / 1e3)
    published, unit = PUBLISHED[name]
    print(f"{name}: O2, batch {batch}: simulated step {mean_ms:.2f} ms = {rate:.0f} {unit}/s "
          f"(published for one Ascend 910: {published:.0f} {unit}/s, ratio {rate / published:.2f})", flush=True)
    if args.breakdown:
        print(breakdown(rec.records), flush=True)
    return rate


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["resnet50", "bert", "both"], default="both")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=0, help="default: 32 (ResNet-50), 16 (BERT)")
    parser.add_argument("--bert-layers", type=int, default=24)
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args(argv)
    soc = os.environ.get("ASCEND_SIM_SOC_VERSION", "Ascend910A")
    if soc != "Ascend910A":
        print(f"note: the prediction is made for the Ascend910A preset; this run uses {soc}")
    torch.npu.set_device("npu:0")
    names = ["resnet50", "bert"] if args.model == "both" else [args.model]
    return {name: predict(name, args) for name in names}


if __name__ == "__main__":
    main()
