"""Checks of torch_npu.testing: assertRtolEqual, assertEqual, the tensor factories,
instantiate_tests and check_operators_in_prof."""
import unittest

import numpy as np
import pytest
import torch
import torch_npu

from torch_npu.testing.common_utils import (check_operators_in_prof, create_common_tensor, create_dtype_tensor,
                                            test_2args_broadcast as broadcast_pairs)
from torch_npu.testing.decorator import Dtypes, Formats, graph_mode, instantiate_tests
from torch_npu.testing.testcase import TestCase


class _Probe(TestCase):
    """A TestCase instance to call the assertions on (not a test itself)."""
    __test__ = False

    def runTest(self):
        pass


@pytest.fixture
def tc():
    case = _Probe()
    case.setUp()
    return case


# ---------------------------------------------------------------- assertRtolEqual

def test_rtol_fp32_equal_near_and_far(tc):
    x = np.random.uniform(-10, 10, (64, 32)).astype(np.float32)
    tc.assertRtolEqual(x, x.copy())
    tc.assertRtolEqual(x, x * (1 + 5e-5))                  # within the relative tolerance
    tc.assertRtolEqual(torch.from_numpy(x), torch.from_numpy(x).npu())
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, x * 1.01)
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, x + 1e-3)


def test_rtol_fp32_tolerates_few_outliers(tc):
    x = np.ones(100000, dtype=np.float32)
    y = x.copy()
    y[:5] = 2.0                                             # 5 <= 1e5 * 1e-4 elements off
    tc.assertRtolEqual(x, y)
    y[:20] = 2.0                                            # 20 > 10 elements off
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, y)


def test_rtol_small_values_pass_on_absolute_tolerance(tc):
    x = np.full(100, 1e-6, dtype=np.float32)
    tc.assertRtolEqual(x, x * 3)                            # relative error 2 but |diff| < 1e-4


def test_rtol_fp16_uses_prec16(tc):
    x = np.random.uniform(-4, 4, 1000).astype(np.float16)
    tc.assertRtolEqual(x, (x.astype(np.float32) * (1 + 4e-4)).astype(np.float16))
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, (x.astype(np.float32) * 1.01).astype(np.float16))
    # prec16 is configurable
    tc.assertRtolEqual(x, (x.astype(np.float32) * 1.01).astype(np.float16), prec16=0.02)


def test_rtol_int_and_bool(tc):
    a = np.arange(-50, 50, dtype=np.int32)
    tc.assertRtolEqual(a, a.copy())
    tc.assertRtolEqual(torch.from_numpy(a).npu(), torch.from_numpy(a))
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(a, a + 1)
    u = np.array([3, 200], dtype=np.uint8)                  # no unsigned wrap-around in the difference
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(u, np.array([5, 200], dtype=np.uint8))
    b = np.array([True, False, True])
    tc.assertRtolEqual(b, b.copy())
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(b, ~b)


def test_rtol_nan_and_inf(tc):
    x = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    tc.assertRtolEqual(x, x.copy())
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, np.array([1.0, 2.0, np.inf, -np.inf], dtype=np.float32))
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, np.array([1.0, np.nan, -np.inf, -np.inf], dtype=np.float32))
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, np.array([1.0, np.nan, 5.0, -np.inf], dtype=np.float32))


def test_rtol_shape_dtype_and_sequences(tc):
    x = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, np.zeros((3, 2), dtype=np.float32))
    with pytest.raises(AssertionError):
        tc.assertRtolEqual(x, np.zeros((2, 3), dtype=np.float16))
    tc.assertRtolEqual(torch.zeros(2, dtype=torch.float16), torch.zeros(2).npu(), auto_trans_dtype=True)
    tc.assertRtolEqual([x, x], [x, x.copy()])
    tc.assertRtolEqual(1.5, 1.5)
    with pytest.raises(AssertionError):
        tc.assertRtolEqual([x, x], [x, x + 1])
    with pytest.raises(AssertionError, match="custom"):
        tc.assertRtolEqual(x, x + 1, message="custom")


# ---------------------------------------------------------------- assertEqual

