"""Injected device faults (Note [Fault injection] in third_party/ascend_sim/src/runtime/fault_injection.h).

    torch.npu.inject_fault("task:MatMul")        # the next MatMul faults on the device
    torch.npu.inject_fault("task:MemcpyD2H:2")   # the second device-to-host copy from now fails
    torch.npu.inject_fault("malloc")             # HBM is exhausted until clear_faults()
    torch.npu.inject_fault("hang:MatMul")        # the next MatMul hangs until the op execute timeout
    torch.npu.set_op_execute_timeout(2.5)        # ... which is 2.5 s from now on (CANN's default: 68 s)
    with torch.npu.injected_faults("task:Add"): ...

Tests use them to check that a program survives a device fault: the fault surfaces as a Python
RuntimeError naming the task (at the next synchronize, like any device error) and the device,
its streams and the caching allocator stay usable. A hung task blocks its stream (and a
synchronize) until the op execute timeout, then fails with ACL_ERROR_RT_AICORE_TIMEOUT (507014);
clear_faults() releases it at once. ASCEND_SIM_FAULTS=<spec> sets rules at start-up.
"""
import contextlib
import math
import numbers

from torch_npu import _C


def inject_fault(spec):
    """Adds the rules of `spec` ("task:<name>[:<n>]", "hang:<name>[:<n>]", "malloc[:<n>]", separated by ';')."""
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


def set_op_execute_timeout(seconds):
    """How long an op may run on the device before it fails (CANN's aclrtSetOpExecuteTimeOut), in
    seconds, process-wide; 0 restores the default (68 s). Simulated kernels always finish in time:
    only an injected hang ("hang:<name>") reaches it."""
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not 0 <= seconds <= 4294967:
        raise ValueError(f"set_op_execute_timeout expects seconds between 0 (the default, 68 s) and 4294967, "
                         f"got {seconds!r}")
    _C._npu_setOpExecuteTimeoutMs(0 if seconds == 0 else max(1, math.ceil(seconds * 1000)))


def hung_tasks():
    """The number of tasks stuck in an injected hang right now."""
    return _C._npu_hungTaskCount()
