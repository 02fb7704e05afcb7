import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUFFN(TestCase):
    def activation(self, name, x):
        if name == "fastgelu":
            return x / (1 + np.exp(-1.702 * x))
        if name in ("gelu", "geglu"):
            return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
        if name in ("silu", "swiglu"):
            return x / (1 + np.exp(-x))
        return np.maximum(x, 0)

    def supported_op_exec(self, x, weight1, weight2, activation):
        mm1 = x.astype(np.float32) @ weight1.astype(np.float32)
        if activation in ("geglu", "swiglu", "reglu"):
            a, b = np.split(mm1, 2, axis=-1)
            h = self.activation(activation, a) * b
        else:
            h = self.activation(activation, mm1)
        return (h.astype(x.dtype).astype(np.float32) @ weight2.astype(np.float32)).astype(x.dtype)

    def custom_op_exec(self, x, weight1, weight2, activation):
        return torch_npu.npu_ffn(x.npu(), weight1.npu(), weight2.npu(), activation, inner_precise=1).cpu().numpy()

    def test_npu_ffn(self):
        for activation in ("fastgelu", "gelu", "relu", "silu", "swiglu"):
            x = np.random.uniform(-1, 1, [8, 64]).astype(np.float16)
            weight1 = np.random.uniform(-0.2, 0.2, [64, 128]).astype(np.float16)
            k2 = 64 if activation == "swiglu" else 128
            weight2 = np.random.uniform(-0.2, 0.2, [k2, 64]).astype(np.float16)
            want = self.supported_op_exec(x, weight1, weight2, activation)
            got = self.custom_op_exec(*(torch.from_numpy(t) for t in (x, weight1, weight2)), activation)
            self.assertRtolEqual(want, got, prec16=4e-3)

    def test_npu_ffn_experts(self):
        x, w1, w2 = torch.randn(6, 32).half(), torch.randn(2, 32, 16).half() * 0.2, torch.randn(2, 16, 32).half() * 0.2
        y = torch_npu.npu_ffn(x.npu(), w1.npu(), w2.npu(), "relu", expert_tokens=[2, 4]).cpu()
        for rows, e in ((slice(0, 2), 0), (slice(2, 6), 1)):
            want = self.supported_op_exec(x[rows].numpy(), w1[e].numpy(), w2[e].numpy(), "relu")
            self.assertRtolEqual(want, y[rows].numpy(), prec16=4e-3)


if __name__ == "__main__":
    run_tests()
