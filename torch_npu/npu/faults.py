"""Injected device faults (Note [Fault injection] in third_party/ascend_sim/src/runtime/fault_injection.h).

    torch.npu.inject_fault("task:MatMul")        # the next MatMul faults on the device
    torch.npu.inject_fault("task:MemcpyD2H:2")   # the second device-to-host copy from now fails
    torch.npu.inject_fault("malloc")             # HBM is exhausted until clear_faults()
    with torch.npu.injected_faults("task:Add"): ...

Tests use them to check that a program survives a device fault: the fault surfaces as a Python
RuntimeError naming the task (at the next synchronize, like any device error) and the device,
its streams and the caching allocator stay usable. ASCEND_SIM_FAULTS=<spec> sets rules at start-up.
"""
import contextlib

from torch_npu import _C


def inject_fault(spec):
    """Adds the rules of `spec` ("task:<name>[:<n>]", "malloc[:<n>]", separated by ';')."""
    if not isinstance(spec, str):
        raise TypeError(f"inject_fault expects a spec string such as 'task:MatMul', got {type(spec).__name__}")
    _C._npu_injectFault(spec)


def clear_faults():
    """Removes every injected fault rule."""
    _C._npu_clearFaults()


@contextlib.contextmanager
def injected_faults(spec):
    """The rules of `spec` hold inside the block; every rule is cleared when it ends."""
    inject_fault(spec)
    try:
        yield
    finally:
        clear_faults()
