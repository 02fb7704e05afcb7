// torch_npu's IoU-family losses (npu_giou / npu_diou / npu_ciou, forward and
// autograd), YOLO target ops (npu_yolo_boxes_encode, npu_anchor_response_flags,
// npu_grid_assign_positive) and the sampling / fill / sort helpers detection
// ports use (npu_random_choice_with_mask, npu_one_hot, npu_masked_fill_range,
// npu_sort_v2) against CPU compositions of ATen ops, and their errors.
#include <ATen/core/dispatch/Dispatcher.h>

#include <cmath>

#include "detection_test_util.h"
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

using LossSig = at::Tensor(const at::Tensor&, const at::Tensor&, bool, bool, int64_t);
using CiouSig = at::Tensor(const at::Tensor&, const at::Tensor&, bool, bool, int64_t, bool);

// Boxes [4, n] as (cx, cy, w, h), overlapping often.
at::Tensor xywhBoxes(int64_t n) { return at::cat({at::rand({2, n}) * 4 + 2, at::rand({2, n}) * 3 + 1}); }

// The losses of Note [torch_npu's IoU-loss conventions] for paired xywh boxes, [1, n]; CIoU's alpha
// is computed without gradient, as torch_npu's reference does.
at::Tensor lossReference(const std::string& loss, const at::Tensor& b, const at::Tensor& g) {
  auto corners = [](const at::Tensor& t) {
    return std::make_tuple(t[0] - t[2] / 2, t[1] - t[3] / 2, t[0] + t[2] / 2, t[1] + t[3] / 2);
  };
  auto [bx1, by1, bx2, by2] = corners(b);
  auto [gx1, gy1, gx2, gy2] = corners(g);
  const at::Tensor inter =
      (at::min(bx2, gx2) - at::max(bx1, gx1)).clamp_min(0) * (at::min(by2, gy2) - at::max(by1, gy1)).clamp_min(0);
  const at::Tensor uni = b[2] * b[3] + g[2] * g[3] - inter, iou = inter / uni;
  const at::Tensor cw = at::max(bx2, gx2) - at::min(bx1, gx1), ch = at::max(by2, gy2) - at::min(by1, gy1);
  at::Tensor out;
  if (loss == "giou") {
    out = iou - (cw * ch - uni) / (cw * ch);
  } else {
    const at::Tensor rho2 = (g[0] - b[0]).pow(2) + (g[1] - b[1]).pow(2);
    out = iou - rho2 / (cw.pow(2) + ch.pow(2));
    if (loss == "ciou") {
      const at::Tensor v = 4 / (M_PI * M_PI) * (at::atan(g[2] / g[3]) - at::atan(b[2] / b[3])).pow(2);
      at::Tensor alpha;
      {
        at::NoGradGuard no_grad;
        alpha = v / (1 - iou + v);
      }
      out = out - alpha * v;
    }
  }
  return out.unsqueeze(0);
}

TEST(NpuBoxLosses, ForwardAndGradientsAgainstACpuReference) {
  auto giou = npuDetectionOp<LossSig>("npu_giou");
  auto diou = npuDetectionOp<LossSig>("npu_diou");
  auto ciou = npuDetectionOp<CiouSig>("npu_ciou");
  for (const std::string loss : {"giou", "diou", "ciou"}) {
    SCOPED_TRACE(loss);
    const auto fn = [&](const std::vector<at::Tensor>& x) -> at::Tensor {
      if (x[0].device().is_cpu()) {
        const at::Tensor r = lossReference(loss, x[0].to(at::kDouble), x[1].to(at::kDouble)).to(x[0].scalar_type());
        return loss == "giou" ? r.t() : r;
      }
      if (loss == "giou") return giou.call(x[0], x[1], true, false, 0);
      if (loss == "diou") return diou.call(x[0], x[1], true, false, 0);
      return ciou.call(x[0], x[1], true, false, 0, true);
    };
    expectSameAutograd(fn, {xywhBoxes(9), xywhBoxes(9)}, 1e-4, 1e-5);
  }
  // is_cross: every gt (row) against every box (column).
  const at::Tensor b = xywhBoxes(5), g = xywhBoxes(3);
  at::Tensor want = at::empty({3, 5});
  for (int64_t j = 0; j < 3; ++j)
    want[j] =
        lossReference("diou", b.to(at::kDouble), g.narrow(1, j, 1).expand({4, 5}).to(at::kDouble))[0].to(at::kFloat);
  expectClose(diou.call(b.to(npu()), g.to(npu()), true, true, 0).cpu(), want, 1e-4, 1e-5);
}

