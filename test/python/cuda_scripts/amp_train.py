"""Mixed-precision training with torch.cuda.amp (autocast and GradScaler)."""
import json

import torch
import torch.nn as nn
from torch.cuda.amp import GradScaler, autocast


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = GradScaler(init_scale=2.0 ** 12)
    x, y = torch.randn(16, 32).cuda(), torch.randint(0, 8, (16,)).cuda()
    losses, dtypes = [], set()
    for step in range(5):
        optimizer.zero_grad()
        with autocast():
            out = model(x)
            dtypes.add(str(out.dtype))
            loss = nn.functional.cross_entropy(out, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(round(loss.item(), 5))
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        dtypes.add(str(model(x).dtype))
    print(json.dumps({"losses": losses, "scale": scaler.get_scale(), "dtypes": sorted(dtypes)}))


if __name__ == "__main__":
    main()
