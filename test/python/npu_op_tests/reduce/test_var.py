import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestVar(TestCase):
    """torch.var and torch.std."""

    def cpu_op_exec(self, op, input1, dim, unbiased, keepdim):
        if dim is None:
            output = op(input1, unbiased=unbiased)
        else:
            output = op(input1, dim, unbiased=unbiased, keepdim=keepdim)
        output = output.numpy()
        return output

    def npu_op_exec(self, op, input1, dim, unbiased, keepdim):
        if dim is None:
            output = op(input1, unbiased=unbiased)
        else:
            output = op(input1, dim, unbiased=unbiased, keepdim=keepdim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, op, input1, dim, unbiased):
        input1.requires_grad = True
        output = op(input1, dim, unbiased=unbiased)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def var_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            dim, unbiased, keepdim = item[1], item[2], item[3]
            for op in [torch.var, torch.std]:
                cpu_output = self.cpu_op_exec(op, cpu_input1, dim, unbiased, keepdim)
                npu_output = self.npu_op_exec(op, npu_input1, dim, unbiased, keepdim)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

    def var_cases(self, dtype):
        format_list = [0, 3, 29]
        dim_list = [(0, True, False), (1, True, True), (-1, False, False), ((2, 3), True, False),
                    (None, True, False), (None, False, False)]
        return [[[dtype, i, [2, 3, 8, 16]], d, u, k] for i in format_list for d, u, k in dim_list]

    def test_var_shape_format_fp16(self, device="npu"):
        self.var_result(self.var_cases(np.float16))

    def test_var_shape_format_fp32(self, device="npu"):
        shape_format = self.var_cases(np.float32)
        shape_format += [[[np.float32, 0, [64]], 0, True, False], [[np.float32, 0, [16, 32]], 1, False, True]]
        self.var_result(shape_format)

    def test_var_mean(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 6, 10]], -5, 5)
        cpu_var, cpu_mean = torch.var_mean(cpu_input1, 1)
        npu_var, npu_mean = torch.var_mean(npu_input1, 1)
        self.assertRtolEqual(cpu_var.numpy(), npu_var.cpu().numpy())
        self.assertRtolEqual(cpu_mean.numpy(), npu_mean.cpu().numpy())

    def test_var_backward(self, device="npu"):
        # fp32 only: the fp16 gradient (x - mean) / ((n - 1) * std) suffers cancellation when
        # x is close to its mean, which is an fp16 property and not a backend defect.
        for item, dim in [([np.float32, 0, [4, 10]], 1), ([np.float32, 3, [2, 3, 4, 5]], 1),
                          ([np.float32, 29, [16, 16]], 0)]:
            for op in [torch.var, torch.std]:
                for unbiased in [True, False]:
                    cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
                    cpu_grad = self.op_backward_exec(op, cpu_input1, dim, unbiased)
                    npu_grad = self.op_backward_exec(op, npu_input1, dim, unbiased)
                    self.assertRtolEqual(cpu_grad, npu_grad)


if __name__ == "__main__":
    run_tests()
