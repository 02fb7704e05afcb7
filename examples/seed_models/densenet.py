"""DenseNet-121 (torchvision) trained on synthetic images on the simulated NPU, against the CPU.

    /usr/bin/python3 examples/seed_models/densenet.py [--steps 3] [--batch-size 2] [--image-size 64]

torchvision.models.densenet121 unchanged (dense blocks of BN-ReLU-1x1-BN-ReLU-3x3
convolutions whose outputs are concatenated, transitions with average pooling),
10 classes, on small images. The data: each class is a fixed random colour
pattern, plus noise. Per step: loss, images/s and simulated NPU time; then the
CPU run of the same weights and data and the first-step loss comparison.
"""
import sys

import torch
import torch.nn.functional as F
import torchvision

from seed_common import parse_args, run


def make_batches(steps, batch_size, image_size, classes=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    patterns = torch.rand(classes, 3, image_size, image_size, generator=g)
    batches = []
    for _ in range(steps):
        labels = torch.randint(0, classes, (batch_size,), generator=g)
        images = patterns[labels] + 0.3 * torch.randn(batch_size, 3, image_size, image_size, generator=g)
        batches.append((images, labels))
    return batches


def loss_fn(model, batch, device):
    images, labels = (t.to(device) for t in batch)
    return F.cross_entropy(model(images), labels)


def evaluate(model, batch, device):
    images, labels = (t.to(device) for t in batch)
    accuracy = (model(images).argmax(1) == labels).float().mean().item()
    return f"accuracy on the first batch {accuracy:.2f}"


def main(argv=None):
    args = parse_args(__doc__.splitlines()[0], argv, lr=0.01)
    torch.manual_seed(0)
    model = torchvision.models.densenet121(num_classes=10)
    batches = make_batches(args.steps, args.batch_size, args.image_size)
    return run("densenet121", model, batches, loss_fn, args, args.batch_size, evaluate=evaluate)


if __name__ == "__main__":
    sys.exit(0 if main().ok else 1)
