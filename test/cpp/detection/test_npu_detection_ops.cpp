// torch_npu's detection ops (npu_nms_v4, npu_nms_with_mask, npu_batch_nms,
// npu_iou, npu_roi_align / npu_roi_alignbk, npu_bounding_box_encode / decode,
// npu_deformable_conv2d, npu_ps_roi_pooling)
// against torchvision's CPU kernels or CPU compositions, upstream torch_npu's
// literal test cases, and their errors.
#include <ATen/core/dispatch/Dispatcher.h>

#include "detection_test_util.h"
#include "npu_test_util.h"
#include "torchvision_ops.h"

using namespace torch_npu_test;

namespace {

using NmsSig = at::Tensor(const at::Tensor&, const at::Tensor&, double);

at::Tensor randomBoxes(int64_t k, double size) {
  at::Tensor xy = at::rand({k, 2}) * size;
  return at::cat({xy, xy + at::rand({k, 2}) * size / 2}, 1);
}

}  // namespace

TEST(NpuDetectionOps, NmsV4AndNmsWithMaskAgainstTorchvision) {
  SKIP_WITHOUT_TORCHVISION();
  auto nms = visionOp<NmsSig>("nms");
  auto v4 =
      npuDetectionOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Scalar&,
                                                        const at::Tensor&, const at::Tensor&, bool)>("npu_nms_v4");
  const at::Tensor boxes = randomBoxes(100, 100), scores = at::rand({100});
  const at::Tensor npu_boxes = boxes.to(npu()), npu_scores = scores.to(npu()), iou = at::tensor(0.5f).to(npu());
  for (int64_t max_out : {0, 5, 100}) {
    // A freed block of ones for the outputs: the count must be written even when no launch happens.
    at::full({1}, 1.0f).to(npu());
    at::Tensor sel, valid;
    std::tie(sel, valid) = v4.call(npu_boxes, npu_scores, max_out, iou, at::tensor(0.3f), true);
    ASSERT_EQ(sel.sizes(), at::IntArrayRef({max_out}));
    ASSERT_EQ(sel.scalar_type(), at::kInt);
    const at::Tensor above = scores.gt(0.3f).nonzero().flatten();
    at::Tensor want = above.index_select(0, nms.call(boxes.index_select(0, above), scores.index_select(0, above), 0.5));
    want = want.narrow(0, 0, std::min<int64_t>(max_out, want.numel()));
    ASSERT_EQ(valid.item<int>(), want.numel());
    expectClose(sel.narrow(0, 0, want.numel()).to(at::kLong), want);
  }
  // npu_nms_with_mask visits rows in order: with descending scores it keeps what nms keeps.
  auto with_mask = npuDetectionOp<std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&, const at::Scalar&)>(
      "npu_nms_with_mask");
  const at::Tensor ordered = at::linspace(1, 0.01, 100);
  at::Tensor out, idx, mask;
  std::tie(out, idx, mask) = with_mask.call(at::cat({boxes, ordered.unsqueeze(1)}, 1).to(npu()), 0.4);
  expectClose(out, at::cat({boxes, ordered.unsqueeze(1)}, 1));
  expectClose(idx, at::arange(100, at::kInt));
  at::Tensor kept = at::zeros({100}, at::kByte);
  kept.index_fill_(0, nms.call(boxes, ordered, 0.4), 1);
  expectClose(mask, kept);
  // Upstream torch_npu's case.
  std::tie(out, idx, mask) =
      with_mask.call(at::tensor({0.f, 1.f, 2.f, 3.f, 0.6f, 6.f, 7.f, 8.f, 9.f, 0.4f}).reshape({2, 5}).to(npu()), 0.5);
  expectClose(idx, at::tensor({0, 1}, at::kInt));
  expectClose(mask, at::tensor({1, 1}, at::kByte));
  expectErrorMentioning([&] { with_mask.call(at::rand({3, 4}).to(npu()), 0.5); }, "npu_nms_with_mask: input must be");
}

