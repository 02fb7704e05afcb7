import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuOneHot(TestCase):
    def custom_one_hot(self, input1, num_classes=-1, depth=1, on_value=1, off_value=0):
        """torch_npu's reference: F.one_hot, then cut or zero-padded to depth columns."""
        output = torch.nn.functional.one_hot(input1.long(), num_classes).float()
        output[output == 1] = on_value
        output[output == 0] = off_value
        if output.size(-1) >= depth:
            return output[..., :depth]
        zero = torch.zeros(list(output.shape[:-1]) + [depth - output.size(-1)])
        return torch.cat((output, zero), dim=-1)

    def cpu_op_exec(self, input1, axis=-1, depth=1, on_value=1, off_value=0):
        """on_value where the index equals the position along the new axis `axis` of depth positions."""
        hot = input1.long()[..., None] == torch.arange(depth)
        output = torch.where(hot, torch.tensor(float(on_value)), torch.tensor(float(off_value)))
        return output if axis == -1 else output.movedim(-1, axis)

    def npu_op_exec(self, input1, num_classes=-1, depth=1, on_value=1, off_value=0):
        return torch_npu.npu_one_hot(input1.npu(), num_classes, depth, on_value, off_value).cpu()

    def test_one_hot(self, device="npu"):
        # torch_npu's custom_ops/test_npu_one_hot.py
        inputs = [torch.randint(1, 4, (2, 3)), torch.randint(1, 4, (1, 2, 3)), torch.randint(1, 4, (2, 2, 3))]
        for depth in (3, 10):
            for item in inputs:
                output = self.npu_op_exec(item, -1, depth, 1, 0)
                self.assertEqual(output.dtype, torch.float32)
                self.assertRtolEqual(self.custom_one_hot(item, -1, depth, 1, 0), output)

    def test_one_hot_doc_example(self, device="npu"):
        a = torch.IntTensor([5, 3, 2, 1])
        expect = torch.tensor([[0., 0., 0., 0., 0.],
                               [0., 0., 0., 1., 0.],
                               [0., 0., 1., 0., 0.],
                               [0., 1., 0., 0., 0.]])
        self.assertRtolEqual(expect, torch_npu.npu_one_hot(a.npu(), depth=5).cpu())

    def test_one_hot_on_off_values(self, device="npu"):
        for dtype in (torch.int32, torch.int64):
            x = torch.randint(0, 8, (3, 7)).to(dtype)  # indices >= depth give an all-off row
            output = self.npu_op_exec(x, -1, 6, 2.5, -0.5)
            self.assertEqual(output.shape, (3, 7, 6))
            self.assertRtolEqual(self.cpu_op_exec(x, -1, 6, 2.5, -0.5), output)
        x = torch.arange(6, dtype=torch.int32)
        self.assertRtolEqual(self.cpu_op_exec(x, -1, 4, 3, 1), self.npu_op_exec(x, depth=4, on_value=3, off_value=1))

    def test_one_hot_axis(self, device="npu"):
        # num_classes is the axis of the one-hot dimension in the output
        x = torch.randint(0, 6, (3, 4)).int()
        for axis, shape in ((0, (5, 3, 4)), (1, (3, 5, 4)), (2, (3, 4, 5)), (-1, (3, 4, 5))):
            output = self.npu_op_exec(x, axis, 5, 1, 0)
            self.assertEqual(output.shape, shape)
            self.assertRtolEqual(self.cpu_op_exec(x, axis, 5, 1, 0), output)
        x = torch.randint(0, 4, (5,)).int()
        self.assertRtolEqual(self.cpu_op_exec(x, 0, 4, 1, 0), self.npu_op_exec(x, 0, 4, 1, 0))


if __name__ == "__main__":
    run_tests()
