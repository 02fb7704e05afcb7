import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestRoiAlign(TestCase):
    def test_npu_roi_align_fp32(self, device="npu"):
        _input = torch.FloatTensor([[[[1, 2, 3, 4, 5, 6],
                                      [7, 8, 9, 10, 11, 12],
                                      [13, 14, 15, 16, 17, 18],
                                      [19, 20, 21, 22, 23, 24],
                                      [25, 26, 27, 28, 29, 30],
                                      [31, 32, 33, 34, 35, 36]]]]).npu()
        rois = torch.tensor([[0, -2.0, -2.0, 22.0, 22.0]]).npu()
        expect_out = torch.tensor([[[[4.5000, 6.5000, 8.5000],
                                     [16.5000, 18.5000, 20.5000],
                                     [28.5000, 30.5000, 32.5000]]]], dtype=torch.float32)
        out = torch_npu.npu_roi_align(_input, rois, 0.25, 3, 3, 2, 0)
        self.assertRtolEqual(expect_out, out.cpu())

    def test_npu_roi_alignbk_fp32(self, device="npu"):
        _input = torch.arange(1, 37, dtype=torch.float32).reshape(1, 1, 6, 6).npu()
        rois = torch.tensor([[0, -2.0, -2.0, 22.0, 22.0]]).npu()
        out = torch_npu.npu_roi_align(_input, rois, 0.25, 3, 3, 2, 0)
        gradout = torch_npu.npu_roi_alignbk(out, rois, _input.size(), 3, 3, 0.25, 2)  # roi_end_mode 1
        expect_gradout = torch.tensor([[[[1.0786, 1.0557, 1.4942, 1.5248, 1.9226, 2.4709],
                                         [1.0557, 1.0332, 1.4625, 1.4924, 1.8817, 2.4183],
                                         [3.6872, 3.6087, 4.0380, 4.0679, 4.4572, 5.6097],
                                         [3.8708, 3.7884, 4.2177, 4.2476, 4.6369, 5.8324],
                                         [6.2575, 6.1243, 6.5536, 6.5835, 6.9729, 8.7269],
                                         [8.2847, 8.1084, 8.6403, 8.6774, 9.1598, 11.4575]]]], dtype=torch.float32)
        self.assertRtolEqual(expect_gradout, gradout.cpu(), prec=1e-3)

    def test_npu_roi_alignbk_is_the_adjoint(self, device="npu"):
        # <roi_align(x), g> == <x, roi_alignbk(g)> for every roi_end_mode.
        x = torch.randn(2, 3, 9, 7)
        rois = torch.tensor([[0, 1.0, 2.0, 20.0, 15.0], [1, -3.0, 0.0, 12.0, 30.0]])
        for mode in (0, 1, 2):
            y = torch_npu.npu_roi_align(x.npu(), rois.npu(), 0.5, 2, 3, 2, mode).cpu()
            g = torch.randn_like(y)
            dx = torch_npu.npu_roi_alignbk(g.npu(), rois.npu(), list(x.shape), 3, 2, 0.5, 2, mode).cpu()
            self.assertRtolEqual((y * g).sum(), (x * dx).sum(), prec=1e-4)


if __name__ == "__main__":
    run_tests()