TEST(NpuDetectionOps, BatchNmsAgainstPerClassNms) {
  SKIP_WITHOUT_TORCHVISION();
  auto nms = visionOp<NmsSig>("nms");
  auto batch_nms = npuDetectionOp<std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
      const at::Tensor&, const at::Tensor&, double, double, int64_t, int64_t, bool, bool)>("npu_batch_nms");
  const int64_t b = 2, a = 30, c = 3, per_class = 4, total = 9;
  const at::Tensor boxes = randomBoxes(b * a, 50).reshape({b, a, 1, 4});
  const at::Tensor scores = at::rand({b, a, c});
  at::Tensor nb, ns, ncls, nnum;
  std::tie(nb, ns, ncls, nnum) =
      batch_nms.call(boxes.to(npu()), scores.to(npu()), 0.2, 0.5, per_class, total, false, false);
  for (int64_t i = 0; i < b; ++i) {
    std::vector<std::tuple<float, int64_t, int64_t>> kept;  // score, class, anchor
    for (int64_t k = 0; k < c; ++k) {
      const at::Tensor s = scores[i].select(1, k);
      const at::Tensor cand = s.gt(0.2f).nonzero().flatten();
      at::Tensor keep =
          cand.index_select(0, nms.call(boxes[i].squeeze(1).index_select(0, cand), s.index_select(0, cand), 0.5));
      for (int64_t r = 0; r < std::min<int64_t>(per_class, keep.numel()); ++r) {
        const int64_t anchor = keep[r].item<int64_t>();
        kept.emplace_back(s[anchor].item<float>(), k, anchor);
      }
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& x, const auto& y) { return std::get<0>(x) > std::get<0>(y); });
    const int64_t num = std::min<int64_t>(total, kept.size());
    ASSERT_EQ(nnum[i].item<int>(), num);
    for (int64_t r = 0; r < total; ++r) {
      const float want_score = r < num ? std::get<0>(kept[r]) : 0.f;
      EXPECT_FLOAT_EQ(ns[i][r].item<float>(), want_score) << "batch " << i << " row " << r;
      EXPECT_FLOAT_EQ(ncls[i][r].item<float>(), r < num ? float(std::get<1>(kept[r])) : 0.f);
      if (r < num) expectClose(nb[i][r], boxes[i][std::get<2>(kept[r])][0]);
    }
  }
  expectErrorMentioning([&] { batch_nms.call(boxes.to(npu()), scores.to(npu()), 0.2, 0.5, 0, total, false, false); },
                        "npu_batch_nms: max_size_per_class and max_total_size must be positive");
}

TEST(NpuDetectionOps, IouAgainstACpuComposition) {
  auto iou = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, int64_t)>("npu_iou");
  const at::Tensor b = randomBoxes(7, 20), g = randomBoxes(5, 20);
  const at::Tensor lt = at::max(b.narrow(1, 0, 2).unsqueeze(0), g.narrow(1, 0, 2).unsqueeze(1));
  const at::Tensor rb = at::min(b.narrow(1, 2, 2).unsqueeze(0), g.narrow(1, 2, 2).unsqueeze(1));
  const at::Tensor inter = (rb - lt).clamp_min(0).prod(2);
  const at::Tensor area_b = (b.narrow(1, 2, 2) - b.narrow(1, 0, 2)).prod(1),
                   area_g = (g.narrow(1, 2, 2) - g.narrow(1, 0, 2)).prod(1);
  expectClose(iou.call(b.to(npu()), g.to(npu()), 0), inter / (area_b.unsqueeze(0) + area_g.unsqueeze(1) - inter));
  expectClose(iou.call(b.to(npu()), g.to(npu()), 1), inter / area_g.unsqueeze(1));
  // Upstream torch_npu's example (fp16): exact 0.5 and 1.0 where the chip's fp16 path gives 0.4985 and 0.9961.
  const at::Tensor bb =
      at::tensor({0.f, 0.f, 10.f, 10.f, 10.f, 10.f, 20.f, 20.f, 32.f, 32.f, 38.f, 42.f}).reshape({3, 4});
  const at::Tensor gg =
      at::tensor({0.f, 0.f, 10.f, 20.f, 0.f, 10.f, 10.f, 10.f, 10.f, 10.f, 20.f, 20.f}).reshape({3, 4});
  expectClose(iou.call(bb.to(at::kHalf).to(npu()), gg.to(at::kHalf).to(npu()), 0),
              at::tensor({0.4985f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.9961f, 0.f}).reshape({3, 3}).to(at::kHalf), 5e-3,
              1e-3);
  expectErrorMentioning([&] { iou.call(b.to(npu()), g.to(npu()), 3); },
                        "npu_iou: mode must be 0 (iou) or 1 (iof), got 3");
  expectErrorMentioning([&] { iou.call(b.narrow(1, 0, 3).to(npu()), g.to(npu()), 0); },
                        "npu_iou: bboxes must be [N, 4]");
}

