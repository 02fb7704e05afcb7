import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUBmmV2Backward(TestCase):
    def supported_op_exec(self, mat1, mat2, grad):
        mat1, mat2 = mat1.clone().requires_grad_(), mat2.clone().requires_grad_()
        torch.matmul(mat1, mat2).backward(grad)
        return mat1.grad.numpy(), mat2.grad.numpy()

    def custom_op_exec(self, mat1, mat2, grad):
        mat1, mat2, grad = mat1.npu(), mat2.npu(), grad.npu()
        dmat1 = torch_npu.npu_bmm_v2_mat1_backward(grad, mat1, mat2, mat1.size())
        dmat2 = torch_npu.npu_bmm_v2_mat2_backward(grad, mat1, mat2, mat2.size())
        return dmat1.cpu().numpy(), dmat2.cpu().numpy()

    def test_npu_bmm_v2_backward(self):
        for shape1, shape2 in (([10, 3, 4], [10, 4, 5]), ([2, 10, 3, 4], [4, 5]), ([4], [10, 4, 5]),
                               ([10, 3, 4], [4])):
            mat1, mat2 = torch.randn(shape1), torch.randn(shape2)
            grad = torch.randn(torch.matmul(mat1, mat2).shape)
            for want, got in zip(self.supported_op_exec(mat1, mat2, grad), self.custom_op_exec(mat1, mat2, grad)):
                self.assertRtolEqual(want, got)


if __name__ == "__main__":
    run_tests()
