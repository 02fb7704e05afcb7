// torch_npu's rotated-box ops (npu_rotated_overlaps, npu_rotated_iou,
// npu_rotated_box_encode / decode, npu_nms_rotated) against CPU compositions
// (the coders' formulas, IoU from the overlaps and the boxes' areas, exact
// areas of axis-aligned boxes), torch_npu's literal cases, and their errors.
#include <cmath>

#include "detection_test_util.h"
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

using OverlapsSig = at::Tensor(const at::Tensor&, const at::Tensor&, bool);
using IouSig = at::Tensor(const at::Tensor&, const at::Tensor&, bool, int64_t, bool, double, double);
using CodingSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&);

TEST(NpuRotatedBoxes, OverlapsAndIouAgainstCpuCompositions) {
  auto overlaps = npuDetectionOp<OverlapsSig>("npu_rotated_overlaps");
  auto iou = npuDetectionOp<IouSig>("npu_rotated_iou");
  // Axis-aligned boxes (angle 0 or 180): the overlap is the rectangles' intersection.
  const at::Tensor c1 = at::rand({2, 5, 2}) * 10, s1 = at::rand({2, 5, 2}) * 4 + 1;
  const at::Tensor c2 = at::rand({2, 4, 2}) * 10, s2 = at::rand({2, 4, 2}) * 4 + 1;
  const at::Tensor a1 = (at::randint(0, 2, {2, 5, 1}) * 180).to(at::kFloat), a2 = at::zeros({2, 4, 1});
  const at::Tensor boxes = at::cat({c1, s1, a1}, 2), query = at::cat({c2, s2, a2}, 2);
  const at::Tensor lo = at::max((c1 - s1 / 2).unsqueeze(2), (c2 - s2 / 2).unsqueeze(1));
  const at::Tensor hi = at::min((c1 + s1 / 2).unsqueeze(2), (c2 + s2 / 2).unsqueeze(1));
  const at::Tensor want = (hi - lo).clamp_min(0).prod(-1);
  const at::Tensor got = overlaps.call(boxes.to(npu()), query.to(npu()), false);
  EXPECT_EQ(got.sizes(), at::IntArrayRef({2, 5, 4}));
  expectClose(got.cpu(), want, 1e-4, 1e-4);
  // IoU = overlap / (area1 + area2 - overlap), on turned boxes; fp16 in, fp16 out.
  const at::Tensor turned = boxes.clone(), turned_q = query.clone();
  turned.select(2, 4).uniform_(-180, 180);
  turned_q.select(2, 4).uniform_(-180, 180);
  const at::Tensor inter = overlaps.call(turned.to(npu()), turned_q.to(npu()), false).cpu();
  const at::Tensor area1 = s1.prod(-1).unsqueeze(2), area2 = s2.prod(-1).unsqueeze(1);
  expectClose(iou.call(turned.to(npu()), turned_q.to(npu()), false, 0, true, 0, 0).cpu(),
              inter / (area1 + area2 - inter), 1e-4, 1e-5);
  expectClose(iou.call(turned.to(npu()), turned_q.to(npu()), false, 1, true, 0, 0).cpu(), inter / area1, 1e-4, 1e-5);
  const at::Tensor half =
      iou.call(turned.to(at::kHalf).to(npu()), turned_q.to(at::kHalf).to(npu()), false, 0, true, 0, 0);
  EXPECT_EQ(half.scalar_type(), at::kHalf);
  expectErrorMentioning([&] { iou.call(turned.to(npu()), turned_q.to(npu()), false, 0, false, 0, 0); },
                        "is_cross=False is not supported");
  expectErrorMentioning([&] { overlaps.call(boxes.narrow(2, 0, 4).to(npu()), query.to(npu()), false); },
                        "npu_rotated_overlaps: self must be [B, N, 5]");
}

