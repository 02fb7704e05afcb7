// RotatedOverlaps, RotatedIou, RotatedBoxEncode / Decode and RotatedNMS (Note
// [Rotated boxes]) against exact areas of simple configurations (axis-aligned
// boxes, a square turned 45 degrees, nested and disjoint boxes), torch_npu's
// literal test values, a Monte-Carlo estimate of random overlaps, and errors.
#include <cmath>
#include <random>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Boxes [1, 5, n] from rows of five numbers.
HostTensor boxBlock(aclDataType dt, const std::vector<std::vector<float>>& boxes) {
  const int64_t n = static_cast<int64_t>(boxes.size());
  std::vector<float> v(5 * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t f = 0; f < 5; ++f) v[f * n + i] = boxes[i][f];
  return HostTensor::floats(dt, {1, 5, n}, v);
}

// Whether point (x, y) lies inside box (cx, cy, w, h, degrees).
bool inside(const std::vector<float>& b, double x, double y) {
  const double a = b[4] * kPi / 180, dx = x - b[0], dy = y - b[1];
  const double u = std::cos(a) * dx + std::sin(a) * dy, v = -std::sin(a) * dx + std::cos(a) * dy;
  return std::fabs(u) <= b[2] / 2 && std::fabs(v) <= b[3] / 2;
}

TEST(KernelRotatedBoxes, OverlapsOfExactConfigurations) {
  // Unit square at the origin against: itself turned 45 degrees (area 2(sqrt 2 - 1)), a shifted copy (0.5),
  // a far box (0), and a box holding it (1).
  const std::vector<std::vector<float>> boxes{{0, 0, 1, 1, 0}};
  const std::vector<std::vector<float>> query{
      {0, 0, 1, 1, 45}, {0.5f, 0, 1, 1, 90}, {5, 5, 1, 1, 30}, {0, 0, 3, 2, 17}};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor b = boxBlock(dt, boxes), q = boxBlock(dt, query), o(dt, {1, 1, 4}), iou(dt, {1, 1, 4});
    run(makeCall("RotatedOverlaps", {&b, &q}, {&o}, attrs({{"trans", false}})));
    const std::vector<double> want{2 * (std::sqrt(2.0) - 1), 0.5, 0, 1};
    expectNearReference(
        o.toFloats(), want, [](double r) { return 2e-3 * (1 + r); }, "overlaps");
    run(makeCall("RotatedIou", {&b, &q}, {&iou}, attrs({{"mode", std::string("iou")}})));
    const std::vector<double> want_iou{want[0] / (2 - want[0]), 0.5 / 1.5, 0, 1.0 / 6};
    expectNearReference(
        iou.toFloats(), want_iou, [](double r) { return 2e-3 * (1 + r); }, "iou");
    run(makeCall("RotatedIou", {&b, &q}, {&iou}, attrs({{"mode", std::string("iof")}})));
    expectNearReference(
        iou.toFloats(), want, [](double r) { return 2e-3 * (1 + r); }, "iof");
  }
  // A point (w = h = 0) overlaps nothing, on either side.
  HostTensor box = boxBlock(ACL_FLOAT, {{0, 0, 4, 2, 30}}), point = boxBlock(ACL_FLOAT, {{0, 0, 0, 0, 0}});
  HostTensor one(ACL_FLOAT, {1, 1, 1});
  run(makeCall("RotatedOverlaps", {&box, &point}, {&one}));
  EXPECT_EQ(one.toFloats()[0], 0.0f);
  run(makeCall("RotatedOverlaps", {&point, &box}, {&one}));
  EXPECT_EQ(one.toFloats()[0], 0.0f);
  // The corners form (trans): (x1, y1, x2, y2, angle) of the same boxes.
  HostTensor b = boxBlock(ACL_FLOAT, {{-0.5f, -0.5f, 0.5f, 0.5f, 0}}),
             q = boxBlock(ACL_FLOAT, {{0, -0.5f, 1, 0.5f, 90}});
  HostTensor o(ACL_FLOAT, {1, 1, 1});
  run(makeCall("RotatedOverlaps", {&b, &q}, {&o}, attrs({{"trans", true}})));
  EXPECT_NEAR(o.toFloats()[0], 0.5, 1e-6);
}

