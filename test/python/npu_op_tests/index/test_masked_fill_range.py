import itertools

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMaskedFillRange(TestCase):
    def cpu_op_exec(self, input1, start, end, value, axis):
        """torch_npu's reference: for every range row i and column j, positions start[i, j] <= k < end[i, j]
        along axis take value[i] (rows of (N, D) / (N, C, D) inputs by j for the last axis)."""
        out = input1.clone()
        dim = input1.dim()
        axis = axis % dim
        for i, j in itertools.product(range(start.size(0)), range(start.size(1))):
            for k in range(start[i, j], end[i, j]):
                if dim == 1:
                    out[k] = value[i]
                elif dim == 2:
                    if axis == 0:
                        out[k, :] = value[i]
                    else:
                        out[j, k] = value[i]
                elif axis == 0:
                    out[k, :, :] = value[i]
                elif axis == 1:
                    out[:, k, :] = value[i]
                else:
                    out[j, :, k] = value[i]
        return out

    def npu_op_exec(self, input1, start, end, value, axis):
        return torch_npu.npu_masked_fill_range(input1, start.npu(), end.npu(), value.npu(), axis).cpu()

    def test_masked_fill_range_doc_example(self, device="npu"):
        a = torch.rand(4, 4)
        start = torch.tensor([[0, 1, 2]], dtype=torch.int32)
        end = torch.tensor([[1, 2, 3]], dtype=torch.int32)
        value = torch.tensor([1], dtype=torch.float)
        expect = a.clone()
        expect[0, 0] = expect[1, 1] = expect[2, 2] = 1
        self.assertRtolEqual(expect, self.npu_op_exec(a.npu(), start, end, value, 1))

    def test_masked_fill_range_dtypes(self, device="npu"):
        # torch_npu's test_masked_fill_range.py on (4, 8, 40) instead of (32, 64, 1688)
        start = torch.tensor([list(range(0, 4))], dtype=torch.int32)
        end = torch.tensor([list(range(6, 10))], dtype=torch.int32)
        for np_dtype, dtype in ((np.float32, torch.float32), (np.float16, torch.float16),
                                (np.int32, torch.int32), (np.int8, torch.int8)):
            cpu_input, npu_input = create_common_tensor([np_dtype, -1, [4, 8, 40]], 1, 100)
            value = torch.tensor([1], dtype=dtype)
            output = self.npu_op_exec(npu_input, start, end, value, 2)
            self.assertEqual(output.dtype, dtype)
            self.assertRtolEqual(self.cpu_op_exec(cpu_input, start, end, value, 2), output)

    def test_masked_fill_range_axes(self, device="npu"):
        # two range rows (the second one, filled later, overlapping the first), one of them empty somewhere
        cases = [([40], [0, -1]), ([6, 40], [0, 1, -1, -2]), ([4, 8, 40], [0, 1, 2, -1, -2, -3])]
        for shape, axes in cases:
            for axis in axes:
                size = shape[axis]
                n = shape[0] if len(shape) > 1 else 3
                start = torch.randint(0, size, (2, n), dtype=torch.int32)
                end = (start + torch.randint(0, 4, (2, n), dtype=torch.int32)).clamp(max=size)
                end[0, 0] = start[0, 0]  # an empty range
                for dtype in (torch.float32, torch.float16, torch.int32, torch.int8):
                    cpu_input = torch.randint(1, 100, shape).to(dtype)
                    value = torch.tensor([-3, 7], dtype=dtype)
                    output = self.npu_op_exec(cpu_input.npu(), start, end, value, axis)
                    self.assertRtolEqual(self.cpu_op_exec(cpu_input, start, end, value, axis), output)

    def test_masked_fill_range_checks(self, device="npu"):
        x = torch.rand(4, 8).npu()
        start = torch.tensor([[0, 1]], dtype=torch.int32)
        end = torch.tensor([[2, 3]], dtype=torch.int32)
        with self.assertRaises(RuntimeError):  # value's dtype must be self's
            self.npu_op_exec(x, start, end, torch.tensor([1], dtype=torch.int32), -1)
        with self.assertRaises(RuntimeError):  # start and end of one shape
            self.npu_op_exec(x, start, end[:, :1], torch.tensor([1.]), -1)
        with self.assertRaises(RuntimeError):  # a value per range row
            self.npu_op_exec(x, start, end, torch.tensor([1., 2.]), -1)
        with self.assertRaises(RuntimeError):  # axis in [-dim, dim - 1]
            self.npu_op_exec(x, start, end, torch.tensor([1.]), 2)


if __name__ == "__main__":
    run_tests()