TEST(NpuBoxLosses, TorchNpusRestrictionsAndErrors) {
  auto giou = npuDetectionOp<LossSig>("npu_giou");
  auto diou = npuDetectionOp<LossSig>("npu_diou");
  const at::Tensor b = xywhBoxes(4).to(npu()), g = xywhBoxes(4).to(npu());
  expectErrorMentioning([&] { giou.call(b, g, false, false, 0); }, "only trans=True, is_cross=False, mode=0");
  expectErrorMentioning([&] { diou.call(b, g, true, false, 1); }, "mode must be 0 (iou)");
  expectErrorMentioning([&] { diou.call(b.narrow(0, 0, 3), g, true, false, 0); }, "must be [4, N]");
  // diou's forward takes xyxy boxes; its backward does not, as in torch_npu.
  const at::Tensor xyxy = at::cat({at::rand({2, 4}), at::rand({2, 4}) + 1}).to(npu()).requires_grad_();
  const at::Tensor out = diou.call(xyxy, g, false, false, 0);
  expectErrorMentioning([&] { out.sum().backward(); }, "only trans=True, is_cross=False, mode=0");
  // fp16 in, fp16 out, within fp16 rounding of the fp32 result on the same (fp16-rounded) boxes.
  const at::Tensor bh = b.to(at::kHalf), gh = g.to(at::kHalf);
  const at::Tensor h = giou.call(bh, gh, true, false, 0);
  EXPECT_EQ(h.scalar_type(), at::kHalf);
  EXPECT_EQ(h.sizes(), at::IntArrayRef({4, 1}));
  expectClose(h.cpu().to(at::kFloat), giou.call(bh.to(at::kFloat), gh.to(at::kFloat), true, false, 0).cpu(), 2e-3,
              2e-3);
}

TEST(NpuYoloTargets, EncodeFlagsAndAssignAgainstCpuCompositions) {
  // npu_yolo_boxes_encode: mmdetection's YOLOBBoxCoder.encode.
  const at::Tensor anchors = at::cat({at::rand({6, 2}) * 10, at::rand({6, 2}) * 10 + 12}, 1);
  const at::Tensor gts = at::cat({at::rand({6, 2}) * 10, at::rand({6, 2}) * 10 + 12}, 1);
  const at::Tensor stride = at::tensor({8, 8, 16, 16, 32, 32}, at::kInt);
  auto encode = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, bool)>(
      "npu_yolo_boxes_encode");
  const double eps = 1e-6;
  auto centre = [](const at::Tensor& t, int64_t k) { return (t.select(1, k) + t.select(1, k + 2)) / 2; };
  auto size = [](const at::Tensor& t, int64_t k) { return t.select(1, k + 2) - t.select(1, k); };
  const at::Tensor want = at::stack(
      {((centre(gts, 0) - centre(anchors, 0)) / stride + 0.5).clamp(eps, 1 - eps),
       ((centre(gts, 1) - centre(anchors, 1)) / stride + 0.5).clamp(eps, 1 - eps),
       (size(gts, 0) / size(anchors, 0)).clamp_min(eps).log(), (size(gts, 1) / size(anchors, 1)).clamp_min(eps).log()},
      1);
  expectClose(encode.call(anchors.to(npu()), gts.to(npu()), stride.to(npu()), false).cpu(), want, 1e-5, 1e-5);
  expectErrorMentioning([&] { encode.call(anchors.to(npu()), gts.to(npu()), stride.to(at::kLong).to(npu()), false); },
                        "other than int64");

  // npu_anchor_response_flags: the cells of the box centres, repeated per base anchor.
  const at::Tensor boxes = at::rand({20, 4}) * 100;
  auto flags = npuDetectionOp<at::Tensor(const at::Tensor&, at::IntArrayRef, at::IntArrayRef, int64_t)>(
      "npu_anchor_response_flags");
  const at::Tensor cx = ((boxes.select(1, 0) + boxes.select(1, 2)) * 0.5 / 16).floor().to(at::kLong);
  const at::Tensor cy = ((boxes.select(1, 1) + boxes.select(1, 3)) * 0.5 / 16).floor().to(at::kLong);
  at::Tensor grid = at::zeros({13 * 13}, at::kByte);
  grid.index_fill_(0, cy * 13 + cx, 1);
  expectClose(flags.call(boxes.to(npu()), {13, 13}, {16, 16}, 3).cpu(), grid.unsqueeze(1).expand({-1, 3}).reshape(-1));

  // npu_grid_assign_positive, step 1 (torch_npu's reference) with gt_max_overlaps below min_pos_iou.
  auto assign = npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                          const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t, double,
                                          double, bool)>("npu_grid_assign_positive");
  const at::Tensor assigned = at::rand({8}), overlaps = at::rand({3, 8});
  const at::Tensor resp = at::tensor({1, 1, 0, 1, 1, 0, 1, 1}, at::kByte), max_ov = at::rand({8});
  const at::Tensor argmax = at::randint(0, 3, {8}, at::kInt), gt_max = at::full({3}, -1.0f);
  const at::Tensor gt_argmax = at::randint(0, 8, {3}, at::kInt);
  at::Tensor step1 = assigned.clone();
  const at::Tensor pos = max_ov.gt(0.5).logical_and(resp.to(at::kBool));
  step1.index_put_({pos}, (argmax + 1).to(at::kFloat).index({pos}));
  expectClose(assign
                  .call(assigned.to(npu()), overlaps.to(npu()), resp.to(npu()), max_ov.to(npu()), argmax.to(npu()),
                        gt_max.to(npu()), gt_argmax.to(npu()), 3, 0.5, 0.0, true)
                  .cpu(),
              step1);
}

