"""A CUDA-only API in a training loop: NVTX ranges around the step."""
import torch


def main():
    model = torch.nn.Linear(4, 4).cuda()
    torch.cuda.nvtx.range_push("step")
    model(torch.randn(2, 4).cuda()).sum().backward()
    torch.cuda.nvtx.range_pop()
    print("done")


if __name__ == "__main__":
    main()