TEST(NpuDetectionOps, RoiAlignAndItsBackward) {
  auto align =
      npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t, int64_t, int64_t)>(
          "npu_roi_align");
  auto alignbk = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, at::IntArrayRef, int64_t, int64_t,
                                           double, int64_t, c10::optional<int64_t>)>("npu_roi_alignbk");
  // Upstream torch_npu's case.
  const at::Tensor x = at::arange(1, 37, at::kFloat).reshape({1, 1, 6, 6});
  const at::Tensor rois = at::tensor({0.f, -2.f, -2.f, 22.f, 22.f}).reshape({1, 5});
  expectClose(align.call(x.to(npu()), rois.to(npu()), 0.25, 3, 3, 2, 0),
              at::tensor({4.5f, 6.5f, 8.5f, 16.5f, 18.5f, 20.5f, 28.5f, 30.5f, 32.5f}).reshape({1, 1, 3, 3}));
  if (loadTorchvision()) {
    auto tv_bwd = visionOp<at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, int64_t, bool)>("_roi_align_backward");
    const at::Tensor g = at::randn({1, 1, 3, 3});
    for (int64_t mode : {0, 2})
      expectClose(alignbk.call(g.to(npu()), rois.to(npu()), {1, 1, 6, 6}, 3, 3, 0.25, 2, mode),
                  tv_bwd.call(g, rois, 0.25, 3, 3, 1, 1, 6, 6, 2, mode == 2));
  }
  expectErrorMentioning([&] { align.call(x.to(npu()), rois.to(npu()), 0.25, 3, 3, -1, 0); },
                        "npu_roi_align: sample_num must be >= 0");
  expectErrorMentioning([&] { align.call(x.to(npu()), rois.to(npu()), 0.25, 3, 3, 2, 3); },
                        "npu_roi_align: roi_end_mode must be 0, 1 or 2, got 3");
}

