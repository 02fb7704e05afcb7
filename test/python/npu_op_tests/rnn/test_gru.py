import copy

import numpy as np
import torch
import torch_npu  # noqa: F401  (installs the "npu" device)

from torch_npu.testing.testcase import TestCase, run_tests


class TestGru(TestCase):
    """nn.GRU on the NPU (DynamicGRUV2 per layer and direction) against the CPU's."""

    def cpu_and_npu(self, **kwargs):
        cpu = torch.nn.GRU(**kwargs)
        return cpu, copy.deepcopy(cpu).npu()

    def test_gru_single_direction(self):
        for dtype in (torch.float32, torch.float16):
            cpu, npu = self.cpu_and_npu(input_size=16, hidden_size=32, num_layers=1)
            x = torch.randn(5, 3, 16)
            want, wh = cpu(x)
            got, gh = npu.to(dtype)(x.to(dtype).npu())
            prec = 1e-3 if dtype == torch.float32 else 1e-2
            self.assertRtolEqual(want.detach().numpy(), got.float().cpu().detach().numpy(), prec=prec)
            self.assertRtolEqual(wh.detach().numpy(), gh.float().cpu().detach().numpy(), prec=prec)

    def test_gru_bidirection(self):
        cpu, npu = self.cpu_and_npu(input_size=10, hidden_size=20, num_layers=2, bidirectional=True,
                                    batch_first=True)
        x = torch.randn(4, 6, 10)
        want, _ = cpu(x)
        got, _ = npu(x.npu())
        self.assertRtolEqual(want.detach().numpy(), got.cpu().detach().numpy())

    def test_gru_backward(self):
        cpu, npu = self.cpu_and_npu(input_size=8, hidden_size=12, num_layers=2, bidirectional=True)
        x = torch.randn(7, 2, 8, requires_grad=True)
        xn = x.detach().npu().requires_grad_()
        cpu(x)[0].sum().backward()
        npu(xn)[0].sum().backward()
        self.assertRtolEqual(x.grad.numpy(), xn.grad.cpu().numpy())
        for p, q in zip(cpu.parameters(), npu.parameters()):
            self.assertRtolEqual(p.grad.numpy(), q.grad.cpu().numpy())

    def test_gru_cell(self):
        cpu = torch.nn.GRUCell(6, 9)
        npu = copy.deepcopy(cpu).npu()
        x, h = torch.randn(4, 6), torch.randn(4, 9)
        self.assertRtolEqual(cpu(x, h).detach().numpy(), npu(x.npu(), h.npu()).cpu().detach().numpy())


if __name__ == "__main__":
    np.random.seed(0)
    run_tests()
