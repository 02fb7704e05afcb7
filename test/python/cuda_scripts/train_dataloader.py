"""Single-device training with a DataLoader (pinned memory) and a checkpoint save/load, on CUDA."""
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def main():
    assert torch.cuda.is_available(), "this script needs a GPU"
    torch.cuda.set_device(0)
    device = torch.device("cuda", 0)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    loader = DataLoader(data, batch_size=16, shuffle=False, pin_memory=True)
    model = make_model().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses, pinned = [], []
    for epoch in range(2):
        for x, y in loader:
            pinned.append(x.is_pinned())
            x, y = x.to(device, non_blocking=True), y.cuda(non_blocking=True)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(round(loss.item(), 6))
    path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    restored = make_model().to("cuda:0")
    checkpoint = torch.load(path, map_location="cuda:0")
    restored.load_state_dict(checkpoint["model"])
    probe = torch.randn(4, 16, device="cuda")
    torch.cuda.synchronize()
    print(json.dumps({"losses": losses, "pinned": all(pinned),
                      "restored_equal": bool(torch.equal(model(probe), restored(probe))),
                      "parameter_device": str(next(restored.parameters()).device)}))


if __name__ == "__main__":
    main()