TEST(NpuDetectionHelpers, OneHotMaskedFillRangeSortV2AndRandomChoice) {
  // npu_one_hot: torch_npu's doc example, float32, index 5 outside depth 5 gives a row of zeros.
  auto one_hot = npuDetectionOp<at::Tensor(const at::Tensor&, int64_t, int64_t, const at::Scalar&, const at::Scalar&)>(
      "npu_one_hot");
  const at::Tensor oh = one_hot.call(at::tensor({5, 3, 2, 1}, at::kInt).to(npu()), -1, 5, 1, 0);
  EXPECT_EQ(oh.scalar_type(), at::kFloat);
  at::Tensor want = at::zeros({4, 5});
  want[1][3] = 1, want[2][2] = 1, want[3][1] = 1;
  expectClose(oh.cpu(), want);
  const at::Tensor idx = at::randint(0, 6, {3, 4});
  expectClose(one_hot.call(idx.to(npu()), 0, 6, 2.5, -1).cpu(),
              at::one_hot(idx, 6).permute({2, 0, 1}).to(at::kFloat) * 3.5 - 1);

  // npu_masked_fill_range: torch_npu's doc example (a[0, 0], a[1, 1], a[2, 2] set), and axis 0 of a 3-D int32 tensor.
  auto fill =
      npuDetectionOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t)>(
          "npu_masked_fill_range");
  const at::Tensor a = at::rand({4, 4});
  at::Tensor a_want = a.clone();
  for (int64_t k = 0; k < 3; ++k) a_want[k][k] = 1;
  expectClose(fill.call(a.to(npu()), at::tensor({0, 1, 2}, at::kInt).reshape({1, 3}).to(npu()),
                        at::tensor({1, 2, 3}, at::kInt).reshape({1, 3}).to(npu()), at::tensor({1.0f}).to(npu()), 1)
                  .cpu(),
              a_want);
  const at::Tensor x3 = at::randint(0, 100, {5, 2, 3}, at::kInt);
  at::Tensor x3_want = x3.clone();
  x3_want.narrow(0, 1, 2).fill_(-4);
  expectClose(fill.call(x3.to(npu()), at::full({1, 1}, 1, at::kInt).to(npu()), at::full({1, 1}, 3, at::kInt).to(npu()),
                        at::tensor({-4}, at::kInt).to(npu()), 0)
                  .cpu(),
              x3_want);
  expectErrorMentioning(
      [&] {
        fill.call(a.to(npu()), at::full({1, 1}, 0, at::kLong).to(npu()), at::full({1, 1}, 1, at::kLong).to(npu()),
                  at::tensor({1}, at::kInt).to(npu()), 1);
      },
      "value must have self's dtype");

  // npu_sort_v2: the values torch.sort gives, along any dim.
  auto sort_v2 = npuDetectionOp<at::Tensor(const at::Tensor&, int64_t, bool)>("npu_sort_v2");
  const at::Tensor s = at::randn({3, 5, 4});
  for (int64_t dim : {-1, 0, 1})
    for (bool descending : {false, true})
      expectClose(sort_v2.call(s.to(npu()), dim, descending).cpu(), std::get<0>(s.sort(dim, descending)), 0, 0);

  // npu_random_choice_with_mask: distinct true positions, then padding.
  auto choice = npuDetectionOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, int64_t, int64_t, int64_t)>(
      "npu_random_choice_with_mask");
  const at::Tensor m = at::rand({6, 7}).gt(0.7);
  const int64_t trues = m.sum().item<int64_t>();
  auto [coords, valid] = choice.call(m.to(npu()), trues + 3, 1, 0);
  EXPECT_EQ(coords.scalar_type(), at::kInt);
  EXPECT_EQ(coords.sizes(), at::IntArrayRef({trues + 3, 2}));
  const at::Tensor c = coords.cpu().to(at::kLong), v = valid.cpu();
  EXPECT_EQ(v.sum().item<int64_t>(), trues);
  const at::Tensor flat = (c.select(1, 0) * 7 + c.select(1, 1)).narrow(0, 0, trues);
  EXPECT_TRUE(m.flatten().index_select(0, flat).all().item<bool>());
  EXPECT_EQ(std::get<0>(at::_unique(flat)).numel(), trues);
  expectErrorMentioning([&] { choice.call(m.to(at::kFloat).to(npu()), 4, 0, 0); }, "x must be bool");
}

}  // namespace
