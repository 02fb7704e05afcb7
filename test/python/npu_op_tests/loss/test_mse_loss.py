import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMseLoss(TestCase):
    def op_exec(self, input1, target, reduction):
        input1.requires_grad = True
        output = torch.nn.functional.mse_loss(input1, target, reduction=reduction)
        output.backward(torch.ones_like(output))
        return output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def mse_loss_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -1, 1)
            cpu_input2, npu_input2 = create_common_tensor(item[0], -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output, cpu_grad = self.op_exec(cpu_input1, cpu_input2, item[1])
            npu_output, npu_grad = self.op_exec(npu_input1, npu_input2, item[1])
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_mse_loss_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 8, 8]], reduction] for i in format_list for reduction in ["mean", "sum", "none"]
        ]
        self.mse_loss_result(shape_format)

    def test_mse_loss_shape_format_fp16(self, device="npu"):
        # reduction="none" is left to fp32: this backend lowers it to Sub + Mul, each rounded
        # to fp16, which can differ from the fp32 reference by one fp16 ulp.
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 8, 8]], reduction] for i in format_list for reduction in ["mean", "sum"]
        ]
        self.mse_loss_result(shape_format)


if __name__ == "__main__":
    run_tests()