def test_assert_equal_mixes(tc):
    t = torch.tensor([1.0, 2.0, 3.0])
    tc.assertEqual(t, t.npu())
    tc.assertEqual(t, t.numpy())
    tc.assertEqual(t.numpy(), t.npu())
    tc.assertEqual(torch.tensor(2.0).npu(), 2.0)
    tc.assertEqual(3, torch.tensor(3))
    tc.assertEqual(np.float32(1.0), 1.0)
    tc.assertEqual([t, 1], (t.clone(), 1))
    tc.assertEqual({"a": t}, {"a": t.npu()})
    tc.assertEqual("abc", "abc")
    tc.assertEqual(t, t + 0.05, prec=0.1)
    tc.assertEqual(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2], dtype=torch.int64))
    with pytest.raises(AssertionError):
        tc.assertEqual(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2]), exact_dtype=True)
    with pytest.raises(AssertionError):
        tc.assertEqual(t, t + 0.05)
    with pytest.raises(AssertionError):
        tc.assertEqual(t, torch.ones(2))
    with pytest.raises(AssertionError):
        tc.assertEqual(1.0, 1.1)


def test_assert_equal_nan_inf(tc):
    a = torch.tensor([float("nan"), float("inf"), 1.0])
    tc.assertEqual(a, a.clone(), allow_inf=True)
    with pytest.raises(AssertionError):
        tc.assertEqual(a, a.clone())                       # infinities need allow_inf
    with pytest.raises(AssertionError):
        tc.assertEqual(a, torch.tensor([1.0, float("inf"), 1.0]), allow_inf=True)
    with pytest.raises(AssertionError):
        tc.assertEqual(float("inf"), float("inf"))
    tc.assertEqual(float("inf"), float("inf"), allow_inf=True)


def test_setup_seeds():
    first, second = _Probe(), _Probe()
    first.setUp()
    a = (torch.rand(3), np.random.rand(3))
    second.setUp()
    b = (torch.rand(3), np.random.rand(3))
    assert torch.equal(a[0], b[0]) and np.array_equal(a[1], b[1])


# ---------------------------------------------------------------- tensor factories

@pytest.mark.parametrize("dtype,npu_format,shape", [
    (np.float32, -1, (3, 4)), (np.float32, 0, (2, 3, 4, 5)), (np.float16, 3, (2, 3, 4, 5)),
    (np.float16, 29, (16, 32)), (np.float32, 29, (4, 16, 16)), (np.float16, 4, (16, 16, 3, 3)),
    (np.float32, 2, (7,)), (np.int32, -1, (5, 5))])
def test_create_common_tensor(dtype, npu_format, shape):
    cpu, npu = create_common_tensor([dtype, npu_format, shape], -2, 2)
    expected_dtype = torch.from_numpy(np.zeros(1, dtype=dtype)).dtype
    assert cpu.device.type == "cpu" and npu.device.type == "npu"
    assert cpu.dtype == npu.dtype == expected_dtype
    assert tuple(cpu.shape) == tuple(npu.shape) == tuple(shape)
    if npu_format != -1:
        assert torch_npu.get_npu_format(npu) == npu_format
    assert torch.equal(cpu, npu.cpu())
    if dtype != np.int32:
        assert cpu.min() >= -2 and cpu.max() < 2


def test_create_dtype_tensor():
    cpu, npu = create_dtype_tensor((4, 5), torch.half, npu_format=29, min_value=-1, max_value=1)
    assert cpu.dtype == npu.dtype == torch.half and torch_npu.get_npu_format(npu) == 29
    cpu, npu = create_dtype_tensor((50,), torch.int32, min_value=-3, max_value=3, no_zero=True)
    assert cpu.dtype == torch.int32 and int((cpu == 0).sum()) == 0 and torch.equal(cpu, npu.cpu())
    assert cpu.min() >= -3 and cpu.max() <= 3
    cpu, npu = create_dtype_tensor((6,), torch.bool, npu_format=29)
    assert cpu.dtype == torch.bool and torch.equal(cpu, npu.cpu())


def test_2args_broadcast_helper(tc):
    outputs = broadcast_pairs(torch.add)
    assert len(outputs) == 2
    for cpu_out, npu_out in outputs:
        assert cpu_out.shape == (2, 3, 4, 5)
        tc.assertRtolEqual(cpu_out, npu_out)


# ---------------------------------------------------------------- decorators

