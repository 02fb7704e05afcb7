"""Greedy generation with a KV cache on the simulated NPU, the way Ascend's inference ports write it.

    python3 examples/llama_generate.py [--new-tokens 24] [--dtype fp32|bf16|fp16] [--train-steps 150]

The model is examples/llama_decoder.py's LLaMA-style decoder, trained for a few steps on the CPU so
that it has something to say. A batch of prompts of different lengths is then completed token by
token, as an inference server does it (q and k take their rotary embedding in place, query and key in
one torch_npu.npu_apply_rotary_pos_emb launch):
  - the prompt ("prefill"): every position at once through torch_npu.npu_prompt_flash_attention with a
    causal mask and actual_seq_lengths (each prompt's own length), which also fills each layer's KV cache;
  - each new token ("decode"): one position per sequence through torch_npu.npu_incre_flash_attention
    against the cache, with actual_seq_lengths telling each sequence's filled length, so the kernel
    reads only that much of the cache (the cache is allocated for the longest sequence).
The same model generates on the CPU in plain PyTorch, without a cache (the whole sequence again for
each token); the script compares the tokens (identical in fp32) and the logits, and prints the
simulated device time of the prefill and of the decode steps, with tokens/s on the simulated device's
clock — a decode step's time grows with the cache it reads, not with the cache it allocated.
"""
import argparse
import math
import os

os.environ.setdefault("ASCEND_SIM_SOC_VERSION", "Ascend910B2")  # read when torch_npu starts the simulator

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import torch_npu  # noqa: E402
from llama_decoder import DTYPES, LlamaDecoder  # noqa: E402
from lm_common import Corpus, StepTimer, windows  # noqa: E402


