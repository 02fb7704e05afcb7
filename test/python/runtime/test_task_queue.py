"""TASK_QUEUE_ENABLE, ASCEND_LAUNCH_BLOCKING and errors of queued work."""
import pytest
import torch

from conftest import run_python

_SCRIPT = """
    import torch, torch_npu
    from torch_npu import _C
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    torch.manual_seed(0)
    x = torch.randn(33, 17)
    w = torch.randn(17, 5, requires_grad=True)
    loss = (x.npu() @ w.npu()).relu().sum()
    loss.backward()
    print("QUEUE", _C._npu_taskQueueEnabled(), torch.npu.simulated_time_us() > 0)
    print("VALUES", [loss.item()] + w.grad.flatten().tolist())
"""


def _run_mode(env):
    # The mode under test is set explicitly, whatever the environment running the tests has.
    base = {"TASK_QUEUE_ENABLE": "1", "ASCEND_LAUNCH_BLOCKING": "0"}
    result = run_python(_SCRIPT, env={**base, **env})
    assert result.returncode == 0, result.stderr
    queue_line = next(line for line in result.stdout.splitlines() if line.startswith("QUEUE"))
    values = next(line for line in result.stdout.splitlines() if line.startswith("VALUES"))
    return queue_line, [float(v) for v in values[len("VALUES ["):-1].split(",")]


def test_queue_on_off_and_blocking_give_the_same_bits_and_the_cpus_values():
    off_flag, off = _run_mode({"TASK_QUEUE_ENABLE": "0"})
    on_flag, on = _run_mode({"TASK_QUEUE_ENABLE": "1"})
    _, blocking = _run_mode({"ASCEND_LAUNCH_BLOCKING": "1"})
    assert off_flag == "QUEUE False True" and on_flag == "QUEUE True True"  # the modes really differ
    assert on == off and blocking == off  # the same bits on every path
    torch.manual_seed(0)
    x = torch.randn(33, 17)
    w = torch.randn(17, 5, requires_grad=True)
    loss = (x @ w).relu().sum()
    loss.backward()
    assert off == pytest.approx([loss.item()] + w.grad.flatten().tolist(), rel=1e-5, abs=1e-5)


def test_runtime_switches():
    from torch_npu import _C
    assert _C._npu_taskQueueEnabled()
    _C._npu_setTaskQueueEnabled(False)
    try:
        assert (torch.ones(3).npu() * 2).cpu().tolist() == [2, 2, 2]
    finally:
        _C._npu_setTaskQueueEnabled(True)


def test_device_fault_surfaces_with_the_op_name():
    logits = torch.randn(4, 3).npu()
    bad_target = torch.tensor([0, 1, 7, 2]).npu()
    with pytest.raises(RuntimeError, match="NLLLoss.*7"):
        torch.nn.functional.cross_entropy(logits, bad_target)
        torch.npu.synchronize()
    # the device keeps working after the error was reported
    assert (torch.ones(2).npu() + 1).cpu().tolist() == [2, 2]


def test_launch_blocking_points_at_the_failing_op():
    result = run_python("""
        import torch, torch_npu
        logits = torch.randn(4, 3).npu()
        try:
            torch.nn.functional.nll_loss(logits, torch.tensor([0, 9, 1, 2]).npu())
            print("no error")
        except RuntimeError as e:
            print("raised at launch:", "NLLLoss" in str(e), "ASCEND_LAUNCH_BLOCKING" in str(e))
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "raised at launch: True True"


def test_launches_whose_descriptors_differ_only_in_origin_shape_or_dtype_stay_apart():
    # Note [Descriptors reused per thread]: a launching thread reuses its ACL descriptors by what
    # they hold. NC1HWC0 tensors of 3 and 5 channels have the same storage shape [N,1,H,W,16] and
    # differ only in their origin shape; fp32 and int32 tensors of one shape differ only in dtype.
    import torch_npu
    torch.manual_seed(0)
    xs = [torch.randn(2, c, 3, 3) for c in (3, 5, 3, 5)]
    npus = [torch_npu.npu_format_cast(x.npu(), 3) for x in xs]  # 3 = NC1HWC0
    assert torch_npu.get_npu_format(npus[0]) == 3
    for x, n in zip(xs, npus):
        assert torch.equal((n * 2).cpu(), x * 2)
        torch.testing.assert_close(n.sum(dim=1).cpu(), x.sum(dim=1), rtol=1e-5, atol=1e-5)
    a = torch.arange(12).reshape(3, 4)
    for dt in (torch.float32, torch.int32, torch.float32, torch.int64):
        assert torch.equal((a.to(dt).npu() + 1).cpu(), a.to(dt) + 1)
