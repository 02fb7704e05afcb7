"""Start-up hook that makes "npu" a native PyTorch device name.

Installed by `setup.py develop` as `_torch_npu_preload` next to a .pth file,
so that it runs when the interpreter starts, before anything imports torch.
It only loads a tiny library (no torch, no numpy) with RTLD_GLOBAL; see
Note [Making "npu" a native device name] in csrc/device_name/DeviceName.cpp. Then it installs
the start-up fixes of _startup_fixes.py (Note [Torch 1.13 on Python 3.11], Note
[transfer_to_npu in child processes]), loaded by path so that the torch_npu package (which
imports torch) is not imported.
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


def install_startup_fixes(lib_dir=LIB_DIR):
    try:
        import importlib.util
        spec = importlib.util.spec_from_file_location("_torch_npu_startup_fixes",
                                                      os.path.join(lib_dir, "_startup_fixes.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.install()
        return True
    except Exception:  # noqa: BLE001 - start-up must go on
        return False


load()
install_startup_fixes()
