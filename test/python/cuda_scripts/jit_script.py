"""TorchScript in a CUDA script: a scripted function and module, a traced module, and modules that
script functions when imported (torch.distributed.optim's functional optimizers)."""
import json

import torch
import torch.distributed.optim  # noqa: F401  (scripts its functional optimizers at import)
import torch.nn as nn


@torch.jit.script
def shifted(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x) + torch.ones(x.shape, device=x.device) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x)) + torch.full_like(x[:, :3], 0.5)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net().cuda()
    x = torch.randn(2, 4).cuda()
    scripted, traced = torch.jit.script(net), torch.jit.trace(net, x)
    print(json.dumps({"function": shifted(torch.ones(2).cuda()).tolist(),
                      "scripted_device": str(scripted(x).device),
                      "traced_equal": bool(torch.equal(traced(x).cpu(), net(x).cpu())),
                      "scripted_equal": bool(torch.equal(scripted(x).cpu(), net(x).cpu()))}))
