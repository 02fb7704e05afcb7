"""Fused vs unfused attention on the simulated NPU: simulated device time, HBM bytes and host time.

    /usr/bin/python3 benchmarks/fusion_attention.py [--shape B,N,S,D] [--dtype float16] [--soc Ascend910B2]

Forward + backward of torch_npu.npu_fusion_attention (one FlashAttentionScore, one
FlashAttentionScoreGrad) against the same math written with ordinary ops
(BatchMatMul, Muls, SoftmaxV2, BatchMatMul and their gradients), BNSD layout.
Simulated times and bytes come from torch.npu.op_records(); host time is wall clock
(after one warm-up, synchronized). The SoC preset is chosen before torch_npu starts.
"""
import argparse
import os
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="2,8,512,64", help="B,N,S,D (default 2,8,512,64)")
    p.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float32"])
    p.add_argument("--soc", default=None, help="Ascend910A or Ascend910B2 (default: the environment's)")
    return p.parse_args()


def main():
    args = parse()
    if args.soc:
        os.environ["ASCEND_SIM_SOC_VERSION"] = args.soc
    import torch
    import torch_npu

    b, n, s, d = (int(x) for x in args.shape.split(","))
    dtype = getattr(torch, args.dtype)
    scale = d ** -0.5
    q, k, v, dy = (torch.randn(b, n, s, d, dtype=dtype, device="npu") for _ in range(4))

    def fused(q, k, v):
        return torch_npu.npu_fusion_attention(q, k, v, n, "BNSD", scale=scale)[0]

    def unfused(q, k, v):
        return ((q @ k.transpose(-1, -2)) * scale).softmax(-1) @ v

    print(f"{torch.npu.get_device_name()}  B,N,S,D = {b},{n},{s},{d}  {args.dtype}")
    print(f"{'':10} {'pass':9} {'sim us':>10} {'HBM MB':>9} {'ops':>4} {'host ms':>9}")
    for name, fn in (("fused", fused), ("unfused", unfused)):
        for _ in range(2):  # the first round compiles the op plans; time the second
            leaves = [t.detach().requires_grad_() for t in (q, k, v)]
            torch.npu.synchronize()
            t0 = time.perf_counter()
            with torch.npu.op_records() as fwd:
                out = fn(*leaves)
                torch.npu.synchronize()
            t1 = time.perf_counter()
            with torch.npu.op_records() as bwd:
                out.backward(dy)
                torch.npu.synchronize()
            t2 = time.perf_counter()
        for label, rec, ms in (("forward", fwd, t1 - t0), ("backward", bwd, t2 - t1)):
            ops = [r for r in rec.records if r.op_type not in ("Callback",)]
            print(f"{name:10} {label:9} {sum(r.duration_us for r in ops):10.1f} "
                  f"{sum(r.bytes for r in ops) / 1e6:9.2f} {len(ops):4d} {ms * 1e3:9.1f}")


if __name__ == "__main__":
    main()
