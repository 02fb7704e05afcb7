import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor

# Keep fp32 operands on the Cube (the Ascend910A default rounds them to fp16).
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


class TestConv2d(TestCase):
    weight_grad = []
    input_grad = []

    def getWeightGrad(self, grad):
        self.weight_grad.append(grad.to("cpu"))

    def getInputGrad(self, grad):
        self.input_grad.append(grad.to("cpu"))

    def op_exec(self, input1, weight, bias, stride, padding, dilation, groups):
        input1.requires_grad = True
        input1.register_hook(lambda grad: self.getInputGrad(grad))
        weight.requires_grad = True
        weight.register_hook(lambda grad: self.getWeightGrad(grad))
        conv = torch.nn.functional.conv2d(input1, weight, bias, stride=stride, padding=padding,
                                          dilation=dilation, groups=groups)
        tmp = torch.ones_like(conv)
        conv.backward(tmp)
        return conv.detach().to("cpu").numpy()

    def conv2d_result(self, shape_format):
        for item in shape_format:
            self.weight_grad.clear()
            self.input_grad.clear()
            input_cpu, input_npu = create_common_tensor(item[0], -1, 1)
            weight_cpu, weight_npu = create_common_tensor(item[1], -1, 1)
            if input_cpu.dtype == torch.float16:
                input_cpu = input_cpu.to(torch.float32)
                weight_cpu = weight_cpu.to(torch.float32)
            stride, padding, dilation, groups = item[2], item[3], item[4], item[5]
            cpu_output = self.op_exec(input_cpu, weight_cpu, None, stride, padding, dilation, groups)
            npu_output = self.op_exec(input_npu, weight_npu, None, stride, padding, dilation, groups)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.input_grad[0] = self.input_grad[0].to(self.input_grad[1].dtype)
            self.weight_grad[0] = self.weight_grad[0].to(self.weight_grad[1].dtype)

            self.assertRtolEqual(cpu_output, npu_output)
            self.assertRtolEqual(self.input_grad[0].numpy(), self.input_grad[1].numpy())
            self.assertRtolEqual(self.weight_grad[0].numpy(), self.weight_grad[1].numpy())

    def test_conv2d_backward_shape_format_fp16(self, device="npu"):
        shape_format = [
            # input, weight, stride, padding, dilation, groups
            [[np.float16, 0, [2, 4, 8, 8]], [np.float16, 0, [8, 4, 3, 3]], 1, 1, 1, 1],
            [[np.float16, 3, [2, 4, 8, 8]], [np.float16, 4, [8, 4, 3, 3]], 2, 0, 1, 1],
            [[np.float16, 3, [1, 16, 7, 7]], [np.float16, 4, [16, 16, 1, 1]], 1, 0, 1, 1],
        ]
        self.conv2d_result(shape_format)

    def test_conv2d_backward_shape_format_fp32(self, device="npu"):
        shape_format = [
            [[np.float32, 0, [2, 4, 8, 8]], [np.float32, 0, [8, 4, 3, 3]], 1, 1, 1, 1],
            [[np.float32, 3, [2, 4, 8, 8]], [np.float32, 4, [8, 4, 3, 3]], 2, 0, 1, 1],
            [[np.float32, 0, [1, 4, 9, 9]], [np.float32, 0, [4, 2, 3, 3]], 1, 2, 2, 2],
            [[np.float32, 3, [1, 16, 7, 7]], [np.float32, 4, [16, 16, 1, 1]], 1, 0, 1, 1],
        ]
        self.conv2d_result(shape_format)

    def test_conv2d_module_with_bias(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [2, 3, 10, 10]], -1, 1)
        model = torch.nn.Conv2d(3, 6, kernel_size=3, padding=1, bias=True)
        cpu_output = model(cpu_input).detach().numpy()
        npu_output = model.npu()(npu_input).detach().cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
