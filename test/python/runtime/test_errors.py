"""Bad input gets a clear Python exception."""
import pytest
import torch

from conftest import run_python


def test_mixing_npu_and_cpu_tensors():
    # PyTorch's own message (TensorIterator's device check, in the structured add's meta function)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least "
                                           "two devices, npu:0 and cpu"):
        torch.ones(3).npu() + torch.ones(3)


def test_cpu_scalars_mix_with_npu_tensors():
    assert (torch.ones(3).npu() + torch.tensor(2.0)).cpu().tolist() == [3, 3, 3]


def test_two_npu_devices_in_one_op():
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(3, device="npu:0") + torch.ones(3, device="npu:1")


def test_op_without_npu_kernel_names_op_and_backend():
    message = (r"'aten::quantize_per_tensor' is not implemented for the NPU "
               r"backend.*torch.npu.get_supported_ops\(\).*TORCH_NPU_CPU_FALLBACK=1")
    with pytest.raises(NotImplementedError, match=message):
        torch.quantize_per_tensor(torch.zeros(4).npu(), 0.1, 0, torch.quint8)


def test_supported_ops_lists_the_npu_kernels():
    ops = torch.npu.get_supported_ops()
    assert "aten::add.Tensor" in ops and "aten::convolution_overrideable" in ops and "npu::npu_format_cast" in ops
    assert "aten::_fft_r2c" in ops and "aten::quantize_per_tensor" not in ops and ops == sorted(ops)


def test_opt_in_cpu_fallback_runs_warns_once_and_is_recorded():
    result = run_python("""
        import warnings, torch, torch_npu
        x = torch.randn(6).npu()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.npu.op_records() as rec:
                y = torch.segment_reduce(x, "sum", lengths=torch.tensor([2, 4]).npu())
                torch.segment_reduce(x, "max", lengths=torch.tensor([3, 3]).npu())
        expected = torch.segment_reduce(x.cpu(), "sum", lengths=torch.tensor([2, 4]))
        host = [r for r in rec.records if r.core_type == "host_fallback"]
        print(y.device, torch.allclose(y.cpu(), expected), len(caught),
              [r.op_type for r in host], host[0].shapes)
        try:
            torch._cudnn_ctc_loss(torch.randn(5, 2, 4).log_softmax(2).npu(), torch.ones(2, 2, dtype=torch.int).npu(),
                                  [5, 5], [2, 2], 0, True, False)
        except NotImplementedError as e:
            print(str(e).split(": Could not run")[0])
    """, env={"TORCH_NPU_CPU_FALLBACK": "1"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("npu:0 True 1 ['aten::segment_reduce', 'aten::segment_reduce'] Float[6]; Long[2]")
    assert lines[1] == ("The operator 'aten::_cudnn_ctc_loss' is not implemented for the NPU backend, and the CPU "
                        "fallback (TORCH_NPU_CPU_FALLBACK=1) cannot run it either")


def test_shape_mismatch():
    with pytest.raises(RuntimeError, match="size of tensor a"):
        torch.ones(2, 3).npu() + torch.ones(4, 3).npu()
    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        torch.ones(2, 3).npu() @ torch.ones(4, 3).npu()


def test_inplace_broadcast_error():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.ones(3).npu().add_(torch.ones(2, 3).npu())