def train_on_cpu(model, corpus, steps, seq=32, batch=8):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    stream = corpus.batchify(corpus.train, batch)
    data = windows(stream, seq)
    for _ in range(steps):
        try:
            inputs, targets = next(data)
        except StopIteration:  # another epoch
            data = windows(stream, seq)
            inputs, targets = next(data)
        loss = F.cross_entropy(model(inputs.t()).flatten(0, 1), targets.t().flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item() if steps else float("nan")


class CachedDecoder:
    """Runs a LlamaDecoder's weights for inference on the NPU with one KV cache per layer
    ([batch, max_len, dim] each, BSH: positions past a sequence's length are never read)."""

    def __init__(self, model, batch, max_len):
        self.model = model
        attn = model.blocks[0].attn
        self.heads, self.head_dim = attn.heads, attn.head_dim
        dim = self.heads * self.head_dim
        weight = model.embed.weight
        self.cache = [(weight.new_zeros(batch, max_len, dim), weight.new_zeros(batch, max_len, dim))
                      for _ in model.blocks]

    @staticmethod
    def _qkv(block, h, cos, sin):
        """The block's q, k, v of h in BSH, q and k rotated in place by one inference rotary kernel
        (torch_npu.npu_apply_rotary_pos_emb, BSND: cos/sin [B or 1, S, 1, head_dim])."""
        attn = block.attn
        b, s, _ = h.shape
        q, k, v = (t.contiguous() for t in attn.qkv(h).view(b, s, 3, attn.heads, attn.head_dim).unbind(2))
        torch_npu.npu_apply_rotary_pos_emb(q, k, cos.to(q.dtype), sin.to(q.dtype), "BSND")
        return (t.reshape(b, s, -1) for t in (q, k, v))

    def prefill(self, tokens, lengths):
        """tokens [B, P] (each row valid up to its length) -> the logits after each prompt [B, vocab]."""
        b, s = tokens.shape
        m = self.model
        x = m.embed(tokens)
        cos, sin = m.cos[:s][None, :, None, :], m.sin[:s][None, :, None, :]
        causal = torch.ones(s, s, dtype=torch.bool, device=tokens.device).triu(1)  # True: masked out
        for block, (k_cache, v_cache) in zip(m.blocks, self.cache):
            q, k, v = self._qkv(block, block.attn_norm(x), cos, sin)
            k_cache[:, :s], v_cache[:, :s] = k, v
            o = torch_npu.npu_prompt_flash_attention(
                q, k, v, atten_mask=causal, actual_seq_lengths=lengths, num_heads=self.heads,
                scale_value=1 / math.sqrt(self.head_dim), input_layout="BSH")
            x = block.feed_forward(x, block.attn.out(o))
        last = torch.tensor([n - 1 for n in lengths], device=tokens.device)
        return self.model.logits(x[torch.arange(b, device=tokens.device), last])

    def decode(self, token, positions):
        """token [B] at positions[b] of each sequence -> the logits of the next token [B, vocab]."""
        b = token.numel()
        m = self.model
        pos = torch.tensor(positions, device=token.device)
        rows = torch.arange(b, device=token.device)
        x = m.embed(token).unsqueeze(1)  # [B, 1, dim]
        cos, sin = m.cos[pos][:, None, None, :], m.sin[pos][:, None, None, :]  # each sequence its own position
        filled = [p + 1 for p in positions]
        for block, (k_cache, v_cache) in zip(m.blocks, self.cache):
            q, k, v = self._qkv(block, block.attn_norm(x), cos, sin)
            k_cache[rows, pos], v_cache[rows, pos] = k.squeeze(1), v.squeeze(1)
            o = torch_npu.npu_incre_flash_attention(
                q, k_cache, v_cache, actual_seq_lengths=filled, num_heads=self.heads,
                scale_value=1 / math.sqrt(self.head_dim), input_layout="BSH")
            x = block.feed_forward(x, block.attn.out(o))
        return self.model.logits(x[:, 0])


def cache_read_cost(runner, device, fills):
    """Simulated time of one decode attention over layer 0's cache with every sequence filled to each of
    `fills` positions (the kernel's own time, from the op records)."""
    k_cache, v_cache = runner.cache[0]
    batch = k_cache.size(0)
    query = k_cache.new_zeros(batch, 1, k_cache.size(2))
    cost = {}
    for filled in fills:
        with torch.npu.op_records() as rec:
            torch_npu.npu_incre_flash_attention(query, k_cache, v_cache, actual_seq_lengths=[filled] * batch,
                                                num_heads=runner.heads, input_layout="BSH")
            torch.npu.synchronize(device)
        cost[filled] = sum(r.duration_us for r in rec.records if r.op_type == "IncreFlashAttention")
    return cost


def generate_on_cpu(model, prompts, new_tokens):
    """Plain PyTorch, no cache: the whole sequence again for every token."""
    out, logits = [], []
    with torch.no_grad():
        for prompt in prompts:
            seq, steps = list(prompt), []
            for _ in range(new_tokens):
                step_logits = model(torch.tensor([seq]))[0, -1]
                steps.append(step_logits)
                seq.append(int(step_logits.argmax()))
            out.append(seq[len(prompt):])
            logits.append(torch.stack(steps))
    return out, logits


def generate(args):
    torch.manual_seed(0)
    corpus = Corpus()
    model = LlamaDecoder(len(corpus.vocab), args.dim, args.heads, args.layers, max_len=args.max_len)
    loss = train_on_cpu(model, corpus, args.train_steps)
    model.eval()
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    dtype = DTYPES[args.dtype]
    npu_model = LlamaDecoder(len(corpus.vocab), args.dim, args.heads, args.layers, max_len=args.max_len)
    npu_model.load_state_dict(model.state_dict())
    npu_model = npu_model.to(args.device, dtype).eval()
    lengths = [args.prompt_len - 3 * i for i in range(args.batch_size)]  # prompts of different lengths
    assert min(lengths) > 0, "--prompt-len is too short for the batch"
    prompts = [corpus.valid[7 * i: 7 * i + n].tolist() for i, n in enumerate(lengths)]
    print(f"LLaMA-style decoder ({args.layers} layers, dim {args.dim}, trained {args.train_steps} CPU steps, "
          f"loss {loss:.3f}); {args.batch_size} prompts of {lengths} tokens, {args.new_tokens} new tokens each, "
          f"{args.dtype} on {args.device} ({torch.npu.get_device_name(0)}); KV cache of {args.max_len} positions")

    device = torch.device(args.device)
    padded = torch.zeros(args.batch_size, max(lengths), dtype=torch.long)
    for b, p in enumerate(prompts):
        padded[b, :len(p)] = torch.tensor(p)
    runner = CachedDecoder(npu_model, args.batch_size, args.max_len)
    generated, npu_logits, step_ms = [[] for _ in prompts], [[] for _ in prompts], []
    with torch.no_grad():
        with StepTimer(device) as prefill_timer:
            logits = runner.prefill(padded.to(device), lengths)
        positions = list(lengths)
        for _ in range(args.new_tokens):
            token = logits.float().argmax(-1)
            for b in range(args.batch_size):
                generated[b].append(int(token[b]))
                npu_logits[b].append(logits[b].float().cpu())
            if len(generated[0]) == args.new_tokens:
                break
            with StepTimer(device) as timer:
                logits = runner.decode(token, positions)
            step_ms.append(timer.sim_ms)
            positions = [p + 1 for p in positions]

    read_us = cache_read_cost(runner, device, [min(lengths), args.max_len])
    cpu_tokens, cpu_logits = generate_on_cpu(model, prompts, args.new_tokens)
    agree = sum(a == c for g, cg in zip(generated, cpu_tokens) for a, c in zip(g, cg))
    total = args.batch_size * args.new_tokens
    diff = max(float((torch.stack(n) - c).abs().max()) for n, c in zip(npu_logits, cpu_logits))
    for b in range(args.batch_size):
        words = " ".join(corpus.vocab[t] for t in generated[b])
        print(f"  prompt {b} ({lengths[b]} tokens) -> {words}")
    print(f"tokens equal to plain PyTorch on the CPU: {agree} of {total}; largest logit difference {diff:.2e}")
    decode_ms = sum(step_ms)
    print(f"simulated device time: prefill {prefill_timer.sim_ms:.3f} ms "
          f"({sum(lengths) / (prefill_timer.sim_ms / 1e3):.0f} prompt tokens/s), "
          f"{len(step_ms)} decode steps {decode_ms:.3f} ms ({len(step_ms) * args.batch_size / (decode_ms / 1e3):.0f} "
          f"generated tokens/s); first decode step {step_ms[0]:.3f} ms, last {step_ms[-1]:.3f} ms")
    print("one IncreFlashAttention over the cache of " + ", ".join(
        f"{filled} filled positions: {us:.2f} us" for filled, us in read_us.items()) +
        " (it reads the filled rows only)")
    return {"tokens": generated, "cpu_tokens": cpu_tokens, "agree": agree, "total": total, "logit_diff": diff,
            "prefill_ms": prefill_timer.sim_ms, "step_ms": step_ms, "cache_read_us": read_us}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--prompt-len", type=int, default=16)
    parser.add_argument("--new-tokens", type=int, default=24)
    parser.add_argument("--max-len", type=int, default=256)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--train-steps", type=int, default=150)
    parser.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    args = parser.parse_args(argv)
    if args.new_tokens < 2:
        parser.error("--new-tokens must be at least 2 (one from the prompt, then decode steps)")
    if args.prompt_len + args.new_tokens > args.max_len:
        parser.error(f"--prompt-len {args.prompt_len} + --new-tokens {args.new_tokens} exceed the KV cache's "
                     f"--max-len {args.max_len}")
    return generate(args)


if __name__ == "__main__":
    main()
