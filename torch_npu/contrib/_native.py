"""The torch_npu.npu_* operator a contrib helper calls, looked up when it runs.

torch_npu's affinity library calls a native operator per helper; where this backend does not have it
yet, the helper raises NotImplementedError naming the operator, and starts working the day the operator
is registered (the lookup is made at call time, not at import).
"""
import torch_npu


def native_op(name, caller):
    """torch_npu.<name>, or NotImplementedError naming it and `caller` (the contrib helper)."""
    op = getattr(torch_npu, name, None)
    if op is None:
        raise NotImplementedError(
            f"{caller} calls torch_npu.{name}, which the NPU backend does not implement yet")
    return op
