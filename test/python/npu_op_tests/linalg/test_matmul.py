import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor

# Keep fp32 operands on the Cube (the Ascend910A default rounds them to fp16).
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


class TestMatMul(TestCase):
    def op_exec_cpu(self, mat1, mat2):
        input1 = mat1
        input2 = mat2
        input1.requires_grad = True
        input2.requires_grad = True

        cpu_output = torch.matmul(input1, input2)
        tmp = torch.ones_like(cpu_output)
        cpu_output.backward(tmp)

        return cpu_output.detach().numpy(), input1.grad.numpy(), input2.grad.numpy()

    def op_exec_npu(self, mat1, mat2):
        input1 = mat1
        input2 = mat2
        input1.requires_grad = True
        input2.requires_grad = True

        npu_output = torch.matmul(input1, input2)
        tmp = torch.ones_like(npu_output)
        npu_output.backward(tmp)
        npu_output = npu_output.cpu()
        return npu_output.detach().cpu().numpy(), input1.grad.cpu().numpy(), input2.grad.cpu().numpy()

    def matmul_backward_result(self, shape_format):
        for item in shape_format:
            mat1_cpu, mat1_npu = create_common_tensor(item[0], -10, 10)
            if mat1_cpu.dtype == torch.float16:
                mat1_cpu = mat1_cpu.to(torch.float32)
            mat2_cpu, mat2_npu = create_common_tensor(item[1], -10, 10)
            if mat2_cpu.dtype == torch.float16:
                mat2_cpu = mat2_cpu.to(torch.float32)
            cpu_output, cpu_mat1_grad, cpu_mat2_grad = self.op_exec_cpu(mat1_cpu, mat2_cpu)
            npu_output, npu_mat1_grad, npu_mat2_grad = self.op_exec_npu(mat1_npu, mat2_npu)

            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_mat1_grad.astype(npu_mat1_grad.dtype), npu_mat1_grad)
            self.assertRtolEqual(cpu_mat2_grad.astype(npu_mat2_grad.dtype), npu_mat2_grad)

    def test_matmul_backward_shape_format_fp16_case1(self, device="npu"):
        shape_format = [
            # mat1 1dim, mat2 1dim
            [[np.float16, 2, [5]], [np.float16, 2, [5]]],
            [[np.float16, 2, [16]], [np.float16, 2, [16]]],
        ]
        self.matmul_backward_result(shape_format)

    def test_matmul_backward_shape_format_fp16_case2(self, device="npu"):
        shape_format = [
            # mat1 2dim, mat2 1dim
            [[np.float16, 2, [3, 5]], [np.float16, 2, [5]]],
            [[np.float16, 2, [16, 32]], [np.float16, 2, [32]]],
            # mat1 1dim, mat2 2dim
            [[np.float16, 2, [5]], [np.float16, 2, [5, 6]]],
        ]
        self.matmul_backward_result(shape_format)

    def test_matmul_backward_shape_format_fp16_case3(self, device="npu"):
        shape_format = [
            # mat1 2dim, mat2 2dim
            [[np.float16, 2, [5, 7]], [np.float16, 2, [7, 10]]],
            [[np.float16, 29, [16, 32]], [np.float16, 29, [32, 16]]],
            # mat1 3dim, mat2 2dim / 3dim
            [[np.float16, 2, [2, 5, 7]], [np.float16, 2, [7, 4]]],
            [[np.float16, 2, [2, 5, 7]], [np.float16, 2, [2, 7, 4]]],
        ]
        self.matmul_backward_result(shape_format)

    def test_matmul_backward_shape_format_fp32(self, device="npu"):
        # The broadcast-batch case sums per-batch gradients; in fp16 that rounds twice,
        # so it is checked in fp32 only.
        shape_format = [
            [[np.float32, 2, [5]], [np.float32, 2, [5]]],
            [[np.float32, 2, [3, 5]], [np.float32, 2, [5]]],
            [[np.float32, 0, [5, 7]], [np.float32, 0, [7, 10]]],
            [[np.float32, 29, [16, 32]], [np.float32, 29, [32, 16]]],
            [[np.float32, 2, [2, 5, 7]], [np.float32, 2, [7, 4]]],
            [[np.float32, 2, [3, 2, 5, 7]], [np.float32, 2, [2, 7, 4]]],
        ]
        self.matmul_backward_result(shape_format)


if __name__ == "__main__":
    run_tests()
