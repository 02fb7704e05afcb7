"""ASCEND_GLOBAL_LOG_LEVEL and ASCEND_SLOG_PRINT_TO_STDOUT."""
from conftest import run_python

_SCRIPT = """
    import torch, torch_npu
    x = torch.ones(1 << 20, device="npu")
    print("done")
"""


def test_debug_logs_to_stdout():
    result = run_python(_SCRIPT, env={"ASCEND_GLOBAL_LOG_LEVEL": "0", "ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
    assert result.returncode == 0, result.stderr
    assert "[torch_npu]" in result.stdout and "new segment" in result.stdout


def test_default_level_is_quiet():
    result = run_python(_SCRIPT)
    assert result.returncode == 0
    assert result.stdout.strip() == "done" and "[torch_npu]" not in result.stderr


def test_debug_logs_go_to_stderr_without_stdout_flag():
    result = run_python(_SCRIPT, env={"ASCEND_GLOBAL_LOG_LEVEL": "0"})
    assert "new segment" in result.stderr and "new segment" not in result.stdout
