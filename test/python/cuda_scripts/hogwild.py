"""Hogwild training in the style of the mnist_hogwild example with --cuda: the model is moved to
the GPU and shared with worker processes."""
import torch
import torch.nn as nn

if __name__ == "__main__":
    model = nn.Linear(4, 2).to(torch.device("cuda"))
    model.share_memory()  # gradients are allocated lazily, so the buffers will be shared
    print("shared")
