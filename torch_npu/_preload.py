"""Start-up hook that makes "npu" a native PyTorch device name.

Installed by `setup.py develop` as `_torch_npu_preload` next to a .pth file,
so that it runs when the interpreter starts, before anything imports torch.
It only loads a tiny library (no torch, no numpy) with RTLD_GLOBAL; see
Note [Making "npu" a native device name] in csrc/device_name/DeviceName.cpp.
It must never break interpreter start-up, so every failure is swallowed.
"""
import ctypes
import os
import sys

LIB_NAME = "libtorch_npu_device_name.so"
# Replaced by setup.py with the directory of the built library.
LIB_DIR = os.path.dirname(os.path.abspath(__file__))


def load(lib_dir=LIB_DIR):
    if "torch" in sys.modules or os.environ.get("TORCH_NPU_DISABLE_DEVICE_NAME_HOOK") == "1":
        return False
    try:
        ctypes.CDLL(os.path.join(lib_dir, LIB_NAME), mode=ctypes.RTLD_GLOBAL)
        return True
    except OSError:
        return False


load()
