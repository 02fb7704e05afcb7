"""A Mixtral-style MoE layer served in fp16, in W8A16 and in W8A8 on the simulated NPU's int8 Cube path.

    python3 examples/int8_moe_inference.py [--tokens 512] [--dim 256] [--ffn 512] [--experts 8] [--top-k 2]

The layer of examples/moe_layer.py (router, top-k, SwiGLU experts, weighted sum), run for inference three
ways with the same weights, each through torch_npu's MoE operators (npu_moe_gating_top_k_softmax,
npu_moe_init_routing, npu_grouped_matmul, npu_swiglu, npu_moe_finalize_routing):
  fp16   the experts' products in fp16;
  W8A16  the experts' weights quantised per output channel to int8 (symmetric), dequantised on the way
         into the Cube (npu_grouped_matmul's antiquant_scale): half the weight bytes, the fp16 Cube rate;
  W8A8   the activations quantised to int8 too, per token (npu_quantize with each row's scale), the products
         int8 x int8 on the Cube at twice the fp16 rate, dequantised to fp16 by the weights' per-channel
         scale (npu_grouped_matmul's scale) and then by each row's.
Each is compared with the same layer in plain PyTorch fp32 on the CPU (relative error of the output), and
the script prints the simulated time of one forward, of its two GroupedMatmul launches (the expert
products) and of the activations' quantisation (its Vector ops: abs, row max, scale, Quantize, the row
rescale), and the bytes of the expert weights. At these sizes the W8A8 products' saving is smaller than
what the separate quantising launches cost: deployments fuse the quantisation into the op before (not
modelled here). Atlas A2 operators: the Ascend910B2 preset unless ASCEND_SIM_SOC_VERSION says otherwise.
"""
import argparse
import os

os.environ.setdefault("ASCEND_SIM_SOC_VERSION", "Ascend910B2")  # read when torch_npu starts the simulator

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import torch_npu  # noqa: E402
from lm_common import StepTimer  # noqa: E402


def make_weights(args):
    g = torch.Generator().manual_seed(0)
    return {"gate": torch.randn(args.experts, args.dim, generator=g) / args.dim ** 0.5,
            "w13": torch.randn(args.experts, args.dim, 2 * args.ffn, generator=g) / args.dim ** 0.5,
            "w2": torch.randn(args.experts, args.ffn, args.dim, generator=g) / args.ffn ** 0.5}


def cpu_reference(x, w, top_k):
    """The layer in plain PyTorch fp32: the per-expert loop of Hugging Face's Mixtral."""
    weights, chosen = F.linear(x, w["gate"]).softmax(-1).topk(top_k, dim=-1)
    weights = weights / weights.sum(-1, keepdim=True)
    out = torch.zeros_like(x)
    for e in range(w["w13"].size(0)):
        token, slot = (chosen == e).nonzero(as_tuple=True)
        if token.numel():
            a, b = (x[token] @ w["w13"][e]).chunk(2, dim=-1)
            out = out.index_add(0, token, ((F.silu(a) * b) @ w["w2"][e]) * weights[token, slot, None])
    return out


def quantise_weight(w):
    """Symmetric per-output-channel int8: w ~ q * scale, scale [n] = max|w[:, j]| / 127."""
    scale = w.abs().amax(0).clamp_min(1e-8) / 127
    return torch.clamp(torch.round(w / scale), -127, 127).to(torch.int8), scale


