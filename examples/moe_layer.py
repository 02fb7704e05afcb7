"""A Mixtral-style mixture-of-experts layer on torch_npu's MoE operators, trained on the simulated NPU.

    python3 examples/moe_layer.py [--steps 5] [--tokens 256] [--dim 64] [--ffn 128] [--experts 8] [--top-k 2]
                                  [--dtype fp32|bf16|fp16] [--compare-unfused]

The layer is Mixtral's: a linear router picks each token's top-k experts (softmax, top-k, weights
renormalised over the k), every expert is a SwiGLU feed-forward, and the token's output is the weighted
sum of its experts' outputs. On the NPU it runs torch_npu's routing operators the way Ascend's MoE ports
write it: npu_moe_gating_top_k_softmax, npu_moe_init_routing (tokens sorted by expert),
npu_moe_compute_expert_tokens (each expert's end row), npu_grouped_matmul (every expert's product in one
launch), npu_swiglu and npu_moe_finalize_routing (the weighted outputs back into token order), forward
and backward. The same layer with the same weights runs in plain PyTorch on the CPU in fp32 (the
per-expert loop of Hugging Face's Mixtral); with --dtype bf16 / fp16 the NPU runs the layer in that
dtype. The script prints both losses per step, the simulated step time and tokens/s, and the kernels
per step; --compare-unfused also trains the plain formulation on the NPU and prints both simulated
step times. Atlas A2 operators: the Ascend910B2 preset unless ASCEND_SIM_SOC_VERSION says otherwise.
"""
import argparse
import os

os.environ.setdefault("ASCEND_SIM_SOC_VERSION", "Ascend910B2")  # read when torch_npu starts the simulator

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import torch_npu  # noqa: E402
from lm_common import StepTimer  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


