"""ASCEND_SIM_HOST_ISA (Note [Host SIMD level]): capping the SIMD level of the simulator's host
kernels changes their speed, never their results. A small CNN training step (convolutions in
NC1HWC0 / FRACTAL_Z with a stride-2 layer, batch norm, a linear head, SGD) in processes capped at
each level gives the same bits as the uncapped one."""
import os
import subprocess
import sys

import pytest

STEP = r"""
import sys, torch, torch_npu
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 24, 3, stride=2, padding=1), torch.nn.BatchNorm2d(24), torch.nn.ReLU(),
    torch.nn.Flatten(), torch.nn.Linear(24 * 7 * 7, 10)).npu()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x, y = torch.randn(4, 3, 14, 14).npu(), torch.randint(0, 10, (4,)).npu()
for _ in range(2):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
state = torch.cat([p.detach().cpu().flatten() for p in model.parameters()] + [loss.detach().cpu().flatten()])
sys.stdout.write(state.numpy().tobytes().hex())
"""


def run_step(isa):
    env = dict(os.environ)
    env.pop("ASCEND_SIM_HOST_ISA", None)
    if isa is not None:
        env["ASCEND_SIM_HOST_ISA"] = isa
    out = subprocess.run([sys.executable, "-c", STEP], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def host_has_avx512f():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


@pytest.mark.parametrize("isa", ["avx2", "portable"])
def test_a_training_step_gives_the_same_bits_at_every_host_simd_level(isa):
    if isa == "avx2" and not host_has_avx512f():
        pytest.skip("the host's own level is avx2 (no AVX-512F): capping at avx2 would compare it with itself")
    assert run_step(isa) == run_step(None)


def test_an_unknown_level_is_reported_and_ignored():
    env = dict(os.environ, ASCEND_SIM_HOST_ISA="avx-2")
    out = subprocess.run([sys.executable, "-c", "import torch, torch_npu; print(torch.ones(3).npu().sum().item())"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "3.0"
    assert "ASCEND_SIM_HOST_ISA='avx-2' is not avx512, avx2 or portable; ignored" in out.stderr
