import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuLstmGru(TestCase):
    """torch_npu.npu_lstm / npu_gru (one layer direction on DynamicRNN / DynamicGRUV2) against
    nn.LSTM / nn.GRU on the CPU with the same weights."""

    def test_npu_lstm(self):
        cpu = torch.nn.LSTM(8, 16)
        x = torch.randn(6, 4, 8)
        h0, c0 = torch.randn(1, 4, 16), torch.randn(1, 4, 16)
        want, (wh, wc) = cpu(x, (h0, c0))
        weight = torch.cat([cpu.weight_ih_l0, cpu.weight_hh_l0], 1).t().contiguous().detach()
        bias = (cpu.bias_ih_l0 + cpu.bias_hh_l0).detach()
        y, h, c, *_ = torch_npu.npu_lstm(x.npu(), weight.npu(), bias.npu(), torch.Tensor().npu(), h0.npu(),
                                         c0.npu(), True, 1, 0.0, True, False, False, False, False)
        self.assertRtolEqual(want.detach().numpy(), y.cpu().numpy())
        self.assertRtolEqual(wh[0].detach().numpy(), h[-1].cpu().numpy())
        self.assertRtolEqual(wc[0].detach().numpy(), c[-1].cpu().numpy())

    def test_npu_lstm_data(self):
        # torch_npu's packed-sequence layer: the padded input and a PackedSequence's batch_sizes
        cpu = torch.nn.LSTM(8, 16)
        x = torch.randn(6, 4, 8)
        lengths = [6, 5, 3, 1]
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths)
        h0, c0 = torch.randn(1, 4, 16), torch.randn(1, 4, 16)
        want, (wh, wc) = cpu(packed, (h0, c0))
        weight = torch.cat([cpu.weight_ih_l0, cpu.weight_hh_l0], 1).t().contiguous().detach()
        bias = (cpu.bias_ih_l0 + cpu.bias_hh_l0).detach()
        y, h, c, *_ = torch_npu.npu_lstm_data(x.npu(), packed.batch_sizes, weight.npu(), bias.npu(),
                                              torch.Tensor().npu(), h0.npu(), c0.npu(), True, 1, 0.0, True, False,
                                              False, True, False)
        got = torch.nn.utils.rnn.pack_padded_sequence(y.cpu(), lengths).data
        self.assertRtolEqual(want.data.detach().numpy(), got.numpy())
        self.assertRtolEqual(wh[0].detach().numpy(), h[-1].cpu().numpy())
        self.assertRtolEqual(wc[0].detach().numpy(), c[-1].cpu().numpy())

    def test_npu_gru(self):
        cpu = torch.nn.GRU(8, 16)
        x, h0 = torch.randn(6, 4, 8), torch.randn(1, 4, 16)
        want, wh = cpu(x, h0)
        seq_length = torch.full((4,), 6, dtype=torch.int32)
        y, h, *_ = torch_npu.npu_gru(x.npu(), h0.npu(), cpu.weight_ih_l0.t().contiguous().detach().npu(),
                                     cpu.weight_hh_l0.t().contiguous().detach().npu(), cpu.bias_ih_l0.detach().npu(),
                                     cpu.bias_hh_l0.detach().npu(), seq_length.npu(), True, 1, 0.0, True, False,
                                     False)
        self.assertRtolEqual(want.detach().numpy(), y.cpu().numpy())
        self.assertRtolEqual(wh[0].detach().numpy(), h[-1].cpu().numpy())


if __name__ == "__main__":
    np.random.seed(0)
    run_tests()
