"""A LLaMA-style decoder written the way Ascend's model ports write it, trained on the simulated NPU.

    python3 examples/llama_decoder.py [--steps 10] [--dtype fp32|bf16|fp16] [--layers 2] [--dim 128] [--compare-unfused]

The fused LLM operators below are Atlas A2 (910B) operators in torch_npu, so the example runs the
Ascend910B2 preset unless ASCEND_SIM_SOC_VERSION says otherwise (on the 910A preset, fp16 loss scaling
sees the saturation-mode overflow flag that the masked attention raises, and skips steps).

Each block is RMSNorm -> attention with rotary position embeddings -> RMSNorm -> SwiGLU feed-forward,
with tied input / output embeddings. On the NPU the block runs torch_npu's fused operators, one kernel
each way: torch_npu.npu_rms_norm, npu_rotary_mul, npu_fusion_attention (causal mask, BSND layout),
npu_add_rms_norm (the residual add fused into the second norm) and npu_swiglu. The same model with
the same weights also runs as plain PyTorch on the CPU, in fp32, and with --dtype fp16 / bf16 the NPU
trains in mixed precision (autocast, and a GradScaler for fp16). The script prints both losses per
step, the NPU's tokens/s on the host's wall clock and on the simulated device's clock (what the chip
preset would do), and the share of the device time per fused kernel. With --compare-unfused it also
trains the same model on the NPU written in plain PyTorch ops (no torch_npu fused operator) and
prints both simulated step times. The corpus is generated (examples/lm_common.py).
"""
import argparse
import math
import os

os.environ.setdefault("ASCEND_SIM_SOC_VERSION", "Ascend910B2")  # read when torch_npu starts the simulator

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import torch_npu  # noqa: E402
from lm_common import Corpus, StepTimer, windows  # noqa: E402
from torch_npu.npu.op_records import summarize  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
USE_FUSED_OPS = True  # False: the NPU runs the plain PyTorch formulation too (--compare-unfused)