TEST(KernelRotatedBoxes, RandomOverlapsMatchAMonteCarloEstimate) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> centre(0, 4), size(1, 3), angle(-180, 180);
  std::vector<std::vector<float>> boxes, query;
  for (int i = 0; i < 3; ++i) boxes.push_back({centre(gen), centre(gen), size(gen), size(gen), angle(gen)});
  for (int i = 0; i < 4; ++i) query.push_back({centre(gen), centre(gen), size(gen), size(gen), angle(gen)});
  HostTensor b = boxBlock(ACL_FLOAT, boxes), q = boxBlock(ACL_FLOAT, query), o(ACL_FLOAT, {1, 3, 4});
  run(makeCall("RotatedOverlaps", {&b, &q}, {&o}));
  const std::vector<float> got = o.toFloats();
  const int grid = 600;  // cells of (10 / 600)^2 over [-3, 7]^2
  const double cell = 10.0 / grid;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double area = 0;
      for (int u = 0; u < grid; ++u)
        for (int v = 0; v < grid; ++v) {
          const double x = -3 + (u + 0.5) * cell, y = -3 + (v + 0.5) * cell;
          if (inside(boxes[i], x, y) && inside(query[j], x, y)) area += cell * cell;
        }
      EXPECT_NEAR(got[i * 4 + j], area, 0.02 + 0.01 * area) << i << "," << j;
    }
}

