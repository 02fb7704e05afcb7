"""Run-time options of the (simulated) device: torch.npu.set_option({...}).

Options apply to ops launched after the call; nothing is cached at start-up.
    ACL_PRECISION_MODE  "allow_fp32_to_fp16" (Ascend910A default: fp32 matmuls run on the
                        fp16 Cube), "must_keep_origin_dtype" (Ascend910B2 default), "force_fp16"
"""
from torch_npu import _C


def set_option(options):
    """Sets options from a dict, e.g. {"ACL_PRECISION_MODE": "must_keep_origin_dtype"}."""
    if not isinstance(options, dict):
        raise TypeError(f"set_option expects a dict of option names to values, got {type(options).__name__}")
    for name, value in options.items():
        _C._npu_setOption(str(name), str(value))


def get_option(name):
    return _C._npu_getOption(str(name))