def fused(x):
    """Whether x's computation takes torch_npu's fused operators."""
    return x.device.type == "npu" and USE_FUSED_OPS


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        if fused(x):
            return torch_npu.npu_rms_norm(x, self.weight, self.eps)[0]
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rotary(x, cos, sin):
    """x [batch, seq, heads, head_dim]; cos, sin [1, seq, 1, head_dim] (used in x's dtype)."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    if fused(x):
        return torch_npu.npu_rotary_mul(x, cos, sin)
    return x * cos + rotate_half(x) * sin


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def project(self, x, cos, sin):
        """q, k, v [batch, seq, heads, head_dim] (BSND) of x, q and k with their rotary embedding."""
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.head_dim).unbind(2)
        return rotary(q, cos, sin), rotary(k, cos, sin), v

    def forward(self, x, cos, sin, causal):
        b, s, _ = x.shape
        q, k, v = self.project(x, cos, sin)
        scale = 1 / math.sqrt(self.head_dim)
        if fused(x):
            o = torch_npu.npu_fusion_attention(q, k, v, self.heads, "BSND", atten_mask=causal, scale=scale)[0]
        else:
            scores = (q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2)) * scale
            o = (scores.masked_fill(causal, float("-inf")).softmax(-1) @ v.transpose(1, 2)).transpose(1, 2)
        return self.out(o.reshape(b, s, -1))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        h = self.gate_up(x)
        if fused(x):
            return self.down(torch_npu.npu_swiglu(h, dim=-1))
        gate, up = h.chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.attn_norm, self.attn = RMSNorm(dim), Attention(dim, heads)
        self.ffn_norm, self.ffn = RMSNorm(dim), SwiGLU(dim, hidden)

    def forward(self, x, cos, sin, causal):
        return self.feed_forward(x, self.attn(self.attn_norm(x), cos, sin, causal))

    def feed_forward(self, x, h):
        """The attention output h's residual add, then the block's feed-forward half."""
        if fused(x):  # the residual add fused into the next norm: (norm(x + h), x + h) from one kernel
            normed, _, x = torch_npu.npu_add_rms_norm(x, h.to(x.dtype), self.ffn_norm.weight, self.ffn_norm.eps)
        else:
            x = x + h
            normed = self.ffn_norm(x)
        return x + self.ffn(normed)


class LlamaDecoder(nn.Module):
    def __init__(self, vocab, dim=128, heads=4, layers=2, hidden=None, max_len=512):
        super().__init__()
        hidden = hidden or int(8 * dim / 3 / 16 + 1) * 16  # LLaMA's 2/3 of 4 * dim, rounded up to 16
        self.embed = nn.Embedding(vocab, dim)
        nn.init.normal_(self.embed.weight, std=0.02)  # LLaMA's initialisation (logits through the tied weight)
        self.blocks = nn.ModuleList(Block(dim, heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(dim)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim // heads, 2).float() / (dim // heads)))
        angles = torch.outer(torch.arange(max_len).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, tokens):  # [batch, seq] -> [batch, seq, vocab]
        s = tokens.size(1)
        x = self.embed(tokens)
        cos, sin = self.cos[:s][None, :, None, :], self.sin[:s][None, :, None, :]
        causal = torch.ones(s, s, dtype=torch.bool, device=tokens.device).triu(1)  # True: masked out
        for block in self.blocks:
            x = block(x, cos, sin, causal)
        return self.logits(x)

    def logits(self, x):
        return self.norm(x) @ self.embed.weight.t()  # tied output embedding


def npu_step(model, opt, scaler, inputs, targets, dtype, device):
    """One mixed-precision (or fp32) training step on the NPU; returns the loss and its StepTimer."""
    mixed = dtype != torch.float32
    opt.zero_grad()
    with StepTimer(device) as timer:
        with torch.npu.amp.autocast(enabled=mixed, dtype=dtype if mixed else torch.float16):
            logits = model(inputs.to(device))
            loss = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten().to(device))
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return loss, timer


def simulated_step_ms(args, vocab, batches, use_fused):
    """The mean simulated time of the training steps after the first (which compiles every kernel's plan),
    with or without torch_npu's fused operators, same model and data."""
    global USE_FUSED_OPS
    USE_FUSED_OPS = use_fused
    try:
        torch.manual_seed(0)
        dtype = DTYPES[args.dtype]
        model = LlamaDecoder(vocab, args.dim, args.heads, args.layers).to(args.device)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
        scaler = torch.npu.amp.GradScaler(init_scale=2.0 ** 10, enabled=dtype == torch.float16)
        times = [npu_step(model, opt, scaler, inputs, targets, dtype, args.device)[1].sim_ms
                 for inputs, targets in batches]
        return sum(times[1:]) / max(1, len(times) - 1)
    finally:
        USE_FUSED_OPS = True


def train(args):
    torch.manual_seed(0)
    corpus = Corpus()
    dtype = DTYPES[args.dtype]
    cpu_model = LlamaDecoder(len(corpus.vocab), args.dim, args.heads, args.layers)
    npu_model = LlamaDecoder(len(corpus.vocab), args.dim, args.heads, args.layers)
    npu_model.load_state_dict(cpu_model.state_dict())
    npu_model = npu_model.to(args.device)
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    cpu_opt = torch.optim.AdamW(cpu_model.parameters(), lr=args.lr)
    npu_opt = torch.optim.AdamW(npu_model.parameters(), lr=args.lr)
    # Mixed precision as the porting guide has it: fp32 weights, the step's math in fp16 / bf16
    # under autocast, and for fp16 a dynamic loss scale.
    scaler = torch.npu.amp.GradScaler(init_scale=2.0 ** 10, enabled=dtype == torch.float16)
    data = corpus.batchify(corpus.train, args.batch_size)  # [stream, batch]
    params = sum(p.numel() for p in cpu_model.parameters())
    print(f"LLaMA-style decoder: {args.layers} layers, dim {args.dim}, {args.heads} heads, {params} parameters, "
          f"{args.dtype} on {args.device} ({torch.npu.get_device_name(0)}) against fp32 on the CPU")
    rows, sim_ms, wall_s, tokens = [], 0.0, 0.0, 0
    windows_iter = windows(data, args.seq)
    batches = []
    with torch.npu.op_records() as records:
        for step in range(args.steps):
            inputs, targets = next(windows_iter)
            inputs, targets = inputs.t().contiguous(), targets.t().contiguous()  # [batch, seq]
            batches.append((inputs, targets))
            cpu_opt.zero_grad()
            cpu_loss = F.cross_entropy(cpu_model(inputs).flatten(0, 1), targets.flatten())
            cpu_loss.backward()
            cpu_opt.step()
            loss, timer = npu_step(npu_model, npu_opt, scaler, inputs, targets, dtype, args.device)
            if step > 0:  # the first step compiles every kernel's plan
                sim_ms, wall_s, tokens = sim_ms + timer.sim_ms, wall_s + timer.wall_s, tokens + inputs.numel()
            rows.append((step, cpu_loss.item(), loss.item()))
            print(f"step {step:3d}  loss cpu {cpu_loss.item():.4f}  npu {loss.item():.4f}  "
                  f"sim {timer.sim_ms:.2f} ms  wall {timer.wall_s * 1e3:.0f} ms")
    if tokens:
        print(f"throughput: {tokens / wall_s:.0f} tokens/s on this host, {tokens / (sim_ms / 1e3):.0f} tokens/s "
              "on the simulated device")
    fused = ("RmsNorm", "AddRmsNorm", "RotaryMul", "FlashAttentionScore", "SwiGlu")
    share = {op: total_share for op, _, _, total_share in summarize(records.records)
             if any(op.startswith(f) for f in fused)}
    print("device time in the fused kernels (both directions): " +
          ", ".join(f"{op} {s:.1%}" for op, s in sorted(share.items())))
    if args.compare_unfused:
        fused_ms = simulated_step_ms(args, len(corpus.vocab), batches, True)
        plain_ms = simulated_step_ms(args, len(corpus.vocab), batches, False)
        print(f"simulated step with torch_npu's fused operators {fused_ms:.3f} ms, the same model in plain "
              f"PyTorch ops on the NPU {plain_ms:.3f} ms ({plain_ms / fused_ms:.2f}x)")
    return rows, records.records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    parser.add_argument("--compare-unfused", action="store_true",
                        help="also time the same model without torch_npu's fused operators on the NPU")
    args = parser.parse_args(argv)
    if args.compare_unfused and args.steps < 2:
        parser.error("--compare-unfused times the steps after the first (which compiles the kernels): "
                     "use --steps 2 or more")
    return train(args)


if __name__ == "__main__":
    main()
