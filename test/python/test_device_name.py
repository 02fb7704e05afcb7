"""'npu' as a native device name (see docs/device_name.md), and the degraded mode."""
import torch

from conftest import run_python


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
