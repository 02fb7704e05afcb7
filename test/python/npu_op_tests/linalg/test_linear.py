import copy

import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor

# Keep fp32 operands on the Cube (the Ascend910A default rounds them to fp16).
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


class TestLinear(TestCase):
    def cpu_op_exec(self, input1, weight, bias=None):
        output = torch.nn.functional.linear(input1, weight, bias)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, weight, bias=None):
        output = torch.nn.functional.linear(input1, weight, bias)
        output = output.cpu()
        output = output.numpy()
        return output

    def test_linear_shape_format_fp32(self, device="npu"):
        shape_format = [
            [[np.float32, 0, [6, 16]], [np.float32, 0, [8, 16]], [np.float32, 0, [8]]],
            [[np.float32, 29, [32, 64]], [np.float32, 29, [16, 64]], [np.float32, 0, [16]]],
            [[np.float32, 0, [2, 5, 16]], [np.float32, 2, [4, 16]], None],
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -2, 2)
            cpu_weight, npu_weight = create_common_tensor(item[1], -2, 2)
            cpu_bias, npu_bias = create_common_tensor(item[2], -2, 2) if item[2] else (None, None)
            cpu_output = self.cpu_op_exec(cpu_input, cpu_weight, cpu_bias)
            npu_output = self.npu_op_exec(npu_input, npu_weight, npu_bias)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_linear_shape_format_fp16(self, device="npu"):
        shape_format = [
            [[np.float16, 0, [6, 16]], [np.float16, 0, [8, 16]]],
            [[np.float16, 29, [32, 64]], [np.float16, 29, [16, 64]]],
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -2, 2)
            cpu_weight, npu_weight = create_common_tensor(item[1], -2, 2)
            cpu_output = self.cpu_op_exec(cpu_input.float(), cpu_weight.float()).astype(np.float16)
            npu_output = self.npu_op_exec(npu_input, npu_weight)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_linear_module_backward(self, device="npu"):
        cpu_model = torch.nn.Linear(12, 6)
        npu_model = copy.deepcopy(cpu_model).npu()
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [5, 12]], -1, 1)
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        cpu_model(cpu_input).pow(2).sum().backward()
        npu_model(npu_input).pow(2).sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())
        self.assertRtolEqual(cpu_model.weight.grad.numpy(), npu_model.weight.grad.cpu().numpy())
        self.assertRtolEqual(cpu_model.bias.grad.numpy(), npu_model.bias.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