TEST(NpuDetectionOps, BoundingBoxEncodeAndDecode) {
  auto encode = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, double, double, double, double, double,
                                          double, double, double)>("npu_bounding_box_encode");
  auto decode = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, double, double, double, double, double,
                                          double, double, double, at::IntArrayRef, double)>("npu_bounding_box_decode");
  const at::Tensor a = at::tensor({1.f, 2.f, 3.f, 4.f, 3.f, 4.f, 5.f, 6.f}).reshape({2, 4});
  const at::Tensor b = at::tensor({5.f, 6.f, 7.f, 8.f, 7.f, 8.f, 9.f, 6.f}).reshape({2, 4});
  // Upstream torch_npu's cases (its expected values are fp16-rounded).
  for (auto dtype : {at::kFloat, at::kHalf}) {
    expectClose(encode.call(a.to(dtype).to(npu()), b.to(dtype).to(npu()), 0, 0, 0, 0, 0.1, 0.1, 0.2, 0.2),
                at::tensor({13.3281f, 13.3281f, 0.f, 0.f, 13.3281f, 6.6641f, 0.f, -5.4922f}).reshape({2, 4}).to(dtype),
                2e-3, 2e-3);
    expectClose(decode.call(a.to(dtype).to(npu()), b.to(dtype).to(npu()), 0, 0, 0, 0, 1, 1, 1, 1, {10, 10}, 0.1),
                at::tensor({2.5f, 6.5f, 9.f, 9.f, 9.f, 9.f, 9.f, 9.f}).reshape({2, 4}).to(dtype), 1e-3, 1e-3);
  }
  // Random boxes against the formulas in CPU ops: decode(encode(g)) gives g back (inside the clamp).
  const at::Tensor anchors = randomBoxes(20, 40) + 1, gts = randomBoxes(20, 40) + 1;
  const at::Tensor deltas = encode.call(anchors.to(npu()), gts.to(npu()), 0.1, -0.1, 0, 0.05, 0.1, 0.1, 0.2, 0.2);
  const at::Tensor size = anchors.narrow(1, 2, 2) - anchors.narrow(1, 0, 2) + 1;
  const at::Tensor gsize = gts.narrow(1, 2, 2) - gts.narrow(1, 0, 2) + 1;
  const at::Tensor centre = (anchors.narrow(1, 0, 2) + anchors.narrow(1, 2, 2)) / 2;
  const at::Tensor gcentre = (gts.narrow(1, 0, 2) + gts.narrow(1, 2, 2)) / 2;
  const at::Tensor want =
      (at::cat({(gcentre - centre) / size, (gsize / size).log()}, 1) - at::tensor({0.1f, -0.1f, 0.f, 0.05f})) /
      at::tensor({0.1f, 0.1f, 0.2f, 0.2f});
  expectClose(deltas, want, 1e-4, 1e-4);
  expectClose(decode.call(anchors.to(npu()), deltas, 0.1, -0.1, 0, 0.05, 0.1, 0.1, 0.2, 0.2, {1000, 1000}, 0.001), gts,
              1e-4, 1e-3);
  expectErrorMentioning([&] { decode.call(a.to(npu()), b.to(npu()), 0, 0, 0, 0, 1, 1, 1, 1, {10}, 0.1); },
                        "npu_bounding_box_decode: max_shape must be (h, w)");
}

TEST(NpuDetectionOps, DeformableConv2dAgainstTorchvision) {
  SKIP_WITHOUT_TORCHVISION();
  using DeformSig =
      at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t,
                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool);
  auto tv = visionOp<DeformSig>("deform_conv2d");
  auto npu_deform = npuDetectionOp<std::tuple<at::Tensor, at::Tensor>(
      const at::Tensor&, const at::Tensor&, const at::Tensor&, const c10::optional<at::Tensor>&, at::IntArrayRef,
      at::IntArrayRef, at::IntArrayRef, at::IntArrayRef, int64_t, int64_t, bool)>("npu_deformable_conv2d");
  const at::Tensor x = at::rand({2, 4, 7, 6}), w = at::rand({6, 2, 3, 3}) - 0.5, b = at::rand({6});
  const at::Tensor offset = at::rand({2, 3 * 2 * 9, 7, 6}) * 3 - 1.5;  // [x block, y block, mask], 2 groups
  // torchvision's layout: (dy, dx) per kernel point, the mask apart.
  const at::Tensor xs = offset.narrow(1, 0, 18).reshape({2, 2, 9, 1, 7, 6});
  const at::Tensor ys = offset.narrow(1, 18, 18).reshape({2, 2, 9, 1, 7, 6});
  const at::Tensor tv_offset = at::cat({ys, xs}, 3).reshape({2, 36, 7, 6}), mask = offset.narrow(1, 36, 18);
  at::Tensor out, patches;
  std::tie(out, patches) = npu_deform.call(x.to(npu()), w.to(npu()), offset.to(npu()), b.to(npu()), {3, 3},
                                           {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, 2, 2, true);
  expectClose(out, tv.call(x, w, tv_offset, mask.contiguous(), b, 1, 1, 1, 1, 1, 1, 2, 2, true), 1e-4, 1e-4);
  EXPECT_EQ(patches.sizes(), at::IntArrayRef({2, 4, 21, 18}));
  expectErrorMentioning(
      [&] {
        npu_deform.call(x.to(npu()), w.to(npu()), offset.to(npu()), b.to(npu()), {3, 3}, {1, 1, 1, 1}, {1, 2, 1, 1},
                        {1, 1, 1, 1}, 2, 2, true);
      },
      "npu_deformable_conv2d: padding [top, bottom, left, right] must be symmetric");
}