class MoeLayer(nn.Module):
    def __init__(self, dim, ffn, experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.input_scale = nn.Parameter(torch.ones(dim))  # learnable, so the routing's input gradient runs too
        self.gate = nn.Parameter(torch.randn(experts, dim) / dim ** 0.5)
        self.w13 = nn.Parameter(torch.randn(experts, dim, 2 * ffn) / dim ** 0.5)  # gate and up projections
        self.w2 = nn.Parameter(torch.randn(experts, ffn, dim) / ffn ** 0.5)

    def forward(self, x, fused):
        x = x * self.input_scale
        return self.forward_fused(x) if fused else self.forward_plain(x)

    def forward_fused(self, x):
        """torch_npu's MoE operators: one kernel each per direction."""
        experts = self.w13.size(0)
        weights, chosen, rows = torch_npu.npu_moe_gating_top_k_softmax(F.linear(x, self.gate), None, k=self.top_k)
        weights = weights / weights.sum(-1, keepdim=True)
        expanded, expanded_rows, expanded_experts = torch_npu.npu_moe_init_routing(x, rows, chosen, x.size(0))
        # group_list is a host int list in this signature: one sync per layer, as in torch_npu's 1.11 line
        ends = torch_npu.npu_moe_compute_expert_tokens(expanded_experts, experts).tolist()
        h = torch_npu.npu_grouped_matmul([expanded], list(self.w13.unbind(0)), group_list=ends, split_item=2)[0]
        h = torch_npu.npu_swiglu(h, dim=-1)
        out = torch_npu.npu_grouped_matmul([h], list(self.w2.unbind(0)), group_list=ends, split_item=2)[0]
        return torch_npu.npu_moe_finalize_routing(out, None, None, None, weights, expanded_rows, chosen)

    def forward_plain(self, x):
        """Hugging Face's Mixtral formulation: a loop over the experts."""
        probs = F.linear(x, self.gate).float().softmax(-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for e in range(self.w13.size(0)):
            token, slot = (chosen == e).nonzero(as_tuple=True)
            if token.numel() == 0:
                continue
            a, b = (x[token] @ self.w13[e]).chunk(2, dim=-1)
            y = (F.silu(a) * b) @ self.w2[e]
            out = out.index_add(0, token, y * weights[token, slot, None])
        return out


def make_model(args, device, dtype):
    torch.manual_seed(0)
    return MoeLayer(args.dim, args.ffn, args.experts, args.top_k).to(device=device, dtype=dtype)


def step(model, opt, x, target, fused):
    opt.zero_grad()
    y = x + model(x, fused)  # the residual around the layer
    loss = F.mse_loss(y.float(), target)
    loss.backward()
    opt.step()
    return loss


def batches(args):
    g = torch.Generator().manual_seed(1)
    mix = torch.randn(args.dim, args.dim, generator=g) / args.dim ** 0.5
    for _ in range(args.steps):
        x = torch.randn(args.tokens, args.dim, generator=g)
        yield x, torch.tanh(x @ mix)  # a smooth target the layer can learn


def train_npu(args, dtype, fused, cpu_model=None, cpu_opt=None):
    """Trains on the NPU; with cpu_model, the CPU twin too. Yields (step, cpu_loss, npu_loss, timer)."""
    model = make_model(args, args.device, dtype)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for i, (x, target) in enumerate(batches(args)):
        cpu_loss = step(cpu_model, cpu_opt, x, target, False).item() if cpu_model is not None else float("nan")
        with StepTimer(args.device) as timer:
            loss = step(model, opt, x.to(args.device, dtype), target.to(args.device), fused)
            loss_value = loss.item()
        yield i, cpu_loss, loss_value, timer


def simulated_step_ms(args, dtype, fused):
    """The mean simulated step after the first (which compiles every kernel's plan), and launches per step."""
    with torch.npu.op_records() as records:
        times = [t.sim_ms for _, _, _, t in train_npu(args, dtype, fused)]
    return sum(times[1:]) / max(len(times) - 1, 1), len(records.records) / len(times)


def run(args):
    if args.dtype == "fp32":  # the Cube keeps fp32 operands, so the fp32 losses compare to a few digits
        torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    dtype = DTYPES[args.dtype]
    cpu_model = make_model(args, "cpu", torch.float32)
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=args.lr)
    print(f"Mixtral-style MoE layer: {args.experts} experts, top-{args.top_k}, dim {args.dim}, ffn {args.ffn}, "
          f"{args.tokens} tokens per step, {args.dtype} on {args.device} ({torch.npu.get_device_name(0)}) against "
          "fp32 on the CPU")
    sim_ms, tokens, rows = 0.0, 0, []
    with torch.npu.op_records() as records:
        for i, cpu_loss, npu_loss, timer in train_npu(args, dtype, True, cpu_model, cpu_opt):
            if i > 0:
                sim_ms, tokens = sim_ms + timer.sim_ms, tokens + args.tokens
            rows.append((cpu_loss, npu_loss))
            print(f"step {i:3d}  loss cpu {cpu_loss:.6f}  npu {npu_loss:.6f}  sim {timer.sim_ms:.3f} ms  "
                  f"wall {timer.wall_s * 1e3:.0f} ms")
    if tokens:
        print(f"throughput: {tokens / (sim_ms / 1e3):.0f} tokens/s on the simulated device")
    moe_kernels = sorted({r.op_type for r in records.records if r.op_type.startswith(("Moe", "GroupedMatmul"))})
    print(f"{len(records.records) / args.steps:.0f} kernels per step; the MoE kernels: " + ", ".join(moe_kernels))
    if args.compare_unfused:
        fused_ms, fused_launches = simulated_step_ms(args, dtype, True)
        plain_ms, plain_launches = simulated_step_ms(args, dtype, False)
        print(f"simulated step with torch_npu's MoE operators {fused_ms:.3f} ms ({fused_launches:.0f} kernels), "
              f"the per-expert loop in plain PyTorch ops on the NPU {plain_ms:.3f} ms ({plain_launches:.0f} kernels, "
              f"{plain_ms / fused_ms:.2f}x)")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--ffn", type=int, default=128)
    parser.add_argument("--experts", type=int, default=8)
    parser.add_argument("--top-k", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="fp32")
    parser.add_argument("--compare-unfused", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.top_k <= args.experts:
        parser.error(f"--top-k must be in [1, --experts = {args.experts}]")
    run(args)


if __name__ == "__main__":
    main()