TEST(NpuRotatedBoxes, SelfOverlapAndTheCoders) {
  auto overlaps = npuDetectionOp<OverlapsSig>("npu_rotated_overlaps");
  // A turned box overlaps itself by its whole area.
  const at::Tensor b = at::tensor({49.0558f, 48.6634f, 5.f, 7.f, 3.f}).reshape({1, 1, 5});
  EXPECT_EQ(overlaps.call(b.to(npu()), b.to(npu()), false).cpu().item<float>(), 35.f);
  auto encode = npuDetectionOp<CodingSig>("npu_rotated_box_encode");
  auto decode = npuDetectionOp<CodingSig>("npu_rotated_box_decode");
  const at::Tensor ones = at::ones({5});
  const at::Tensor anchors = at::tensor({44.2877f, 9.1412f, 88.7575f, 25.8879f, 64.8047f}).reshape({1, 5, 1});
  const at::Tensor gts = at::tensor({39.1763f, 0.9838f, 78.1028f, 29.5997f, 51.5907f}).reshape({1, 5, 1});
  const at::Tensor deltas = encode.call(anchors.to(npu()), gts.to(npu()), ones);
  expectClose(deltas.cpu(), at::tensor({-0.1773f, -0.1327f, -0.1331f, 0.5358f, -0.8643f}).reshape({1, 5, 1}), 1e-3,
              1e-4);
  expectClose(decode.call(anchors.to(npu()), deltas, ones).cpu(), gts, 1e-5, 1e-3);
  // The coders against their formulas on random boxes, with weights.
  const at::Tensor xy = at::rand({2, 2, 7}) * 50, wh = at::rand({2, 2, 7}) * 20 + 1,
                   ang = at::rand({2, 1, 7}) * 160 - 80;
  const at::Tensor a = at::cat({xy, xy + wh, ang}, 1), d = at::randn({2, 5, 7}) * 0.3;
  const at::Tensor weight = at::tensor({1.f, 2.f, 1.f, 0.5f, 1.f});
  const auto wv = weight.reshape({1, 5, 1});
  const at::Tensor dd = d / wv;
  const at::Tensor aw = a.select(1, 2) - a.select(1, 0), ah = a.select(1, 3) - a.select(1, 1);
  const at::Tensor cx = (a.select(1, 0) + a.select(1, 2)) / 2 + dd.select(1, 0) * aw;
  const at::Tensor cy = (a.select(1, 1) + a.select(1, 3)) / 2 + dd.select(1, 1) * ah;
  const at::Tensor gw = aw * dd.select(1, 2).exp(), gh = ah * dd.select(1, 3).exp();
  const at::Tensor gang = at::atan(at::tan(a.select(1, 4) * M_PI / 180) + dd.select(1, 4)) * 180 / M_PI;
  const at::Tensor want = at::stack({cx - gw / 2, cy - gh / 2, cx + gw / 2, cy + gh / 2, gang}, 1);
  expectClose(decode.call(a.to(npu()), d.to(npu()), weight).cpu(), want, 1e-4, 1e-4);
  expectErrorMentioning([&] { encode.call(a.to(npu()), d.to(npu()), at::ones({4})); }, "weight must hold 5 values");
}

TEST(NpuRotatedBoxes, NmsRotatedOnTorchNpusCase) {
  auto nms = npuDetectionOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double, double,
                                                               int64_t, int64_t)>("npu_nms_rotated");
  // The first rows of torch_npu's test_npu_nms_rotated.py (x1, y1, x2, y2, angle): boxes 0 and 2 overlap
  // box 1 heavily; box 3 lies apart.
  const at::Tensor det =
      at::tensor({1150.3f, 305.98f, 1260.2f, 434.56f, 0.32729f, 1150.8f, 306.52f, 1260.7f, 434.72f, 0.51713f,
                  1151.8f, 307.81f, 1262.2f, 434.48f, 0.39718f, 1407.6f, 321.73f, 1493.0f, 427.14f, 2.6099f})
          .reshape({4, 5});
  const at::Tensor score = at::tensor({0.9854f, 0.9972f, 0.9930f, 0.9874f});
  at::Tensor idx, num;
  std::tie(idx, num) = nms.call(det.to(npu()), score.to(npu()), 0.2, 0, -1, 1);
  EXPECT_EQ(idx.scalar_type(), at::kInt);
  EXPECT_EQ(num.sizes(), at::IntArrayRef({1}));
  expectClose(idx.cpu(), at::tensor({1, 3}, at::kInt));
  expectClose(num.cpu(), at::tensor({2}, at::kInt));
  std::tie(idx, num) = nms.call(det.to(npu()), score.to(npu()), 0.2, 0, 1, 1);
  expectClose(idx.cpu(), at::tensor({1}, at::kInt));
  expectErrorMentioning([&] { nms.call(det.to(npu()), score.to(npu()), 0.2, 0, -1, 3); },
                        "npu_nms_rotated: mode must be 0");
  std::tie(idx, num) = nms.call(det.narrow(0, 0, 0).to(npu()), score.narrow(0, 0, 0).to(npu()), 0.2, 0, -1, 1);
  EXPECT_EQ(idx.numel(), 0);
  EXPECT_EQ(num.cpu().item<int>(), 0);
}

}  // namespace
