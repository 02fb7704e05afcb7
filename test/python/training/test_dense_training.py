"""Dense-prediction training on the NPU matches the CPU: a small UNet
(GroupNorm, reflection-padded convs, max-pool, bilinear and nearest
upsampling, skip connections, 2-D cross-entropy with ignored pixels) and a
spatial-transformer step (grid_sample) with advanced-indexing losses."""
import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


class _Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm1 = nn.GroupNorm(4, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, padding_mode="reflect")
        self.norm2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.norm2(self.conv2(F.relu(self.norm1(self.conv1(x))))))


class _UNet(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.down1, self.down2, self.bottom = _Block(3, 8), _Block(8, 16), _Block(16, 32)
        self.up2, self.up1 = _Block(48, 16), _Block(24, 8)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        a = self.down1(x)
        b = self.down2(F.max_pool2d(a, 2))
        c = self.bottom(F.max_pool2d(b, 2))
        c = F.interpolate(c, scale_factor=2, mode="bilinear", align_corners=False)
        u = self.up2(torch.cat([c, b], 1))
        u = F.interpolate(u, scale_factor=2, mode="nearest")
        return self.head(self.up1(torch.cat([u, a], 1)))


def _train(model, step, device, steps):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for i in range(steps):
        opt.zero_grad()
        loss = step(model, device, i)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu() for p in model.parameters()]


def _compare(model, step, steps=4):
    cpu_losses, cpu_params = _train(copy.deepcopy(model), step, "cpu", steps)
    npu_losses, npu_params = _train(copy.deepcopy(model), step, "npu:0", steps)
    assert npu_losses == pytest.approx(cpu_losses, rel=1e-4)
    for p_cpu, p_npu in zip(cpu_params, npu_params):
        torch.testing.assert_close(p_npu, p_cpu, rtol=1e-3, atol=1e-4)


def test_unet_segmentation_training_matches_cpu():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    images = torch.randn(4, 3, 3, 32, 32, generator=g)
    labels = torch.randint(0, 5, (4, 3, 32, 32), generator=g)
    labels[:, :, :2] = 255  # ignored border rows

    def step(model, device, i):
        return F.cross_entropy(model(images[i].to(device)), labels[i].to(device), ignore_index=255)

    _compare(_UNet(), step)


def test_spatial_transformer_with_indexing_losses_matches_cpu():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    images = torch.randn(3, 2, 3, 12, 12, generator=g)
    keep = torch.rand(3, 2, 12, 12, generator=g) > 0.3

    class _Stn(nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = nn.Parameter(torch.tensor([[1.0, 0.1, 0.0], [-0.1, 0.9, 0.05]]).repeat(2, 1, 1))
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            # Homogeneous pixel-centre coordinates (affine_grid's base grid).
            ys, xs = torch.meshgrid(torch.linspace(-11 / 12, 11 / 12, 12), torch.linspace(-11 / 12, 11 / 12, 12),
                                    indexing="ij")
            self.register_buffer("base", torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, 144, 3))

        def forward(self, x):
            grid = torch.matmul(self.base.expand(2, -1, -1), self.theta.transpose(1, 2)).view(2, 12, 12, 2)
            return self.conv(F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False))

    def step(model, device, i):
        out = model(images[i].to(device))
        mask = keep[i].to(device)
        picked = out[:, 0][mask]                      # boolean-mask indexing
        rows = out[torch.tensor([1, 0, 1]).to(device), 1:3, 2]  # integer indexing, backward accumulates
        return picked.pow(2).mean() + rows.abs().sum() * 0.1

    _compare(_Stn(), step, steps=3)


def test_volumetric_segmentation_training_matches_cpu():
    """A small 3-D UNet (medical-imaging style): Conv3d + BatchNorm3d, MaxPool3d,
    ConvTranspose3d upsampling with a skip connection, trilinear upsampling,
    per-voxel cross-entropy."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    volumes = torch.randn(3, 2, 1, 8, 12, 12, generator=g)
    labels = torch.randint(0, 3, (3, 2, 8, 12, 12), generator=g)

    class _UNet3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU())
            self.mid = nn.Sequential(nn.Conv3d(4, 8, 3, padding=1, stride=(1, 2, 2)), nn.BatchNorm3d(8), nn.ReLU())
            self.up = nn.ConvTranspose3d(8, 4, (1, 2, 2), stride=(1, 2, 2))
            self.dec = nn.Conv3d(8, 4, 3, padding=1)
            self.head = nn.Conv3d(4, 3, 1)

        def forward(self, x):
            a = self.enc(x)
            b = self.mid(F.max_pool3d(a, (2, 1, 1)))  # [N, 8, 4, 6, 6]
            b = F.interpolate(self.up(b), scale_factor=(2, 1, 1), mode="trilinear", align_corners=False)
            return self.head(F.relu(self.dec(torch.cat([b, a], 1))))

    def step(model, device, i):
        return F.cross_entropy(model(volumes[i].to(device)), labels[i].to(device))

    _compare(_UNet3d(), step, steps=3)
