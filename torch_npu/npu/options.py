"""Run-time options of the (simulated) device: torch.npu.set_option({...}).

The keys are the porting guide's compilation options. Every value is
validated (an unknown key or value raises and lists the valid ones) and
applies to ops launched after the call; get_option returns what was set.

    ACL_PRECISION_MODE           "allow_fp32_to_fp16" (Ascend910A default: fp32 matmuls run on the
                                 fp16 Cube), "must_keep_origin_dtype" (Ascend910B2 default),
                                 "force_fp16". Changes the simulated numerics.
    ACL_OP_JIT_COMPILE           "enable" (default: ops compile per shape) or "disable" (prebuilt
                                 binaries: one compile per op type, dtypes and formats);
                                 torch.npu.set_compile_mode(jit_compile=...) sets it
    ACL_OP_SELECT_IMPL_MODE      "high_precision" (default) or "high_performance": ops with two
                                 implementations (SoftmaxV2, LogSoftmaxV2) compute fp16/bf16 inputs
                                 in fp32 or in the input dtype (less accurate, fewer Vector cycles)
    ACL_OPTYPELIST_FOR_IMPLMODE  comma-separated op types the impl mode applies to (e.g. "SoftmaxV2";
                                 empty: every op)
    ACL_OP_DEBUG_LEVEL           "0" .. "4"
    ACL_DEBUG_DIR                an existing directory
    ACL_OP_COMPILER_CACHE_MODE   "enable" (default), "disable" or "force"
    ACL_OP_COMPILER_CACHE_DIR    an existing directory: op compiles persist there and later
                                 processes load them instead of compiling (torch.npu.compile_count()
                                 does not grow); Note [Persistent compile cache] in the simulator

Note [Options without a simulated effect]
ACL_PRECISION_MODE (numerics), ACL_OP_JIT_COMPILE (what counts as an op
compile, Note [Binary op mode] in the simulator), the implementation mode
(Note [Implementation modes] in the simulator's runtime/compile_options.h)
and the compiler cache (Note [Persistent compile cache] in
runtime/disk_cache.h) change the simulator. The simulator writes no TBE debug artefacts, so
ACL_OP_DEBUG_LEVEL and ACL_DEBUG_DIR are accepted, validated and reported by
get_option only, so that ported scripts run unchanged. Overflow detection, which
ported scripts sometimes look for here, is CANN's dump config "dump_debug": "on"
(torch.npu.set_dump; docs/profiling.md, "Overflow").
"""
import os

from torch_npu import _C

_CHOICES = {
    "ACL_PRECISION_MODE": ("allow_fp32_to_fp16", "must_keep_origin_dtype", "force_fp16"),
    "ACL_OP_JIT_COMPILE": ("enable", "disable"),
    "ACL_OP_SELECT_IMPL_MODE": ("high_precision", "high_performance"),
    "ACL_OP_DEBUG_LEVEL": ("0", "1", "2", "3", "4"),
    "ACL_OP_COMPILER_CACHE_MODE": ("enable", "disable", "force"),
}
_DIRECTORIES = ("ACL_DEBUG_DIR", "ACL_OP_COMPILER_CACHE_DIR")
_NATIVE = ("ACL_PRECISION_MODE", "ACL_OP_JIT_COMPILE", "ACL_OP_SELECT_IMPL_MODE",
           "ACL_OPTYPELIST_FOR_IMPLMODE", "ACL_OP_COMPILER_CACHE_MODE",
           "ACL_OP_COMPILER_CACHE_DIR")  # kept by the simulator itself
_DEFAULTS = {"ACL_OP_DEBUG_LEVEL": "0", "ACL_DEBUG_DIR": ""}
_KNOWN = _NATIVE + tuple(_DEFAULTS)
_values = dict(_DEFAULTS)


def _check_known(name):
    if name not in _KNOWN:
        raise RuntimeError(f"unknown NPU option '{name}'; supported: {', '.join(_KNOWN)}")


def _check(name, value):
    _check_known(name)
    if name in _CHOICES and value not in _CHOICES[name]:
        raise RuntimeError(f"invalid value '{value}' for NPU option {name}; valid values: "
                           f"{', '.join(_CHOICES[name])}")
    if name in _DIRECTORIES and value and not os.path.isdir(value):  # "" = unset
        raise RuntimeError(f"NPU option {name}: directory '{value}' does not exist (the porting guide requires "
                           "an existing directory)")


def set_option(options):
    """Sets options from a dict, e.g. {"ACL_PRECISION_MODE": "must_keep_origin_dtype"}.
    All values are validated before any is applied."""
    if not isinstance(options, dict):
        raise TypeError(f"set_option expects a dict of option names to values, got {type(options).__name__}")
    items = [(str(name), str(value)) for name, value in options.items()]
    for name, value in items:
        _check(name, value)
    for name, value in items:
        if name in _NATIVE:
            _C._npu_setOption(name, value)  # validates and applies (after the queued ops)
        else:
            _values[name] = value


def get_option(name):
    """The current value of an option (see the module docstring for the keys)."""
    name = str(name)
    if name in _NATIVE:
        return _C._npu_getOption(name)
    _check_known(name)
    return _values[name]


def set_compile_mode(jit_compile=True):
    """torch_npu's switch between compiling ops per shape (jit_compile=True)
    and prebuilt binaries (False): ACL_OP_JIT_COMPILE."""
    if not isinstance(jit_compile, bool):
        raise TypeError(f"set_compile_mode: jit_compile must be a bool, got {type(jit_compile).__name__}")
    set_option({"ACL_OP_JIT_COMPILE": "enable" if jit_compile else "disable"})


def is_jit_compile_false():
    return get_option("ACL_OP_JIT_COMPILE") == "disable"