class Experts:
    """The experts' two products in one of the three precisions, with everything per-weight prepared once."""

    def __init__(self, w, mode, device):
        self.mode = mode
        self.layers = []
        for i, name in enumerate(("w13", "w2")):
            per_expert = list(w[name].unbind(0))
            if mode == "fp16":
                self.layers.append({"weight": [t.half().to(device) for t in per_expert]})
                continue
            q = [quantise_weight(t) for t in per_expert]
            layer = {"weight": [t.to(device) for t, _ in q]}
            if mode == "w8a16":
                layer["antiquant_scale"] = [s.half().to(device) for _, s in q]
            else:
                layer["scale"] = [s.to(device) for _, s in q]
            self.layers.append(layer)

    def weight_bytes(self):
        return sum(t.numel() * t.element_size() for layer in self.layers for t in layer["weight"])

    def product(self, i, h, ends):
        layer = self.layers[i]
        if self.mode == "fp16":
            return torch_npu.npu_grouped_matmul([h], layer["weight"], group_list=ends, split_item=2)[0]
        if self.mode == "w8a16":
            return torch_npu.npu_grouped_matmul([h], layer["weight"], antiquant_scale=layer["antiquant_scale"],
                                                group_list=ends, split_item=2)[0]
        # W8A8 with per-token dynamic activation scales (each row its own, as npu_dynamic_quant gives them):
        # y = (x8 @ w8) * weight_scale[j] on the Cube's int8 path, then * the row's scale.
        row_scale = (h.abs().amax(-1) * (1 / 127)).clamp_min(1e-4)
        h8 = torch_npu.npu_quantize(h, row_scale, torch.zeros_like(row_scale), torch.qint8, axis=0)
        y = torch_npu.npu_grouped_matmul([h8], layer["weight"], scale=layer["scale"], group_list=ends, split_item=2,
                                         output_dtype=torch.float16)[0]
        return y * row_scale.unsqueeze(-1)


def npu_forward(x, gate, experts, top_k):
    weights, chosen, rows = torch_npu.npu_moe_gating_top_k_softmax(F.linear(x, gate), None, k=top_k)
    weights = weights / weights.sum(-1, keepdim=True)
    expanded, expanded_rows, expanded_experts = torch_npu.npu_moe_init_routing(x, rows, chosen, x.size(0))
    ends = torch_npu.npu_moe_compute_expert_tokens(expanded_experts, gate.size(0)).tolist()
    h = torch_npu.npu_swiglu(experts.product(0, expanded, ends), dim=-1)
    out = experts.product(1, h, ends)
    return torch_npu.npu_moe_finalize_routing(out, None, None, None, weights, expanded_rows, chosen)


def run(args):
    w = make_weights(args)
    x = torch.randn(args.tokens, args.dim, generator=torch.Generator().manual_seed(1))
    want = cpu_reference(x, w, args.top_k)
    device = args.device
    print(f"Mixtral-style MoE layer, inference: {args.experts} experts, top-{args.top_k}, dim {args.dim}, "
          f"ffn {args.ffn}, {args.tokens} tokens on {device} ({torch.npu.get_device_name(0)}), against fp32 on the CPU")
    results = {}
    with torch.no_grad():
        gate = w["gate"].half().to(device)
        for mode in ("fp16", "w8a16", "w8a8"):
            experts = Experts(w, mode, device)
            xd = x.half().to(device)
            npu_forward(xd, gate, experts, args.top_k)  # the first call compiles every kernel's plan
            with torch.npu.op_records() as records, StepTimer(device) as timer:
                y = npu_forward(xd, gate, experts, args.top_k)
                y_cpu = y.float().cpu()
            err = ((y_cpu - want).norm() / want.norm()).item()
            products_us = sum(r.duration_us for r in records.records if r.op_type == "GroupedMatmul")
            quantising = ("Abs", "ReduceMax", "Muls", "Mul", "Maximum", "Quantize")
            quantise_us = sum(r.duration_us for r in records.records if mode == "w8a8" and r.op_type in quantising)
            results[mode] = (err, timer.sim_ms, experts.weight_bytes(), products_us)
            print(f"{mode:6s} relative error {err:.2e}  simulated forward {timer.sim_ms:.3f} ms  "
                  f"expert products {products_us:.1f} us  expert weights {experts.weight_bytes() / 1024:.0f} KiB"
                  + (f"  (+ {quantise_us:.1f} us quantising activations)" if quantise_us else ""))
    fp16_us = results["fp16"][3]
    print(f"expert products against fp16: W8A16 {fp16_us / results['w8a16'][3]:.2f}x faster (half the weight bytes), "
          f"W8A8 {fp16_us / results['w8a8'][3]:.2f}x (the Cube's int8 rate)")
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--ffn", type=int, default=512)
    parser.add_argument("--experts", type=int, default=8)
    parser.add_argument("--top-k", type=int, default=2)
    args = parser.parse_args(argv)
    if not 1 <= args.top_k <= args.experts:
        parser.error(f"--top-k must be in [1, --experts = {args.experts}]")
    return run(args)


if __name__ == "__main__":
    main()
