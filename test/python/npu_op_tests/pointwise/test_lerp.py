import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestLerp(TestCase):
    def cpu_op_exec(self, input1, input2, weight):
        output = torch.lerp(input1, input2, weight)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2, weight):
        output = torch.lerp(input1, input2, weight)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, input2, weight):
        input1.lerp_(input2, weight)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, input2, weight):
        tensors = [input1, input2] + ([weight] if isinstance(weight, torch.Tensor) else [])
        for t in tensors:
            t.requires_grad = True
        output = torch.lerp(input1, input2, weight)
        output.backward(torch.ones_like(output))
        return [t.grad.cpu().numpy() for t in tensors]

    def lerp_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_input2, npu_input2 = create_common_tensor(item, -10, 10)
            cpu_weight, npu_weight = create_common_tensor(item, 0, 1)
            # A scalar weight is taken in the input dtype (as PyTorch's CPU Half kernel does with
            # weight.to<scalar_t>()), so fp16 cases use weights that fp16 holds exactly.
            scalar_weights = [0.3, 0.8]
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
                cpu_weight = cpu_weight.to(torch.float32)
                scalar_weights = [0.25, 0.75]
            for cpu_w, npu_w in [(w, w) for w in scalar_weights] + [(cpu_weight, npu_weight)]:
                cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, cpu_w)
                npu_output = self.npu_op_exec(npu_input1, npu_input2, npu_w)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_inplace = self.npu_op_exec_inplace(npu_input1.clone(), npu_input2, npu_w)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_lerp_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.lerp_result(shape_format)

    def test_lerp_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.lerp_result(shape_format)

    def test_lerp_broadcast(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 8, 16]], -10, 10)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [16]], -10, 10)
        cpu_weight, npu_weight = create_common_tensor([np.float32, 0, [8, 1]], 0, 1)
        cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, cpu_weight)
        npu_output = self.npu_op_exec(npu_input1, npu_input2, npu_weight)
        self.assertRtolEqual(cpu_output, npu_output)

    def test_lerp_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float16, 0, [4, 32]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_input2, npu_input2 = create_common_tensor(item, -10, 10)
            cpu_weight, npu_weight = create_common_tensor(item, 0, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
                cpu_weight = cpu_weight.to(torch.float32)
            for cpu_w, npu_w in [(0.25, 0.25), (cpu_weight, npu_weight)]:
                cpu_grads = self.op_backward_exec(cpu_input1.clone(), cpu_input2.clone(),
                                                  cpu_w.clone() if isinstance(cpu_w, torch.Tensor) else cpu_w)
                npu_grads = self.op_backward_exec(npu_input1.clone(), npu_input2.clone(),
                                                  npu_w.clone() if isinstance(npu_w, torch.Tensor) else npu_w)
                for cpu_grad, npu_grad in zip(cpu_grads, npu_grads):
                    self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
