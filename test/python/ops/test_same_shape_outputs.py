"""add, sub, mul and div size their output without PyTorch's meta function when the operands agree.

Note [Outputs without TensorIterator] (csrc/aten/common/SameShapeOutputs.h): with both operands of one shape
and dtype (or a Python number beside a floating tensor) the generated wrappers skip the TensorIterator.
Whatever path a call takes, it must give what the CPU gives: values, dtype, shape, names, and the
same error for the same mistake.
"""
import pytest
import torch
import torch_npu

F = torch_npu.Format

BINARY = {
    "add": lambda a, b: torch.add(a, b),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
    "sub": lambda a, b: a - b,
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=3),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "add_": lambda a, b: a.add_(b),
    "add_alpha_": lambda a, b: a.add_(b, alpha=-0.5 if a.is_floating_point() else -2),
    "sub_": lambda a, b: a.sub_(b),
    "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b),
}

OPERANDS = {
    "float32 same shape": lambda: (torch.randn(4, 5), torch.randn(4, 5) + 3),
    "float16 same shape": lambda: (torch.randn(6).half(), torch.randn(6).half() + 3),
    "int64 same shape": lambda: (torch.arange(1, 7), torch.arange(2, 8)),
    "bool same shape": lambda: (torch.tensor([True, False, True]), torch.tensor([True, True, False])),
    "0-d": lambda: (torch.tensor(1.5), torch.tensor(-2.0)),
    "empty": lambda: (torch.ones(0, 3), torch.ones(0, 3)),
    "non-contiguous": lambda: (torch.randn(5, 4).t(), torch.randn(4, 5) + 3),
    "Python float": lambda: (torch.randn(3, 2), 2.5),
    "Python int beside float16": lambda: (torch.randn(3).half(), 3),
    "Python float beside int64": lambda: (torch.arange(1, 4), 2.5),
    "Python complex": lambda: (torch.randn(3), 1 + 2j),
    "float32 and float16": lambda: (torch.randn(3), torch.randn(3).half() + 3),
    "broadcast": lambda: (torch.randn(2, 3), torch.randn(3) + 3),
}


def _run(op, a, b, device):
    a = a.clone().to(device)
    b = b.clone().to(device) if isinstance(b, torch.Tensor) else b
    try:
        return op(a, b).cpu(), None
    except RuntimeError as e:
        return None, str(e)


@pytest.mark.parametrize("operands", OPERANDS)
@pytest.mark.parametrize("op", BINARY)
def test_same_values_dtype_and_errors_as_the_cpu(op, operands):
    torch.manual_seed(0)
    a, b = OPERANDS[operands]()
    expected, expected_error = _run(BINARY[op], a, b, "cpu")
    result, error = _run(BINARY[op], a, b, "npu")
    assert error == expected_error
    if expected is not None:
        assert result.dtype == expected.dtype
        torch.testing.assert_close(result, expected, rtol=1e-3, atol=1e-3, equal_nan=True)


@pytest.mark.parametrize("call,message", [
    (lambda a, b: torch.add(a, b, alpha=0.5), "For integral input tensors, argument alpha must not be a floating "
                                              "point number."),
    (lambda a, b: torch.add(a, b, alpha=True), "Boolean alpha only supported for Boolean results."),
    (lambda a, b: torch.sub(a > 0, b > 0), "Subtraction, the `-` operator, with two bool tensors is not supported."),
    (lambda a, b: (a > 0).sub_(b > 0), "Subtraction, the `-` operator, with two bool tensors is not supported."),
    (lambda a, b: a.add_(b, alpha=1.5), "For integral input tensors, argument alpha must not be a floating point"),
])
def test_the_meta_functions_checks_still_apply(call, message):
    a, b = torch.arange(4), torch.arange(4)
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(a, b)  # the CPU says so
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(a.npu(), b.npu())


def test_in_place_overlap_is_refused_as_on_the_cpu():
    x = torch.arange(6.0).npu()
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a "
                                           "single memory location"):
        x[1:].add_(x[:-1])
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single "
                                           "memory location"):
        torch.zeros(1).npu().expand(4).mul_(torch.ones(4).npu())
    assert x.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # nothing was written
    x.add_(x)  # the same tensor on both sides is allowed
    assert x.cpu().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


@pytest.mark.parametrize("call", [
    lambda x: x[1:].add_(x[:-1], alpha=1.5),  # overlap and a float alpha for integers: the overlap first
    # internal overlap first
    lambda x: x[:4].expand(2, 4).sub_(torch.zeros(2, 4, dtype=x.dtype, device=x.device), alpha=0.5),
    lambda x: (x[1:] > 0).sub_(x[:-1] > 0),  # bool subtraction: sub_check before the overlap check
    lambda x: x[1:].mul_(x[:-1]),
    lambda x: x[1:].float().div_(x[:-1].float()),  # copies: no overlap, no error
])
def test_in_place_errors_come_in_the_meta_functions_order(call):
    expected, expected_error = _run(lambda a, b: call(a), torch.arange(6), torch.arange(6), "cpu")
    result, error = _run(lambda a, b: call(a), torch.arange(6), torch.arange(6), "npu")
    assert error == expected_error
    if expected is not None:
        assert torch.equal(result, expected)


def test_names_are_propagated():
    a = torch.ones(2, 3, names=("N", "C")).npu()
    assert (a + a).names == ("N", "C")
    assert (a * 2.0).names == ("N", "C")


def test_operands_on_two_devices_are_refused():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(3).npu() + torch.ones(3)


def test_the_output_follows_a_private_format_of_self():
    x = torch_npu.npu_format_cast(torch.randn(2, 16, 4, 4).npu(), F.NC1HWC0)
    y = torch_npu.npu_format_cast(torch.randn(2, 16, 4, 4).npu(), F.NC1HWC0)
    for result in (x + y, x - y, x * y, x / y, x * 0.5):
        assert torch_npu.get_npu_format(result) == F.NC1HWC0
    torch.testing.assert_close((x * y + x).cpu(), x.cpu() * y.cpu() + x.cpu(), rtol=1e-6, atol=1e-6)
