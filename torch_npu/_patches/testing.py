"""torch.testing.assert_close compares NPU tensors of a storage-only dtype on the host.

float64 (and complex128) are storage-only NPU dtypes: the simulated chip casts to and from them but
computes nothing in them. torch.testing.assert_close computes its checks (isclose, abs, ...) on the
tensors' device, and torch.jit.trace's output check calls it on `.double()` copies of every output
(it special-cases only MPS, which has no float64 either), so tracing any NPU module failed with
"Equal: input x1 dtype float64 is not supported". torch_npu compares such tensors on the CPU, with
the same result the comparison would give on a device that computes in float64.
"""
import functools

import torch

from torch_npu._patches.registry import replace

_STORAGE_ONLY = (torch.float64, torch.complex128)


def _host_if_storage_only(value):
    if isinstance(value, torch.Tensor) and value.device.type == "npu" and value.dtype in _STORAGE_ONLY:
        return value.cpu()
    return value


def _comparing_on_the_host(assert_close):
    @functools.wraps(assert_close)
    def compare(actual, expected, *args, **kwargs):
        npu = [isinstance(v, torch.Tensor) and v.device.type == "npu" for v in (actual, expected)]
        if any(npu) and kwargs.get("check_device", True) is not False and not all(npu):
            return assert_close(actual, expected, *args, **kwargs)  # let torch report the device mismatch
        return assert_close(_host_if_storage_only(actual), _host_if_storage_only(expected), *args, **kwargs)

    return compare


def install():
    replace("torch.testing.assert_close", _comparing_on_the_host(torch.testing.assert_close))
