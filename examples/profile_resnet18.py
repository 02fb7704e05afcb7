"""Profile one resnet18 training step on the simulated NPU and write the porting guide's E2E profile
(op_summary, op_statistic, chrome trace) and the HTML report into a directory.

    /usr/bin/python3 examples/profile_resnet18.py --out ./resnet18_profile
    chromium --headless --screenshot=report.png --window-size=1400,1100 ./resnet18_profile/report_0.html

Prints the profiler's table of the step (sorted by simulated NPU time) and the files written.
"""
import argparse

import torch
import torch_npu  # noqa: F401
import torchvision


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="./resnet18_profile")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--image-size", type=int, default=112)
    args = parser.parse_args(argv)

    torch.npu.set_device("npu:0")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(args.batch_size, 3, args.image_size, args.image_size)
    y = torch.randint(0, 10, (args.batch_size,))

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.npu(non_blocking=True)), y.npu())
        loss.backward()
        optimizer.step()
        return loss

    step()  # warm-up: formats, plans and the caching allocator settle
    with torch.npu.profile(profiler_result_path=args.out) as prof:
        with torch.autograd.profiler.record_function("train_step"):
            loss = step()
    print(prof._profiler.key_averages().table(sort_by="npu_time_total", row_limit=12))
    print(f"loss {loss.item():.4f}; {len(prof.records)} device tasks, "
          f"{sum(r.duration_us for r in prof.records) / 1e3:.3f} ms simulated NPU time")
    for name, path in prof.files.items():
        print(f"{name}: {path}")


if __name__ == "__main__":
    main()
