"""The torch.npu device API."""
import pytest
import torch


def test_availability_and_count():
    assert torch.npu.is_available()
    assert torch.npu.device_count() == 8


def test_set_device_accepts_all_spellings():
    try:
        for spec, index in ((1, 1), ("npu:2", 2), (torch.device("npu", 3), 3), ("npu:0", 0)):
            torch.npu.set_device(spec)
            assert torch.npu.current_device() == index
            assert torch.zeros(1, device="npu").device.index == index
    finally:
        torch.npu.set_device(0)


def test_invalid_device_index_is_a_clear_error():
    with pytest.raises(RuntimeError, match="Invalid NPU device index 9: there are 8 NPU devices"):
        torch.npu.set_device(9)
    with pytest.raises(RuntimeError, match="Invalid NPU device index 8"):
        torch.zeros(2, device="npu:8")


def test_device_context_managers():
    assert torch.npu.current_device() == 0
    with torch.npu.device(2):
        assert torch.npu.current_device() == 2
        with torch.npu.device("npu:1"):
            assert torch.npu.current_device() == 1
        assert torch.npu.current_device() == 2
    assert torch.npu.current_device() == 0
    x = torch.zeros(1, device="npu:3")
    with torch.npu.device_of(x):
        assert torch.npu.current_device() == 3
    assert torch.npu.current_device() == 0


def test_device_name_and_properties():
    assert torch.npu.get_device_name() == "Ascend910A"
    props = torch.npu.get_device_properties(0)
    assert props.name == "Ascend910A" and props.total_memory > 0


def test_synchronize_waits_for_work():
    x = torch.randn(64, 64, device="npu")
    y = x @ x
    torch.npu.synchronize()
    torch.npu.synchronize("npu:0")
    assert torch.allclose(y.cpu(), x.cpu() @ x.cpu(), rtol=1e-4, atol=1e-4)


def test_visible_devices_restrict_and_renumber():
    from conftest import run_python
    result = run_python("""
        import torch, torch_npu
        print(torch.npu.device_count(), torch.ones(1, device="npu:1").device)
    """, env={"ASCEND_RT_VISIBLE_DEVICES": "0,3"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2 npu:1"


def test_chip_preset_from_a_cann_style_config_file(tmp_path):
    from conftest import run_python
    config = tmp_path / "sim.ini"
    config.write_text("[soc]\nsoc_version = Ascend910B2\n")
    result = run_python("""
        import torch, torch_npu
        p = torch.npu.get_device_properties(0)
        print(p.name, p.cube_core_num, p.vector_core_num, p.total_memory >> 30)
    """, env={"ASCEND_SIM_CONFIG": str(config)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Ascend910B2 24 48 64"


def test_bad_configuration_is_reported():
    from conftest import run_python
    result = run_python("""
        import torch, torch_npu
        print(torch.npu.device_count())
        torch.zeros(1, device="npu")
    """, env={"ASCEND_RT_VISIBLE_DEVICES": "0,9"})
    assert result.stdout.strip() == "0"
    assert "No NPU device is available: the simulator failed to initialise" in result.stderr
    assert "ASCEND_RT_VISIBLE_DEVICES='0,9': device 9 does not exist" in result.stderr
