import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPULayernormGrad(TestCase):
    def test_layernorm_grad(self):
        x = torch.randn(4, 6, 32)
        weight, bias = torch.rand(32) + 0.5, torch.randn(32)
        grad_out = torch.randn(4, 6, 32)
        _, mean, rstd = torch.native_layer_norm(x, (32,), weight, bias, 1e-5)
        want = torch.ops.aten.native_layer_norm_backward(grad_out, x, (32,), mean, rstd, weight, bias,
                                                         [True, True, True])
        _, npu_mean, npu_rstd = torch.native_layer_norm(x.npu(), (32,), weight.npu(), bias.npu(), 1e-5)
        got = torch_npu.npu_layernorm_grad(grad_out.npu(), x.npu(), (32,), npu_mean, npu_rstd, weight.npu(),
                                           bias.npu())
        for w, g in zip(want, got):
            self.assertRtolEqual(w.numpy(), g.cpu().numpy())


if __name__ == "__main__":
    run_tests()
