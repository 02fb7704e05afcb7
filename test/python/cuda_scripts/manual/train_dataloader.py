"""Hand port of ../train_dataloader.py to the NPU."""
import json
import os
import tempfile

import torch
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def main():
    assert torch.npu.is_available()
    torch.npu.set_device(0)
    device = torch.device("npu", 0)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    loader = DataLoader(data, batch_size=16, shuffle=False, pin_memory=True, pin_memory_device="npu")
    model = make_model().npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses, pinned = [], []
    for epoch in range(2):
        for x, y in loader:
            pinned.append(x.is_pinned("npu"))
            x, y = x.to(device, non_blocking=True), y.npu(non_blocking=True)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(round(loss.item(), 6))
    path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    restored = make_model().to("npu:0")
    checkpoint = torch.load(path, map_location="npu:0")
    restored.load_state_dict(checkpoint["model"])
    probe = torch.randn(4, 16, device="npu")
    torch.npu.synchronize()
    print(json.dumps({"losses": losses, "pinned": all(pinned),
                      "restored_equal": bool(torch.equal(model(probe), restored(probe))),
                      "parameter_device": str(next(restored.parameters()).device)}))


if __name__ == "__main__":
    main()
