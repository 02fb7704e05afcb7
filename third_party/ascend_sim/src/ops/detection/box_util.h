// Boxes as the detection kernels read them: two opposite corners (x1, y1,
// x2, y2) in either order, their IoU, and greedy suppression (Note [Greedy NMS]
// in nms.cpp), shared by NonMaxSuppressionV4, NMSWithMask,
// BatchMultiClassNonMaxSuppression and Iou.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ascend_sim {

struct Corners {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0, area = 0;
};

inline Corners cornersOf(const float* b) {
  Corners c{std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3]), 0};
  c.area = (c.x2 - c.x1) * (c.y2 - c.y1);
  return c;
}

// The overlap of two boxes' areas (0 when they do not meet).
inline float intersection(const Corners& a, const Corners& b) {
  const float w = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), 0.0f);
  const float h = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), 0.0f);
  return w * h;
}

// IoU; 0 when either box has no area.
inline float iouOf(const Corners& a, const Corners& b) {
  if (!(a.area > 0) || !(b.area > 0)) return 0.0f;
  const float inter = intersection(a, b);
  return inter / (a.area + b.area - inter);
}

// Orders candidate indices by descending score, ties by position in `order`;
// NaN scores come first, as PyTorch's descending sort puts them.
template <typename ScoreOf>
void sortByScoreDescending(std::vector<int64_t>& order, const ScoreOf& score) {
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const float sa = score(a), sb = score(b);
    const bool na = std::isnan(sa), nb = std::isnan(sb);
    return na || nb ? na && !nb : sa > sb;
  });
}

// Greedy NMS over `order` (indices into `boxes`, best first): the selected
// indices, at most max_out of them; a box is dropped when its IoU with a
// selected one is above the threshold.
inline std::vector<int64_t> greedySuppress(const std::vector<Corners>& boxes, const std::vector<int64_t>& order,
                                           float iou_threshold, int64_t max_out) {
  std::vector<int64_t> selected;
  for (int64_t i : order) {
    if (static_cast<int64_t>(selected.size()) >= max_out) break;
    const bool suppressed = std::any_of(selected.begin(), selected.end(),
                                        [&](int64_t k) { return iouOf(boxes[k], boxes[i]) > iou_threshold; });
    if (!suppressed) selected.push_back(i);
  }
  return selected;
}

}  // namespace ascend_sim
