"""Shared pieces of the language-model examples: a generated corpus, batching, and a timed training loop.

The corpus is generated (nothing is downloaded): sentences from a small
English-like grammar over a vocabulary of about 150 words, seeded, so a model
can learn its structure (the loss falls from ln(vocab) ~ 5 towards ~2).
Batches follow PyTorch's word_language_model example: the token stream is
cut into `batch` columns and read in windows of `bptt` tokens.
"""
import random
import time

import torch

_WORDS = {
    "det": "the a every no some this that one".split(),
    "adj": ("small large quick slow bright dark quiet loud warm cold old young green red blue simple "
            "strange gentle brave careful").split(),
    "noun": ("device tensor kernel stream event model layer engineer chip core queue buffer format "
             "graph cluster server process thread script network").split(),
    "verb": ("moves copies reads writes trains runs waits builds checks sends finds keeps loads "
             "measures schedules").split(),
    "adv": "quickly slowly carefully often rarely twice again together".split(),
    "prep": "on into from with under over near behind".split(),
}
_RULES = [
    ["det", "adj", "noun", "verb", "det", "noun", "."],
    ["det", "noun", "verb", "adv", "."],
    ["det", "noun", "verb", "det", "adj", "noun", "prep", "det", "noun", "."],
    ["det", "adj", "adj", "noun", "verb", "prep", "det", "noun", "adv", "."],
]


def generate_corpus(sentences=4000, seed=0):
    """A list of word tokens."""
    rng = random.Random(seed)
    tokens = []
    for _ in range(sentences):
        for slot in rng.choice(_RULES):
            tokens.append(slot if slot == "." else rng.choice(_WORDS[slot]))
    return tokens


class Corpus:
    def __init__(self, sentences=4000, seed=0):
        words = generate_corpus(sentences, seed)
        self.vocab = sorted(set(words))
        index = {w: i for i, w in enumerate(self.vocab)}
        ids = torch.tensor([index[w] for w in words], dtype=torch.long)
        split = int(len(ids) * 0.9)
        self.train, self.valid = ids[:split], ids[split:]

    def batchify(self, ids, batch):
        """[steps, batch] columns of the token stream (seq-first, as word_language_model)."""
        n = ids.numel() // batch
        return ids[: n * batch].view(batch, n).t().contiguous()


def windows(data, bptt):
    """(input, target) windows of `bptt` rows; the target is the next token."""
    for i in range(0, data.size(0) - 1, bptt):
        length = min(bptt, data.size(0) - 1 - i)
        yield data[i:i + length], data[i + 1:i + 1 + length]


class StepTimer:
    """Host wall-clock and simulated NPU time of a training step (NPU events)."""

    def __init__(self, device):
        self.on_npu = torch.device(device).type == "npu"
        if self.on_npu:
            self.start, self.end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)

    def __enter__(self):
        self.t0 = time.perf_counter()
        if self.on_npu:
            self.start.record()
        return self

    def __exit__(self, *exc):
        if self.on_npu:
            self.end.record()
            self.end.synchronize()
            self.sim_ms = self.start.elapsed_time(self.end)
        else:
            self.sim_ms = float("nan")
        self.wall_s = time.perf_counter() - self.t0
        return False


def add_common_args(parser):
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--steps", type=int, default=30, help="training steps (windows of --bptt tokens)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--bptt", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--clip", type=float, default=0.5, help="gradient clipping (max norm)")
    parser.add_argument("--precision-mode", default="must_keep_origin_dtype",
                        choices=["allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp16"])
    parser.add_argument("--print-every", type=int, default=5)


def train_language_model(model, corpus, args, forward):
    """AdamW + gradient clipping on windows of the corpus; prints loss, tokens/s and simulated ms per step.

    forward(inputs) -> logits [bptt, batch, vocab]. Returns the per-step losses.
    """
    device = torch.device(args.device)
    if device.type == "npu":
        torch.npu.set_device(device)
        torch.npu.set_option({"ACL_PRECISION_MODE": args.precision_mode})
    data = corpus.batchify(corpus.train, args.batch_size).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    criterion = torch.nn.CrossEntropyLoss()
    losses, sim_total, wall_total, tokens_total = [], 0.0, 0.0, 0
    model.train()
    step = 0
    while step < args.steps:
        for inputs, targets in windows(data, args.bptt):
            if step >= args.steps:
                break
            with StepTimer(device) as timer:
                logits = forward(inputs)
                loss = criterion(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
                optimizer.step()
                loss_value = loss.item()
            losses.append(loss_value)
            tokens = inputs.numel()
            if step >= 1:  # step 0 includes the first-compile (plan-cache) work
                sim_total += timer.sim_ms
                wall_total += timer.wall_s
                tokens_total += tokens
            if step % args.print_every == 0 or step == args.steps - 1:
                print(f"step {step:>4}  loss {loss_value:7.4f}  {tokens / timer.wall_s:9.1f} tokens/s  "
                      f"sim {timer.sim_ms:8.3f} ms/step", flush=True)
            step += 1
    if tokens_total:
        print(f"mean over steps 1..{args.steps - 1}: {tokens_total / wall_total:.1f} tokens/s (host), "
              f"{sim_total / (args.steps - 1):.3f} ms simulated per step, "
              f"{tokens_total / (sim_total / 1e3):.0f} tokens/s simulated")
    return losses
