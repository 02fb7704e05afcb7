import copy

import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestLayerNorm(TestCase):
    def op_exec(self, model, input1):
        input1.requires_grad = True
        output = model(input1)
        grad = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(grad.to(output.dtype).to(output.device))
        return output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def layer_norm_result(self, shape_format):
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -5, 5)
            cpu_model = torch.nn.LayerNorm(item[1])
            torch.nn.init.uniform_(cpu_model.weight, 0.5, 1.5)
            torch.nn.init.uniform_(cpu_model.bias, -0.5, 0.5)
            npu_model = copy.deepcopy(cpu_model).npu()
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
                npu_model = npu_model.half()
            cpu_output, cpu_grad = self.op_exec(cpu_model, cpu_input)
            npu_output, npu_grad = self.op_exec(npu_model, npu_input)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output, prec=1.e-3, prec16=1.e-2)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad, prec=1.e-3, prec16=1.e-2)
            if cpu_input.dtype == npu_input.dtype:
                self.assertRtolEqual(cpu_model.weight.grad.numpy(), npu_model.weight.grad.cpu().numpy(), prec=1.e-3)
                self.assertRtolEqual(cpu_model.bias.grad.numpy(), npu_model.bias.grad.cpu().numpy(), prec=1.e-3)

    def test_layer_norm_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [[[np.float32, i, [2, 3, 16, 16]], [16]] for i in format_list] + [
            [[np.float32, 0, [4, 32]], [32]],
            [[np.float32, 0, [2, 5, 8]], [5, 8]],
        ]
        self.layer_norm_result(shape_format)

    def test_layer_norm_shape_format_fp16(self, device="npu"):
        format_list = [0, 29]
        shape_format = [[[np.float16, i, [4, 16, 32]], [32]] for i in format_list]
        self.layer_norm_result(shape_format)


if __name__ == "__main__":
    run_tests()
