"""Bad input gets a clear Python exception."""
import pytest
import torch


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
    with pytest.raises(NotImplementedError, match=r"'aten::_fft_r2c' is not implemented for the NPU backend"):
        torch.fft.rfft(torch.zeros(4).npu())


def test_shape_mismatch():
    with pytest.raises(RuntimeError, match="size of tensor a"):
        torch.ones(2, 3).npu() + torch.ones(4, 3).npu()
    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        torch.ones(2, 3).npu() @ torch.ones(4, 3).npu()


def test_inplace_broadcast_error():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.ones(3).npu().add_(torch.ones(2, 3).npu())
