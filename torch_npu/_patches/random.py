"""torch.random.fork_rng(device_type="npu") forks the NPU generators, as in torch 2.x, and
torch.seed() seeds them, as it seeds CUDA's.

torch 1.13's fork_rng forks the CPU generator and the CUDA devices' only; an NPU script that forks
the RNG around a draw (an evaluation pass with dropout, a data augmentation) silently advances the
NPU generators. torch 2.x added the `device_type` argument for other devices; torch_npu adds it to
1.13's fork_rng with 2.x's meaning: `devices` are then NPU ordinals (all NPUs when None, with the
same warning for several devices). The default, "cuda", runs torch's own fork_rng unchanged
(transfer_to_npu already points its torch.cuda calls at the NPU).

torch.seed() draws a non-deterministic seed for the CPU generator and seeds every CUDA generator
with it; a script that logs that seed to reproduce the run with torch.manual_seed(seed) (which
torch_npu makes seed the NPUs too) would not reproduce its NPU draws. torch_npu seeds the NPUs with
it as well.
"""
import contextlib
import functools
import warnings

import torch

from torch_npu._patches.registry import replace

_warned_all_devices = False


@contextlib.contextmanager
def _fork_npu_rng(devices, caller, devices_kw):
    global _warned_all_devices
    if devices is None:
        count = torch.npu.device_count()
        if count > 1 and not _warned_all_devices:
            warnings.warn(
                f"torch.npu reports {count} devices and {caller} was called without '{devices_kw}': it forks the "
                f"RNG of every NPU. Pass {devices_kw}=[...] with the NPUs in use to fork only those (for example "
                f"{devices_kw}=[0]), or {devices_kw}=range(torch.npu.device_count()) to silence this warning.")
            _warned_all_devices = True
        devices = range(count)
    devices = list(devices)
    cpu_state = torch.get_rng_state()
    npu_states = [torch.npu.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        torch.set_rng_state(cpu_state)
        for device, state in zip(devices, npu_states):
            torch.npu.set_rng_state(state, device)


def _with_device_type(fork_rng):
    @functools.wraps(fork_rng)
    def forking(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
        if device_type not in ("cuda", "npu"):
            raise ValueError(f"fork_rng: device_type must be 'cuda' or 'npu', got {device_type!r}")
        if not enabled:
            return contextlib.nullcontext()
        if device_type == "npu":
            return _fork_npu_rng(devices, _caller, _devices_kw)
        return fork_rng(devices, enabled, _caller, _devices_kw)

    return forking


def fork_npu_rng(devices):
    """fork_rng for the NPUs `devices` (and the CPU)."""
    return _fork_npu_rng(devices, "fork_rng", "devices")


def _seeding_the_npus(seed):
    @functools.wraps(seed)
    def seeding():
        value = seed()
        torch.npu.manual_seed_all(value)
        return value

    return seeding


def install():
    replace("torch.random.fork_rng", _with_device_type(torch.random.fork_rng))
    seed = _seeding_the_npus(torch.random.seed)
    replace("torch.random.seed", seed)
    replace("torch.seed", seed)
