"""An LSTM language model trained on the simulated NPU (PyTorch's word_language_model, LSTM variant).

    /usr/bin/python3 examples/lstm_lm.py [--steps 30] [--layers 2] [--hidden 128]

Embedding, a multi-layer nn.LSTM (dropout between layers) whose hidden state is
carried across windows (detached: truncated BPTT), an output head tied to the
embedding; AdamW with gradient clipping. Prints loss, tokens/s and the
simulated NPU time per step. The corpus is generated (examples/lm_common.py).
"""
import argparse

import torch
import torch.nn as nn
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)

from lm_common import Corpus, add_common_args, train_language_model


class LSTMLM(nn.Module):
    def __init__(self, vocab, hidden=128, layers=2, dropout=0.2):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(hidden, hidden, layers, dropout=dropout)
        self.head = nn.Linear(hidden, vocab)
        self.head.weight = self.embed.weight  # tied
        self.state = None
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)  # as word_language_model
        nn.init.zeros_(self.head.bias)

    def forward(self, tokens):  # [seq, batch] -> [seq, batch, vocab]
        if self.state is not None:  # truncated BPTT: keep the values, drop the graph
            self.state = tuple(s.detach() for s in self.state)
        out, self.state = self.lstm(self.drop(self.embed(tokens)), self.state)
        return self.head(self.drop(out))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(parser)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.2)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    corpus = Corpus()
    model = LSTMLM(len(corpus.vocab), args.hidden, args.layers, args.dropout).to(args.device)
    params = sum(p.numel() for p in model.parameters())
    print(f"LSTM LM: {args.layers} layers, hidden {args.hidden}, {params} parameters, vocab {len(corpus.vocab)}, "
          f"batch {args.batch_size} x {args.bptt} tokens on {args.device}")
    return train_language_model(model, corpus, args, model)


if __name__ == "__main__":
    main()