// npu_ps_roi_pooling's R-FCN bins (Note [R-FCN position-sensitive pooling]) as a CPU composition of slices
// and means, differentiable, so autograd checks the backward too.
at::Tensor rfcnPsRoiPoolingReference(const at::Tensor& x, const at::Tensor& rois, float scale, int64_t g, int64_t dim) {
  const at::Tensor table = rois.transpose(1, 2).reshape({-1, 5});
  const int64_t h = x.size(2), w = x.size(3);
  std::vector<at::Tensor> bins;
  for (int64_t n = 0; n < table.size(0); ++n) {
    const auto roi = table[n];
    const int64_t b = roi[0].item<float>();
    const float sw = std::round(roi[1].item<float>()) * scale, sh = std::round(roi[2].item<float>()) * scale;
    const float bw = std::max((std::round(roi[3].item<float>()) + 1) * scale - sw, 0.1f) / g;
    const float bh = std::max((std::round(roi[4].item<float>()) + 1) * scale - sh, 0.1f) / g;
    auto clip = [](float v, int64_t hi) { return std::min(std::max<int64_t>(static_cast<int64_t>(v), 0), hi); };
    for (int64_t c = 0; c < dim; ++c)
      for (int64_t i = 0; i < g; ++i)
        for (int64_t j = 0; j < g; ++j) {
          const int64_t hs = clip(std::floor(i * bh + sh), h), he = clip(std::ceil((i + 1) * bh + sh), h);
          const int64_t ws = clip(std::floor(j * bw + sw), w), we = clip(std::ceil((j + 1) * bw + sw), w);
          bins.push_back(he > hs && we > ws ? x[b][(c * g + i) * g + j].slice(0, hs, he).slice(1, ws, we).mean()
                                            : at::zeros({}, x.options()));
        }
  }
  return at::stack(bins).reshape({table.size(0), dim, g, g});
}

TEST(NpuDetectionOps, PsRoiPoolingFollowsRfcnBinsBothWays) {
  auto ps =
      npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, double, int64_t, int64_t)>("npu_ps_roi_pooling");
  // rois [B = 2, 5, R = 2], a column per roi: (0, 3, 2, 9, 9) as in torch_npu's test, (1, 2, 0, 30, 25) reaching
  // past the map, (1, 1, 4, 9, 6) and (1, 4, 2, 9, 19).
  const at::Tensor rois = at::tensor({0.f, 1.f, 3.f, 2.f, 2.f, 0.f, 9.f, 30.f, 9.f, 25.f,
                                      1.f, 1.f, 1.f, 4.f, 4.f, 2.f, 9.f, 9.f,  6.f, 19.f})
                              .reshape({2, 5, 2});
  // rois are a constant of the function (not differentiable), on the input's device.
  const auto fn = [&](const std::vector<at::Tensor>& in) -> at::Tensor {
    if (in[0].device().is_cpu()) return rfcnPsRoiPoolingReference(in[0], rois, 0.25f, 3, 2);
    return ps.call(in[0], rois.to(npu()), 0.25, 3, 2);
  };
  expectSameAutograd(fn, {at::rand({2, 18, 8, 9}) + 0.1}, 1e-5, 1e-6);
  expectErrorMentioning(
      [&] {
        ps.call(at::rand({2, 18, 8, 9}).to(npu()), rois.reshape({4, 5}).to(npu()), 0.25, 3, 2);
      },
      "rois must be [batch, 5, rois_num]");
  expectErrorMentioning(
      [&] {
        ps.call(at::rand({2, 17, 8, 9}).to(npu()), rois.to(npu()), 0.25, 3, 2);
      },
      "channels must be output_dim * group_size^2 = 18");
}
