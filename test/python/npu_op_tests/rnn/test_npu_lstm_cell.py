import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPULstmCell(TestCase):
    def supported_op_exec(self, input1, w_ih, w_hh, h, c, bias):
        cell = torch.nn.LSTMCell(input1.size(1), h.size(1))
        with torch.no_grad():
            cell.weight_ih.copy_(w_ih)
            cell.weight_hh.copy_(w_hh)
            cell.bias_ih.copy_(bias)
            cell.bias_hh.zero_()
        h_out, c_out = cell(input1, (h, c))
        return h_out.detach().numpy(), c_out.detach().numpy()

    def custom_op_exec(self, input1, w_ih, w_hh, h, c, bias):
        outputs = torch_npu.npu_lstm_cell(input1.npu(), w_ih.npu(), w_hh.npu(), h.npu(), c.npu(), bias.npu())
        return outputs[1][0].cpu().numpy(), outputs[2][0].cpu().numpy()

    def test_npu_lstm_cell(self):
        batch, input_size, hidden = 4, 16, 8
        input1, h, c = torch.randn(batch, input_size), torch.randn(batch, hidden), torch.randn(batch, hidden)
        w_ih, w_hh = torch.randn(4 * hidden, input_size) * 0.3, torch.randn(4 * hidden, hidden) * 0.3
        bias = torch.randn(4 * hidden) * 0.3
        want = self.supported_op_exec(input1, w_ih, w_hh, h, c, bias)
        got = self.custom_op_exec(input1, w_ih, w_hh, h, c, bias)
        for w, g in zip(want, got):
            self.assertRtolEqual(w, g)

    def test_npu_lstm_cell_backward(self):
        batch, input_size, hidden = 3, 6, 5
        tensors = [torch.randn(batch, input_size), torch.randn(4 * hidden, input_size) * 0.3,
                   torch.randn(4 * hidden, hidden) * 0.3, torch.randn(batch, hidden), torch.randn(batch, hidden),
                   torch.randn(4 * hidden) * 0.3]
        cpu = [t.clone().requires_grad_() for t in tensors]
        h_out, c_out = torch.lstm_cell(cpu[0], (cpu[3], cpu[4]), cpu[1], cpu[2], cpu[5], None)
        (h_out.sum() + 2 * c_out.sum()).backward()
        npu = [t.npu().requires_grad_() for t in tensors]
        outputs = torch_npu.npu_lstm_cell(*npu)
        (outputs[1].sum() + 2 * outputs[2].sum()).backward()
        for c, n in zip(cpu, npu):
            self.assertRtolEqual(c.grad.numpy(), n.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
