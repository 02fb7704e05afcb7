"""'npu' as a native device name (see docs/device_name.md), and the degraded mode."""
import os
import pathlib
import subprocess
import textwrap

import pytest
import torch

from conftest import PYTHON, REPO_ROOT, run_python

ROOT = pathlib.Path(REPO_ROOT)
HOOK_LIBRARY = ROOT / "torch_npu" / "libtorch_npu_device_name.so"
# The libc10 symbols csrc/device_name/DeviceName.cpp replaces.
INTERPOSED_SYMBOLS = ["_ZN3c106DeviceC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                      "_ZN3c1014DeviceTypeNameB5cxx11ENS_10DeviceTypeEb"]


def test_device_strings_parse():
    assert torch.device("npu").type == "npu"
    assert torch.device("npu:0") == torch.device("npu", 0)
    d = torch.device("npu", 1)
    assert (d.type, d.index, str(d)) == ("npu", 1, "npu:1")
    assert repr(d) == "device(type='npu', index=1)"
    assert isinstance(torch.device("npu"), torch.device)
    assert torch.device("cuda:1").type == "cuda" and torch.device("cpu").type == "cpu"


def test_bad_device_strings_still_fail():
    for bad in ("npux", "npu:", "npu:-1", "npu:a"):
        try:
            torch.device(bad)
        except RuntimeError:
            continue
        raise AssertionError(f"torch.device({bad!r}) should fail")


def test_tensor_device_reports_npu():
    x = torch.ones(2).npu()
    assert str(x.device) == "npu:0"
    assert x.device.type == "npu"
    assert x.is_npu and not torch.ones(2).is_npu
    assert "device='npu:0'" in repr(x)
    assert x.get_device() == 0


def test_print_shows_values_and_device():
    x = torch.tensor([1.5, -2.0]).npu()
    assert repr(x) == "tensor([ 1.5000, -2.0000], device='npu:0')"
    y = torch.tensor([1, 2], dtype=torch.int32).npu()
    assert repr(y) == "tensor([1, 2], device='npu:0', dtype=torch.int32)"
    p = torch.nn.Parameter(torch.zeros(1).npu())
    assert "requires_grad=True" in repr(p) and "device='npu:0'" in repr(p)


def test_import_from_any_directory():
    result = run_python("""
        import torch, torch_npu
        x = torch.randn(4, 4).npu()
        print(x.device, (x @ x).cpu().shape)
    """, cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "npu:0 torch.Size([4, 4])"


def test_degraded_mode_without_hook():
    result = run_python("""
        import warnings
        import torch, torch_npu
        from torch_npu._device_name import is_native
        x = torch.ones(3).npu() * 2
        print(is_native(), x.device.type, x.cpu().tolist(), torch.npu.device_count() > 0)
        try:
            torch.device("npu")
        except RuntimeError:
            print("npu-rejected")
    """, env={"TORCH_NPU_DISABLE_DEVICE_NAME_HOOK": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["False privateuseone [2.0, 2.0, 2.0] True", "npu-rejected"]
    assert "privateuseone" in result.stderr  # the warning explains the mode


def run_with_checkout_hook(code, missing_symbol=None):
    """Runs `code` in a fresh interpreter that loads this checkout's hook library and torch_npu (not
    whichever the installed start-up hook points at). `missing_symbol` makes the hook's check treat that
    libc10 symbol as undefined."""
    env = {k: v for k, v in os.environ.items() if k != "TORCH_NPU_DEVICE_NAME_HOOK_TEST_MISSING"}
    env.update(TORCH_NPU_DISABLE_DEVICE_NAME_HOOK="1", PYTHONPATH=str(ROOT))
    if missing_symbol:
        env["TORCH_NPU_DEVICE_NAME_HOOK_TEST_MISSING"] = missing_symbol
    prelude = f"import ctypes\nhook = ctypes.CDLL({str(HOOK_LIBRARY)!r}, mode=ctypes.RTLD_GLOBAL)\n"
    return subprocess.run([PYTHON, "-c", prelude + textwrap.dedent(code)], cwd="/tmp", env=env,
                          capture_output=True, text=True, timeout=120)


def test_hook_finds_every_interposed_symbol():
    result = run_with_checkout_hook("""
        import warnings
        hook.torch_npu_device_name_hook_status.restype = ctypes.c_char_p
        print(hook.torch_npu_device_name_hook_status().decode())  # decides nothing before libc10 is loaded
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="torch_npu")
            import torch, torch_npu
        from torch_npu import _device_name
        print(repr(_device_name._hook_status()), _device_name.is_native(), torch.ones(1).npu().device)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["libc10 is not loaded yet", "'' True npu:0"]


@pytest.mark.parametrize("symbol", INTERPOSED_SYMBOLS)
def test_missing_libc10_symbol_falls_back_to_privateuseone(symbol):
    result = run_with_checkout_hook("""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import torch, torch_npu
        from torch_npu._device_name import is_native
        print(*[str(w.message) for w in caught if "device-name hook" in str(w.message)], sep="\\n")
        x = torch.ones(3).npu() * 2
        print(is_native(), x.device, torch.device("privateuseone", 1), x.cpu().tolist())
        try:
            torch.device("npu")
        except RuntimeError:
            print("npu-rejected")
    """, missing_symbol=symbol)
    assert result.returncode == 0, result.stderr
    warning, behaviour, rejected = result.stdout.split("\n")[:3]
    # Names the symbol and what it means for the user.
    assert f"libc10 does not define {symbol}" in warning and "'privateuseone'" in warning, warning
    # Neither interposer applies: both the name and the parser are libc10's own.
    assert behaviour == "False privateuseone:0 privateuseone:1 [2.0, 2.0, 2.0]"
    assert rejected == "npu-rejected"