def test_instantiate_tests_names_and_arguments():
    calls = []

    @instantiate_tests
    class TestSample(TestCase):
        @Dtypes(torch.float, torch.half)
        @Formats(0, 29)
        def test_op(self, device, dtype, npu_format):
            calls.append((device, dtype, npu_format))

        @Dtypes(torch.int32)
        def test_dtype_only(self, dtype):
            calls.append(dtype)

        @Formats(3)
        def test_format_only(self, device, acl_format):
            calls.append((device, acl_format))

        @graph_mode
        def test_plain(self):
            calls.append("plain")

        @graph_mode
        @Dtypes(torch.half)
        def test_graph(self, device, dtype):
            calls.append(("graph", dtype))

    names = unittest.TestLoader().getTestCaseNames(TestSample)
    assert sorted(names) == sorted([
        "test_op_float32_0", "test_op_float32_29", "test_op_float16_0", "test_op_float16_29",
        "test_dtype_only_int32", "test_format_only_3", "test_plain", "test_graph_float16"])
    assert not hasattr(TestSample, "test_op")
    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
        unittest.TestLoader().loadTestsFromTestCase(TestSample))
    assert result.wasSuccessful()
    assert sorted(map(str, calls)) == sorted(map(str, [
        ("npu", torch.float32, 0), ("npu", torch.float32, 29), ("npu", torch.float16, 0),
        ("npu", torch.float16, 29), torch.int32, ("npu", 3), "plain", ("graph", torch.float16)]))


def test_dtypes_rejects_non_dtypes():
    with pytest.raises((TypeError, ValueError)):
        Dtypes(np.float32)
    with pytest.raises((TypeError, ValueError)):
        Formats()


# ---------------------------------------------------------------- check_operators_in_prof

def test_check_operators_with_autograd_profiler():
    x = torch.randn(8, 8).npu()
    with torch.autograd.profiler.profile() as prof:
        torch.relu(torch.mm(x, x))
    assert check_operators_in_prof(["aten::mm", "relu"], prof)
    assert not check_operators_in_prof(["aten::conv2d"], prof)
    assert not check_operators_in_prof(["mm"], prof, unexpected_operators=["relu"])


def test_contiguous_paths_are_profiler_ranges_named_as_torch_npus():
    # torch_npu's per-op tests look for these names (e.g. test_viewcopy.py).
    x = torch.rand(2, 3).npu()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        x.t().copy_(torch.rand(3, 2).npu())
    assert check_operators_in_prof(["contiguous_d_ViewCopy"], prof)
    y = torch.rand(4, 6).npu()
    with torch.autograd.profiler.profile() as prof:
        y[:, 1:3].contiguous()
        y.t().contiguous()
        y[:1].expand(3, 6).contiguous()
        y.as_strided((3, 3), (1, 2)).contiguous()  # overlapping: no AI Core plan
    assert check_operators_in_prof(["contiguous_d_StridedSlice", "contiguous_d_Transpose",
                                    "contiguous_d_BroadcastTo", "contiguous_d_AsStrided"], prof)


def test_check_operators_with_op_records():
    x = torch.randn(8, 8).npu()
    with torch.npu.op_records() as rec:
        torch.relu(torch.mm(x, x))
    expected = ["MatMul", "Relu"]
    assert check_operators_in_prof(expected, rec)
    assert expected == ["MatMul", "Relu"]                   # not consumed
    assert check_operators_in_prof(["Relu"], rec.records)
    assert not check_operators_in_prof(["Conv2D"], rec)
    assert not check_operators_in_prof(["MatMul"], rec, unexpected_operators=["Relu"])
    torch.npu.clear_op_records()
    torch.npu.set_op_profiling(True)
    try:
        torch.sigmoid(x)
        assert check_operators_in_prof(["Sigmoid"], torch.npu.get_op_records())
    finally:
        torch.npu.set_op_profiling(False)
    with pytest.warns(UserWarning):
        assert not check_operators_in_prof(["Relu"], [])


def test_assert_equal_compares_a_bool_result_with_a_numeric_one_by_value(tc):
    tc.assertEqual(torch.tensor([1.0, 0.0], dtype=torch.half), torch.tensor([True, False]))
    with pytest.raises(AssertionError):
        tc.assertEqual(torch.tensor([1.0, 1.0], dtype=torch.half), torch.tensor([True, False]))
