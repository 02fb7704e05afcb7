"""A BERT-base-shaped encoder's training step on the simulated NPU, with its simulated step time.

    /usr/bin/python3 examples/bert_step.py                 # the current chip preset
    /usr/bin/python3 examples/bert_step.py --soc both      # Ascend910A and Ascend910B2, one process each

BERT-base shape: 12 layers, hidden 768, 12 heads, feed-forward 3072, GELU,
post-norm (as BERT), word + position + token-type embeddings, a masked-LM head
tied to the word embedding; sequence 128, batch 2, AdamW. Each step prints the
loss, host wall time and simulated NPU time; the summary gives the simulated
step time and sentences/s of the preset (each chip with its default precision
mode: Ascend910A rounds fp32 matmul operands to fp16 on the Cube, Ascend910B2
keeps fp32). The first step is excluded from the mean (it "compiles" every op
shape). `--layers`, `--hidden` ... make smaller models for quick runs.
"""
import argparse
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)

PRESETS = ("Ascend910A", "Ascend910B2")


class BertEncoderMLM(nn.Module):
    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ff=3072, max_len=512, dropout=0.1):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_len, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.embed_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.drop = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(hidden, heads, ff, dropout, activation="gelu", batch_first=True,
                                           layer_norm_eps=1e-12)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.transform = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden, eps=1e-12))
        self.decoder = nn.Linear(hidden, vocab)
        self.decoder.weight = self.word.weight  # tied, as BERT's MLM head
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):  # BERT's initialisation: N(0, 0.02) weights, zero biases
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, tokens, token_types, padding):
        positions = torch.arange(tokens.size(1), device=tokens.device).unsqueeze(0)
        h = self.word(tokens) + self.position(positions) + self.token_type(token_types)
        h = self.encoder(self.drop(self.embed_norm(h)), src_key_padding_mask=padding)
        return self.decoder(self.transform(h))


def run(args):
    device = torch.device(args.device)
    torch.npu.set_device(device)
    torch.manual_seed(0)
    model = BertEncoderMLM(args.vocab, args.hidden, args.layers, args.heads, 4 * args.hidden).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    params = sum(p.numel() for p in model.parameters())
    soc = os.environ.get("ASCEND_SIM_SOC_VERSION", "Ascend910A")
    print(f"{soc}: BERT encoder {args.layers} layers, hidden {args.hidden}, {args.heads} heads, {params / 1e6:.1f} M "
          f"parameters; batch {args.batch_size} x {args.seq} tokens; precision mode "
          f"{torch.npu.get_option('ACL_PRECISION_MODE')}", flush=True)
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, args.vocab, (args.batch_size, args.seq), generator=g).to(device)
    token_types = (torch.arange(args.seq) >= args.seq // 2).long().expand(args.batch_size, -1).contiguous().to(device)
    padding = torch.zeros(args.batch_size, args.seq, dtype=torch.bool)
    padding[-1, args.seq - args.seq // 8:] = True  # the last sentence is shorter
    padding = padding.to(device)
    labels = torch.full((args.batch_size, args.seq), -100, dtype=torch.long)
    masked = torch.rand(args.batch_size, args.seq, generator=g) < 0.15
    labels[masked] = torch.randint(0, args.vocab, (int(masked.sum()),), generator=g)
    labels = labels.to(device)
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    sims = []
    for step in range(args.steps):
        t0 = time.perf_counter()
        start.record()
        logits = model(tokens, token_types, padding)
        loss = nn.functional.cross_entropy(logits.reshape(-1, args.vocab), labels.reshape(-1), ignore_index=-100)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        end.record()
        loss_value = loss.item()
        end.synchronize()
        sim = start.elapsed_time(end)
        sims.append(sim)
        print(f"  step {step}  loss {loss_value:.4f}  host {time.perf_counter() - t0:6.2f} s  sim {sim:8.2f} ms",
              flush=True)
    steady = sims[1:] or sims
    mean = sum(steady) / len(steady)
    print(f"{soc}: simulated training step {mean:.2f} ms = {args.batch_size / (mean / 1e3):.1f} sentences/s "
          f"(batch {args.batch_size}, sequence {args.seq})", flush=True)
    return mean


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soc", default="current", choices=("current", "both") + PRESETS)
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--vocab", type=int, default=30522)
    args = parser.parse_args(argv)
    if args.soc == "current":
        return run(args)
    socs = PRESETS if args.soc == "both" else (args.soc,)
    for soc in socs:  # the preset is chosen when the simulator starts: one process per chip
        env = dict(os.environ, ASCEND_SIM_SOC_VERSION=soc)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--soc", "current", *_without_soc(argv)],
                       env=env, check=True)
    return None


def _without_soc(argv):
    args = list(argv if argv is not None else sys.argv[1:])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--soc":
            skip = True
        elif not a.startswith("--soc="):
            out.append(a)
    return out


if __name__ == "__main__":
    main()
