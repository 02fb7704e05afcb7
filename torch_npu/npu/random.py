"""Seeding of the NPU's Philox generators (see Note [NPU random numbers])."""
import torch

from torch_npu import _C
from torch_npu._device_name import device_index
from torch_npu.npu.generator import default_generators


def manual_seed(seed, device=None):
    """Seeds the generator of the current (or given) NPU."""
    _C._npu_manualSeed(device_index(device), int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def manual_seed_all(seed):
    for index in range(_C._npu_getDeviceCount()):
        _C._npu_manualSeed(index, int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def seed(device=None):
    """Seeds the current NPU's generator with a random number and returns it."""
    return _C._npu_seed(device_index(device))


def seed_all():
    value = seed(0)
    manual_seed_all(value)


def initial_seed(device=None):
    return _C._npu_initialSeed(device_index(device))


def get_rng_state(device=None):
    """The generator state as a uint8 tensor (seed and offset, 16 bytes): the default generator's get_state()."""
    return default_generators[device_index(device)].get_state()


def set_rng_state(new_state, device=None):
    state = new_state.detach().to("cpu", torch.uint8).contiguous()
    if state.numel() != 16:
        raise ValueError(f"NPU RNG state must have 16 bytes, got {state.numel()}")
    default_generators[device_index(device)].set_state(state)


def get_rng_state_all():
    """The RNG state of every NPU, as torch.cuda.get_rng_state_all."""
    return [get_rng_state(index) for index in range(_C._npu_getDeviceCount())]


def set_rng_state_all(new_states):
    """Sets the RNG state of every NPU from get_rng_state_all's list."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)
