"""torch.nn.DataParallel the way ImageNet-style scripts use it when no --gpu is given:
`nn.DataParallel(model).cuda()` over every visible GPU (here, the first two)."""
import json
import os

import torch
import torch.nn as nn

if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    reference = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    reference.load_state_dict(model.state_dict())
    model = nn.DataParallel(model, device_ids=list(range(int(os.environ.get("GPUS", "2"))))).cuda()
    reference = reference.cuda()
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, reference)]
    criterion = nn.CrossEntropyLoss().cuda()
    generator = torch.Generator().manual_seed(1)
    losses = {"parallel": [], "single": []}
    for _ in range(3):
        images, target = torch.randn(16, 8, generator=generator), torch.randint(0, 4, (16,), generator=generator)
        for name, m, opt in (("parallel", model, optimizers[0]), ("single", reference, optimizers[1])):
            loss = criterion(m(images.cuda(non_blocking=True)), target.cuda(non_blocking=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses[name].append(round(loss.item(), 5))
    print(json.dumps({**losses, "device_ids": model.device_ids}))
