import copy

import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestBatchNorm(TestCase):
    def cpu_op_exec(self, input1, num_features, affine):
        model = torch.nn.BatchNorm2d(num_features, affine=affine)
        if affine:
            torch.nn.init.uniform_(model.weight, 0.5, 1.5)
            torch.nn.init.uniform_(model.bias, -0.5, 0.5)
        input1.requires_grad = True
        output = model(input1)
        output.backward(torch.ones_like(output) * torch.arange(output.numel()).reshape(output.shape) / 100)
        return model, output.detach().numpy(), input1.grad.numpy()

    def npu_op_exec(self, model, input1):
        model = copy.deepcopy(model).to(input1.device)
        model.running_mean.zero_()
        model.running_var.fill_(1)
        input1.requires_grad = True
        output = model(input1)
        weight = torch.ones_like(output.cpu()) * torch.arange(output.numel()).reshape(output.shape) / 100
        output.backward(weight.to(output.dtype).to(output.device))
        return model, output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def test_batchnorm_shape_format_fp32(self, device="npu"):
        format_list = [0, 3]
        shape_list = [[2, 8, 6, 6], [4, 16, 4, 4]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        for item in shape_format:
            for affine in [True, False]:
                cpu_input, npu_input = create_common_tensor(item, 1, 10)
                cpu_model, cpu_output, cpu_grad = self.cpu_op_exec(cpu_input, item[2][1], affine)
                npu_model, npu_output, npu_grad = self.npu_op_exec(cpu_model, npu_input)
                self.assertRtolEqual(cpu_output, npu_output, prec=1.e-3)
                self.assertRtolEqual(cpu_grad, npu_grad, prec=1.e-3)
                self.assertRtolEqual(cpu_model.running_mean.numpy(), npu_model.running_mean.cpu().numpy())
                self.assertRtolEqual(cpu_model.running_var.numpy(), npu_model.running_var.cpu().numpy(), prec=1.e-3)
                if affine:
                    self.assertRtolEqual(cpu_model.weight.grad.numpy(), npu_model.weight.grad.cpu().numpy(),
                                         prec=1.e-3)
                    self.assertRtolEqual(cpu_model.bias.grad.numpy(), npu_model.bias.grad.cpu().numpy(), prec=1.e-3)

    def test_batchnorm_shape_format_fp16(self, device="npu"):
        format_list = [0, 3]
        shape_format = [[np.float16, i, [2, 8, 6, 6]] for i in format_list]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, 1, 10)
            cpu_model, cpu_output, _ = self.cpu_op_exec(cpu_input.float(), item[2][1], True)
            npu_model = copy.deepcopy(cpu_model).npu().half()
            npu_model.running_mean.zero_()
            npu_model.running_var.fill_(1)
            npu_output = npu_model(npu_input).detach().cpu().numpy()
            self.assertRtolEqual(cpu_output.astype(np.float16), npu_output, prec16=1.e-2)

    def test_batchnorm_eval(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 3, [2, 4, 5, 5]], -5, 5)
        model = torch.nn.BatchNorm2d(4)
        model.running_mean.uniform_(-1, 1)
        model.running_var.uniform_(0.5, 2)
        model.eval()
        cpu_output = model(cpu_input).detach().numpy()
        npu_output = model.npu()(npu_input).detach().cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
