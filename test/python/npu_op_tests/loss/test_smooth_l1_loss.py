import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSmoothL1Loss(TestCase):
    def op_exec(self, input1, target, reduction, beta):
        input1.requires_grad = True
        output = torch.nn.functional.smooth_l1_loss(input1, target, reduction=reduction, beta=beta)
        output.backward(torch.ones_like(output))
        return output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def smooth_l1_loss_result(self, shape_format):
        for item in shape_format:
            for beta in [1.0, 0.5]:
                cpu_input1, npu_input1 = create_common_tensor(item[0], -3, 3)
                cpu_input2, npu_input2 = create_common_tensor(item[0], -3, 3)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                    cpu_input2 = cpu_input2.to(torch.float32)
                cpu_output, cpu_grad = self.op_exec(cpu_input1, cpu_input2, item[1], beta)
                npu_output, npu_grad = self.op_exec(npu_input1, npu_input2, item[1], beta)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
                self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_smooth_l1_loss_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 8, 8]], reduction] for i in format_list for reduction in ["mean", "sum", "none"]
        ] + [[[np.float32, 0, [64]], "mean"], [[np.float32, 0, [16, 32]], "none"]]
        self.smooth_l1_loss_result(shape_format)

    def test_smooth_l1_loss_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 8, 8]], reduction] for i in format_list for reduction in ["mean", "sum", "none"]
        ]
        self.smooth_l1_loss_result(shape_format)

    def test_smooth_l1_loss_module(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 10]], -3, 3)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [4, 10]], -3, 3)
        cpu_output = torch.nn.SmoothL1Loss()(cpu_input1, cpu_input2).numpy()
        npu_output = torch.nn.SmoothL1Loss().npu()(npu_input1, npu_input2).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
