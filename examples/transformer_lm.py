"""A causal Transformer language model trained on the simulated NPU.

    /usr/bin/python3 examples/transformer_lm.py [--steps 30] [--layers 2] [--d-model 128]

Embedding + sinusoidal positions, a causal-masked nn.TransformerEncoder (GELU,
pre-norm), a final LayerNorm and an output head tied to the embedding; AdamW
with gradient clipping. Prints loss, tokens/s (host wall clock) and the
simulated NPU time per step. The corpus is generated (examples/lm_common.py).
"""
import argparse
import math

import torch
import torch.nn as nn
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)

from lm_common import Corpus, add_common_args, train_language_model


class TransformerLM(nn.Module):
    def __init__(self, vocab, d_model=128, heads=4, layers=2, ff=512, dropout=0.1, max_len=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div)
        pe[:, 0, 1::2] = torch.cos(position * div)
        self.register_buffer("positions", pe)
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout, activation="gelu", norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        # tied (kept tied on the NPU: Note [Parameters keep their identity across devices])
        self.head.weight = self.embed.weight
        self.scale = math.sqrt(d_model)
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)  # as word_language_model
        nn.init.zeros_(self.head.bias)

    def forward(self, tokens):  # [seq, batch] -> [seq, batch, vocab]
        seq = tokens.size(0)
        causal = torch.triu(torch.full((seq, seq), float("-inf"), device=tokens.device), diagonal=1)
        h = self.embed(tokens) * self.scale + self.positions[:seq]
        return self.head(self.norm(self.encoder(h, mask=causal)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(parser)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.1)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    corpus = Corpus()
    model = TransformerLM(len(corpus.vocab), args.d_model, args.heads, args.layers, 4 * args.d_model,
                          args.dropout).to(args.device)
    params = sum(p.numel() for p in model.parameters())
    print(f"Transformer LM: {args.layers} layers, d_model {args.d_model}, {args.heads} heads, {params} parameters, "
          f"vocab {len(corpus.vocab)}, batch {args.batch_size} x {args.bptt} tokens on {args.device}")
    return train_language_model(model, corpus, args, model)


if __name__ == "__main__":
    main()
