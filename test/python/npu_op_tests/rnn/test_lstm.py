import copy

import numpy as np
import torch
import torch_npu  # noqa: F401  (installs the "npu" device)

from torch_npu.testing.testcase import TestCase, run_tests


class TestLstm(TestCase):
    """nn.LSTM on the NPU (DynamicRNN per layer and direction) against the CPU's."""

    def cpu_and_npu(self, **kwargs):
        cpu = torch.nn.LSTM(**kwargs)
        return cpu, copy.deepcopy(cpu).npu()

    def test_lstm_single_direction(self):
        for dtype in (torch.float32, torch.float16):
            cpu, npu = self.cpu_and_npu(input_size=16, hidden_size=32, num_layers=1)
            x = torch.randn(5, 3, 16)
            want, (wh, wc) = cpu(x)
            got, (gh, gc) = npu.to(dtype)(x.to(dtype).npu())
            prec = 1e-3 if dtype == torch.float32 else 1e-2
            self.assertRtolEqual(want.detach().numpy(), got.float().cpu().detach().numpy(), prec=prec)
            self.assertRtolEqual(wh.detach().numpy(), gh.float().cpu().detach().numpy(), prec=prec)
            self.assertRtolEqual(wc.detach().numpy(), gc.float().cpu().detach().numpy(), prec=prec)

    def test_lstm_bidirection(self):
        cpu, npu = self.cpu_and_npu(input_size=10, hidden_size=20, num_layers=2, bidirectional=True,
                                    batch_first=True)
        x = torch.randn(4, 6, 10)
        want, _ = cpu(x)
        got, _ = npu(x.npu())
        self.assertRtolEqual(want.detach().numpy(), got.cpu().detach().numpy())

    def test_lstm_backward(self):
        cpu, npu = self.cpu_and_npu(input_size=8, hidden_size=12, num_layers=2, bidirectional=True)
        x = torch.randn(7, 2, 8, requires_grad=True)
        xn = x.detach().npu().requires_grad_()
        cpu(x)[0].sum().backward()
        npu(xn)[0].sum().backward()
        self.assertRtolEqual(x.grad.numpy(), xn.grad.cpu().numpy())
        for p, q in zip(cpu.parameters(), npu.parameters()):
            self.assertRtolEqual(p.grad.numpy(), q.grad.cpu().numpy())

    def test_lstm_packed_sequence(self):
        cpu, npu = self.cpu_and_npu(input_size=6, hidden_size=8, num_layers=1, bidirectional=True)
        x = torch.randn(5, 3, 6)
        lengths = torch.tensor([5, 3, 1])
        pack = torch.nn.utils.rnn.pack_padded_sequence
        want, (wh, _) = cpu(pack(x, lengths))
        got, (gh, _) = npu(pack(x.npu(), lengths))
        self.assertRtolEqual(want.data.detach().numpy(), got.data.cpu().detach().numpy())
        self.assertRtolEqual(wh.detach().numpy(), gh.cpu().detach().numpy())


if __name__ == "__main__":
    np.random.seed(0)
    run_tests()
