"""Train a torchvision model on fake data on the simulated NPU, the way the porting guide ports a script.

    /usr/bin/python3 examples/train_torchvision.py --arch resnet18 --epochs 1 --batch-size 8 --image-size 64

Per step: loss, top-1 accuracy of the batch, images/s (host wall clock) and the
simulated NPU device time of the step; at the end the ops that took the most
simulated time. Data: torchvision.datasets.FakeData (nothing is downloaded).
"""
import argparse
import time

import torch
import torch_npu  # noqa: F401  (installs torch.npu and the "npu" device)
import torchvision


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="resnet18", help="a torchvision.models constructor name")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps-per-epoch", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--image-size", type=int, default=64)
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--device", default="npu:0")
    parser.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.npu.set_device(args.device)
    torch.manual_seed(0)
    dataset = torchvision.datasets.FakeData(
        size=args.steps_per_epoch * args.batch_size, image_size=(3, args.image_size, args.image_size),
        num_classes=args.num_classes, transform=torchvision.transforms.ToTensor())
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True, pin_memory=False,
                                         drop_last=True)
    model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes).to(args.device)
    criterion = torch.nn.CrossEntropyLoss().to(args.device)
    if args.optimizer == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * 0.02)
    print(f"{args.arch} on {args.device} ({torch.npu.get_device_name()}), batch {args.batch_size}, "
          f"{args.image_size}x{args.image_size}, precision mode {torch.npu.get_option('ACL_PRECISION_MODE')}")
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    with torch.npu.op_records() as records:
        for epoch in range(args.epochs):
            model.train()
            for step, (images, target) in enumerate(loader):
                t0 = time.perf_counter()
                start.record()
                images = images.to(args.device, non_blocking=True)
                target = target.to(torch.int32).to(args.device, non_blocking=True)
                output = model(images)
                loss = criterion(output, target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                end.record()
                acc = (output.argmax(dim=1) == target).float().mean().item()  # waits for the device
                wall = time.perf_counter() - t0
                print(f"epoch {epoch} step {step:>3}/{len(loader)}  loss {loss.item():.4f}  acc {acc:.3f}  "
                      f"{args.batch_size / wall:7.1f} img/s  sim {start.elapsed_time(end):8.3f} ms", flush=True)
    print("top ops by simulated time:")
    print(records.table(top=10))


if __name__ == "__main__":
    main()