TEST(KernelRotatedBoxes, CodingReproducesTorchNpusValuesAndRoundTrips) {
  // torch_npu's test_rotated_box_encode / decode values (fp32), corners form, degrees.
  HostTensor a = boxBlock(ACL_FLOAT, {{44.2877f, 9.1412f, 88.7575f, 25.8879f, 64.8047f}});
  HostTensor g = boxBlock(ACL_FLOAT, {{39.1763f, 0.9838f, 78.1028f, 29.5997f, 51.5907f}});
  HostTensor d(ACL_FLOAT, {1, 5, 1}), back(ACL_FLOAT, {1, 5, 1});
  const AttrMap ones = attrs({{"weight", std::vector<float>{1, 1, 1, 1, 1}}});
  run(makeCall("RotatedBoxEncode", {&a, &g}, {&d}, ones));
  expectNearReference(
      d.toFloats(), {-0.1773, -0.1327, -0.1331, 0.5358, -0.8643}, [](double) { return 1e-4; }, "encode");
  run(makeCall("RotatedBoxDecode", {&a, &d}, {&back}, ones));
  expectNearReference(
      back.toFloats(), {39.1763, 0.9838, 78.1028, 29.5997, 51.5907}, [](double) { return 1e-3; }, "decode(encode)");
  HostTensor a2 = boxBlock(ACL_FLOAT, {{32.1855f, 41.9922f, 64.1435f, 62.5325f, 34.607f}});
  HostTensor d2 = boxBlock(ACL_FLOAT, {{1.8725f, -1.8915f, 0.2395f, -0.4622f, -34.6539f}});
  run(makeCall("RotatedBoxDecode", {&a2, &d2}, {&back}, ones));
  expectNearReference(
      back.toFloats(), {87.70366, 6.9412346, 128.31055, 19.879467, -88.313515},
      [](double r) { return 2e-5 * std::fabs(r) + 1e-4; }, "decode");
  // Weights scale each delta.
  run(makeCall("RotatedBoxEncode", {&a, &g}, {&back}, attrs({{"weight", std::vector<float>{2, 1, 1, 1, 0.5f}}})));
  EXPECT_NEAR(back.toFloats()[0], 2 * d.toFloats()[0], 1e-6);
  EXPECT_NEAR(back.toFloats()[4], 0.5 * d.toFloats()[4], 1e-6);
  EXPECT_KERNEL_ERROR(makeCall("RotatedBoxEncode", {&a, &g}, {&d}, attrs({{"weight", std::vector<float>{1, 1}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "weight must hold 5 values");
}

TEST(KernelRotatedBoxes, RotatedNmsKeepsWhatTorchNpusTestKeeps) {
  // torch_npu's test_npu_nms_rotated.py: 20 detections (x1, y1, x2, y2, angle), mode 1, threshold 0.2.
  const std::vector<float> det{
      1038.2f,  316.57f, 1155.6f,  443.03f, 2.3674f, 1150.3f, 305.98f, 1260.2f,  434.56f, 0.32729f, 1150.8f, 306.52f,
      1260.7f,  434.72f, 0.51713f, 1151.8f, 307.81f, 1262.2f, 434.48f, 0.39718f, 1174.8f, 302.02f,  1285.9f, 439.15f,
      1.8112f,  1171.1f, 304.80f,  1286.8f, 435.51f, 2.1171f, 1167.3f, 306.75f,  1288.9f, 431.94f,  2.5968f, 1274.1f,
      301.81f,  1382.3f, 430.36f,  2.0379f, 1274.1f, 302.86f, 1383.6f, 429.40f,  2.2072f, 1273.3f,  303.82f, 1385.5f,
      428.46f,  2.0921f, 1293.5f,  305.17f, 1396.1f, 431.37f, 2.9583f, 1407.6f,  321.73f, 1493.0f,  427.14f, 2.6099f,
      1409.7f,  324.96f, 1493.4f,  426.51f, 3.0967f, 1409.7f, 325.69f, 1493.5f,  426.32f, 2.5553f,  1027.9f, 318.83f,
      1141.2f,  446.46f, 1.2030f,  1027.5f, 317.76f, 1140.8f, 446.41f, 1.2732f,  1028.9f, 316.94f,  1140.7f, 445.10f,
      0.94897f, 1037.2f, 312.33f,  1147.7f, 445.21f, 1.4125f, 1037.0f, 315.64f,  1148.7f, 443.17f,  1.6109f, 1036.7f,
      316.82f,  1151.0f, 440.20f,  1.4112f};
  const std::vector<float> score{0.9910f, 0.9854f, 0.9972f, 0.9930f, 0.4282f, 0.5092f, 0.6532f,
                                 0.9965f, 0.9989f, 0.9976f, 0.3144f, 0.9874f, 0.9980f, 0.9967f,
                                 0.9698f, 0.9824f, 0.9474f, 0.9856f, 0.9964f, 0.9926f};
  HostTensor b = HostTensor::floats(ACL_FLOAT, {20, 5}, det), s = HostTensor::floats(ACL_FLOAT, {20}, score);
  HostTensor labels = HostTensor::ints(ACL_INT32, {}, {0}), idx(ACL_INT32, {20}), num(ACL_INT32, {1});
  const auto call = [&](int64_t max_out, const HostTensor& lab) {
    return makeCall(
        "RotatedNMS", {&b, &s, &lab}, {&idx, &num},
        attrs(
            {{"iou_threshold", 0.2f}, {"score_threshold", 0.0f}, {"max_output_size", max_out}, {"mode", int64_t{1}}}));
  };
  run(call(-1, labels));
  EXPECT_EQ(num.toInts(), std::vector<int64_t>{4});
  const std::vector<int64_t> got = idx.toInts();
  EXPECT_EQ(std::vector<int64_t>(got.begin(), got.begin() + 4), (std::vector<int64_t>{8, 12, 2, 18}));
  run(call(2, labels));
  EXPECT_EQ(num.toInts(), std::vector<int64_t>{2});
  // Per-box labels: boxes 8 and 9 overlap but differ in label, so both stay.
  std::vector<int64_t> per_box(20, 0);
  per_box[9] = 1;
  HostTensor labels2 = HostTensor::ints(ACL_INT32, {20}, per_box);
  run(call(-1, labels2));
  EXPECT_EQ(num.toInts(), std::vector<int64_t>{5});
  EXPECT_KERNEL_ERROR(
      makeCall("RotatedNMS", {&b, &s, &labels}, {&idx, &num}, attrs({{"iou_threshold", 0.2f}, {"mode", int64_t{2}}})),
      ACL_ERROR_OP_ATTR_NOT_MATCH, "mode must be 0");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
