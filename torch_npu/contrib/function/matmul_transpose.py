"""torch_npu.contrib.function.matmul_transpose (torch_npu/contrib/function/matmul_transpose.py):
tensor1 @ tensor2^T with a hand-written backward (grad @ tensor2, grad^T @ tensor1), as an attention
score Q @ K^T."""
import torch

__all__ = ["matmul_transpose"]


class _MatmulTranspose(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor1, tensor2):
        ctx.save_for_backward(tensor1, tensor2)
        return torch.matmul(tensor1, tensor2.transpose(-2, -1))

    @staticmethod
    def backward(ctx, grad):
        tensor1, tensor2 = ctx.saved_tensors
        grad1 = grad2 = None
        if ctx.needs_input_grad[0]:
            grad1 = torch.matmul(grad, tensor2).sum_to_size(tensor1.shape)
        if ctx.needs_input_grad[1]:
            grad2 = torch.matmul(grad.transpose(-2, -1), tensor1).sum_to_size(tensor2.shape)
        return grad1, grad2


def matmul_transpose(tensor1, tensor2):
    """torch.matmul(tensor1, tensor2.transpose(-2, -1)): (..., m, k) x (..., n, k) -> (..., m, n)."""
    return _MatmulTranspose.apply(tensor1, tensor2)
