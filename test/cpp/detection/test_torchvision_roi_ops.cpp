// torchvision's nms, roi_align and roi_pool (forward, backward and autograd)
// on the NPU against torchvision's own CPU kernels.
#include "npu_test_util.h"
#include "torchvision_ops.h"

using namespace torch_npu_test;

namespace {

using RoiAlignSig = at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t, int64_t, bool);
using RoiAlignBackwardSig = at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, int64_t, bool);
using RoiPoolSig = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t);
using RoiPoolBackwardSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, int64_t, int64_t,
                                      int64_t, int64_t, int64_t, int64_t);
using NmsSig = at::Tensor(const at::Tensor&, const at::Tensor&, double);

// K boxes (x1, y1, x2, y2) inside a size x size image, some of zero area.
at::Tensor randomBoxes(int64_t k, double size) {
  at::Tensor xy = at::rand({k, 2}) * size;
  at::Tensor wh = at::rand({k, 2}) * size / 2;
  if (k > 2) wh[1][0] = 0;  // zero width
  return at::cat({xy, xy + wh}, 1);
}

// rois [K, 5]: batch index then the box.
at::Tensor randomRois(int64_t k, int64_t batch, double size) {
  return at::cat({at::randint(batch, {k, 1}).to(at::kFloat), randomBoxes(k, size)}, 1);
}

}  // namespace

TEST(NpuTorchvision, NmsMatchesTheCpuKernel) {
  SKIP_WITHOUT_TORCHVISION();
  auto nms = visionOp<NmsSig>("nms");
  for (int64_t n : {0, 1, 50, 300}) {
    for (double thr : {0.0, 0.3, 0.7}) {
      SCOPED_TRACE("n " + std::to_string(n) + " threshold " + std::to_string(thr));
      const at::Tensor boxes = randomBoxes(n, 100), scores = at::rand({n});
      const at::Tensor want = nms.call(boxes, scores, thr);
      expectClose(nms.call(boxes.to(npu()), scores.to(npu()), thr), want);
      // fp16 boxes and scores: the CPU reference on the same (rounded) values.
      const at::Tensor hb = boxes.to(at::kHalf), hs = scores.to(at::kHalf);
      expectClose(nms.call(hb.to(npu()), hs.to(npu()), thr), nms.call(hb.to(at::kFloat), hs.to(at::kFloat), thr));
    }
  }
  // Equal scores: the lower index wins, as the CPU's sort keeps them.
  const at::Tensor same = at::tensor({0.f, 0.f, 4.f, 4.f}).repeat({4, 1});
  const at::Tensor tied = at::full({4}, 0.5f);
  expectClose(nms.call(same.to(npu()), tied.to(npu()), 0.5), nms.call(same, tied, 0.5));
  EXPECT_THROW(
      {
        try {
          nms.call(at::rand({3, 5}).to(npu()), at::rand({3}).to(npu()), 0.5);
        } catch (const c10::Error& e) {
          EXPECT_NE(std::string(e.what()).find("nms: boxes must be [N, 4]"), std::string::npos) << e.what();
          throw;
        }
      },
      c10::Error);
}

TEST(NpuTorchvision, RoiAlignForwardAndBackwardMatchTheCpuKernels) {
  SKIP_WITHOUT_TORCHVISION();
  auto align = visionOp<RoiAlignSig>("roi_align");
  auto align_bwd = visionOp<RoiAlignBackwardSig>("_roi_align_backward");
  const at::Tensor x = at::randn({2, 3, 10, 12});
  const at::Tensor rois = randomRois(7, 2, 48);
  for (bool aligned : {false, true}) {
    for (int64_t sampling : {-1, 0, 2}) {
      SCOPED_TRACE(std::string("aligned ") + (aligned ? "true" : "false") + " sampling " + std::to_string(sampling));
      const at::Tensor want = align.call(x, rois, 0.25, 3, 4, sampling, aligned);
      expectClose(align.call(x.to(npu()), rois.to(npu()), 0.25, 3, 4, sampling, aligned), want);
      const at::Tensor g = at::randn(want.sizes());
      expectClose(align_bwd.call(g.to(npu()), rois.to(npu()), 0.25, 3, 4, 2, 3, 10, 12, sampling, aligned),
                  align_bwd.call(g, rois, 0.25, 3, 4, 2, 3, 10, 12, sampling, aligned));
      // fp16 features with fp32 rois (what autocast passes).
      const at::Tensor hx = x.to(at::kHalf);
      expectClose(align.call(hx.to(npu()), rois.to(npu()), 0.25, 3, 4, sampling, aligned),
                  align.call(hx.to(at::kFloat), rois, 0.25, 3, 4, sampling, aligned).to(at::kHalf), kHalfRtol,
                  kHalfAtol);
    }
  }
  // No rois, and autograd through torchvision's own autograd kernel.
  expectClose(align.call(x.to(npu()), rois.narrow(0, 0, 0).to(npu()), 0.5, 2, 2, 2, true),
              align.call(x, rois.narrow(0, 0, 0), 0.5, 2, 2, 2, true));
  at::Tensor xn = x.to(npu()).requires_grad_(), xc = x.clone().requires_grad_();
  align.call(xn, rois.to(npu()), 0.25, 2, 2, 0, true).pow(2).sum().backward();
  align.call(xc, rois, 0.25, 2, 2, 0, true).pow(2).sum().backward();
  expectClose(xn.grad(), xc.grad());
  EXPECT_THROW(align.call(x.to(npu()), rois.narrow(1, 0, 4).to(npu()), 0.25, 2, 2, 0, true), c10::Error);
  EXPECT_THROW(align.call(x.to(npu()), rois.to(npu()), 0.25, 0, 2, 0, true), c10::Error);
}

TEST(NpuTorchvision, RoiPoolForwardAndBackwardMatchTheCpuKernels) {
  SKIP_WITHOUT_TORCHVISION();
  auto pool = visionOp<RoiPoolSig>("roi_pool");
  auto pool_bwd = visionOp<RoiPoolBackwardSig>("_roi_pool_backward");
  const at::Tensor x = at::randn({2, 3, 9, 11});
  at::Tensor rois = randomRois(9, 2, 44);
  rois[0][1] = 80;  // a roi outside the map: empty bins
  rois[0][3] = 90;
  at::Tensor y, arg;
  std::tie(y, arg) = pool.call(x, rois, 0.25, 3, 2);
  at::Tensor ny, narg;
  std::tie(ny, narg) = pool.call(x.to(npu()), rois.to(npu()), 0.25, 3, 2);
  expectClose(ny, y);
  expectClose(narg, arg);
  const at::Tensor g = at::randn(y.sizes());
  expectClose(pool_bwd.call(g.to(npu()), rois.to(npu()), narg, 0.25, 3, 2, 2, 3, 9, 11),
              pool_bwd.call(g, rois, arg, 0.25, 3, 2, 2, 3, 9, 11));
  at::Tensor xn = x.to(npu()).requires_grad_(), xc = x.clone().requires_grad_();
  std::get<0>(pool.call(xn, rois.to(npu()), 0.25, 2, 2)).sum().backward();
  std::get<0>(pool.call(xc, rois, 0.25, 2, 2)).sum().backward();
  expectClose(xn.grad(), xc.grad());
}
