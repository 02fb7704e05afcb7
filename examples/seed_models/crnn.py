"""CRNN text recogniser (CNN + bidirectional LSTM + CTC) trained on synthetic text lines, NPU against CPU.

    /usr/bin/python3 examples/seed_models/crnn.py [--steps 3] [--batch-size 4] [--image-size 64]

Shi, Bai and Yao's CRNN at a smaller width: a VGG-style CNN (3x3 convolutions,
BatchNorm in the deeper ones, 2x2 then 2x1 max-pooling) turns a 32-pixel-high
grey line into a sequence of column features, two bidirectional LSTM layers
read it, a linear layer gives per-column log-probabilities over the alphabet
plus the CTC blank, and F.ctc_loss trains it against label sequences of
different lengths. The data: each of the 10 characters is a fixed random 32x8
glyph; a line draws 2 to 6 of them left to right on a noisy background
(--image-size is the line's width). Greedy CTC decoding in evaluation.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from seed_common import parse_args, run

CHARS = 10  # the alphabet; class 0 is the CTC blank
HEIGHT, GLYPH_WIDTH = 32, 8


def conv(cin, cout, bn=False):
    layers = [nn.Conv2d(cin, cout, 3, padding=1)] + ([nn.BatchNorm2d(cout)] if bn else []) + [nn.ReLU(inplace=True)]
    return layers


class CRNN(nn.Module):
    def __init__(self, classes=CHARS + 1, width=16, hidden=32):
        super().__init__()
        w = width
        self.cnn = nn.Sequential(
            *conv(1, w), nn.MaxPool2d(2, 2),                                        # 16 x W/2
            *conv(w, 2 * w), nn.MaxPool2d(2, 2),                                    # 8 x W/4
            *conv(2 * w, 4 * w, bn=True), *conv(4 * w, 4 * w), nn.MaxPool2d((2, 1), (2, 1)),  # 4 x W/4
            *conv(4 * w, 8 * w, bn=True), *conv(8 * w, 8 * w, bn=True), nn.MaxPool2d((2, 1), (2, 1)),  # 2 x W/4
            nn.Conv2d(8 * w, 8 * w, (2, 1)), nn.BatchNorm2d(8 * w), nn.ReLU(inplace=True))  # 1 x W/4
        self.rnn = nn.LSTM(8 * w, hidden, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, images):
        features = self.cnn(images).squeeze(2).permute(2, 0, 1)  # [T, N, C], one step per column
        out, _ = self.rnn(features)
        return self.fc(out).log_softmax(2)  # [T, N, classes]


def make_batches(steps, batch_size, width, seed=0):
    """(images [N, 1, 32, width], concatenated labels, label lengths) per step."""
    g = torch.Generator().manual_seed(seed)
    glyphs = (torch.rand(CHARS, HEIGHT, GLYPH_WIDTH, generator=g) > 0.5).float()
    slots = width // GLYPH_WIDTH
    batches = []
    for _ in range(steps):
        images = 0.2 * torch.randn(batch_size, 1, HEIGHT, width, generator=g)
        labels, lengths = [], []
        for i in range(batch_size):
            n = int(torch.randint(2, min(6, slots) + 1, (1,), generator=g))
            chars = torch.randint(0, CHARS, (n,), generator=g)
            for k, c in enumerate(chars.tolist()):
                images[i, 0, :, k * GLYPH_WIDTH:(k + 1) * GLYPH_WIDTH] += glyphs[c]
            labels.append(chars + 1)
            lengths.append(n)
        batches.append((images, torch.cat(labels), torch.tensor(lengths)))
    return batches


def loss_fn(model, batch, device):
    images, labels, lengths = (t.to(device) for t in batch)
    log_probs = model(images)
    input_lengths = torch.full((images.size(0),), log_probs.size(0), dtype=torch.long, device=device)
    return F.ctc_loss(log_probs, labels, input_lengths, lengths, blank=0, zero_infinity=True)


def greedy_decode(log_probs):
    """Best path: the argmax per column, repeats merged, blanks dropped."""
    best = log_probs.argmax(2).t().cpu()
    texts = []
    for row in best.tolist():
        texts.append([c for i, c in enumerate(row) if c != 0 and (i == 0 or c != row[i - 1])])
    return texts


def evaluate(model, batch, device):
    images, labels, lengths = batch
    decoded = greedy_decode(model(images.to(device)))
    truth = [t.tolist() for t in labels.split(lengths.tolist())]
    exact = sum(d == t for d, t in zip(decoded, truth))
    return f"{exact}/{len(truth)} lines read exactly; first: {decoded[0]} (truth {truth[0]})"


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv, batch_size=4, lr=0.05)
    torch.manual_seed(0)
    model = CRNN()
    batches = make_batches(args.steps, args.batch_size, args.image_size)
    return run("crnn", model, batches, loss_fn, args, args.batch_size, evaluate=evaluate)


if __name__ == "__main__":
    sys.exit(0 if main().ok else 1)
