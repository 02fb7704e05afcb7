// DeformableOffsets and DeformableOffsetsGrad (OPS.md "Detection"), on the
// Vector unit: the sampling half of a deformable convolution, as CANN splits
// it (DeformableOffsets, then a Conv2D whose kernel and stride are the
// deformable kernel's size).
//
// Note [Deformable sampling]
// inputs x [N, C, H, W], offset [N, 2 * G * kh * kw, Ho, Wo] (for offset group
// g and kernel point k = i * kw + j: channel 2k is the row offset, 2k + 1 the
// column offset, torchvision's layout) and, with attr modulated = true, mask
// [N, G * kh * kw, Ho, Wo]. Attrs: ksize [kh, kw], strides [sh, sw], pads
// [ph, pw], dilations [dh, dw], deformable_groups G (C % G == 0). Output y
// [N, C, Ho * kh, Wo * kw], the deformed patches laid side by side:
//   y[n, c, oh * kh + i, ow * kw + j] = m * bilinear(x[n, c], oh * sh - ph + i * dh + dy,
//                                                    ow * sw - pw + j * dw + dx)
// with (dy, dx, m) those of c's group. The bilinear read is 0 when the point
// is a pixel or more outside the map (row <= -1 or >= H, likewise columns);
// otherwise each of its four neighbours outside the map reads 0. A Conv2D of
// y with kernel [kh, kw] and stride [kh, kw] is then torchvision's
// deform_conv2d.
//
// DeformableOffsetsGrad: inputs dy (y's shape), x, offset [, mask]; outputs
// dx (x's shape), doffset (offset's shape) [, dmask]: dx receives each
// gradient times m times its tap weights; doffset is m * dy times the
// bilinear read's derivative along the row (column), summed over the group's
// channels; dmask is dy times the read, likewise summed. All in fp32, in the
// order (n, c, kernel point, oh, ow), stored once.
#include <cmath>
#include <vector>

#include "ops/detection/roi_util.h"

namespace ascend_sim {
namespace {

struct DeformGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  bool modulated = false;
};

std::vector<int64_t> pairAttr(const OpCall& call, const char* name, int64_t lo) {
  const std::vector<int64_t> v = attrInts(call, name);
  if (v.size() != 2 || v[0] < lo || v[1] < lo)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' must be 2 values >= " + std::to_string(lo) + ", got " +
             shapeToString(v));
  return v;
}

// The geometry of a call; x is the input map (forward) or the dx output (gradient).
DeformGeometry geometryOf(const OpCall& call, const TensorArg& x, const TensorArg& offset) {
  DeformGeometry g;
  const FeatureDims d = checkFeatureMap(call, x, "x");
  g.n = d.n, g.c = d.c, g.h = d.h, g.w = d.w;
  const auto k = pairAttr(call, "ksize", 1), s = pairAttr(call, "strides", 1), p = pairAttr(call, "pads", 0),
             dl = pairAttr(call, "dilations", 1);
  g.kh = k[0], g.kw = k[1], g.sh = s[0], g.sw = s[1], g.ph = p[0], g.pw = p[1], g.dh = dl[0], g.dw = dl[1];
  g.groups = attrInt(call, "deformable_groups", 1);
  g.modulated = attrBool(call, "modulated", false);
  if (g.groups <= 0 || g.c % g.groups != 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "deformable_groups " + std::to_string(g.groups) + " must divide the " + std::to_string(g.c) + " channels");
  checkSameDtype(call, x, "x", offset, "input offset");
  if (offset.shape.size() != 4 || offset.shape[0] != g.n || offset.shape[1] != 2 * g.groups * g.kh * g.kw)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input offset must be [N, 2 * deformable_groups * kh * kw, Ho, Wo] = [" + std::to_string(g.n) + ", " +
             std::to_string(2 * g.groups * g.kh * g.kw) + ", Ho, Wo], got " + shapeToString(offset.shape));
  g.ho = offset.shape[2], g.wo = offset.shape[3];
  const int64_t want_ho = (g.h + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  const int64_t want_wo = (g.w + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  if (g.ho != want_ho || g.wo != want_wo)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input offset's spatial size " + std::to_string(g.ho) + " x " + std::to_string(g.wo) +
             " must be the convolution's output size " + std::to_string(want_ho) + " x " + std::to_string(want_wo));
  return g;
}

void checkMask(const OpCall& call, const DeformGeometry& g, const TensorArg& x, const TensorArg* mask) {
  if (g.modulated != (mask != nullptr))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         g.modulated ? "attr modulated = true needs the mask input" : "a mask input needs attr modulated = true");
  if (!mask) return;
  checkSameDtype(call, x, "x", *mask, "input mask");
  checkShapeEq(call, *mask, "input mask", {g.n, g.groups * g.kh * g.kw, g.ho, g.wo}, "[N, G * kh * kw, Ho, Wo]");
}

Shape expandedShape(const DeformGeometry& g) { return {g.n, g.c, g.ho * g.kh, g.wo * g.kw}; }

// One sampling point of the deformed grid.
struct DeformPoint {
  float y, x, m;
};

DeformPoint pointAt(const DeformGeometry& g, const std::vector<float>& off, const std::vector<float>& mask, int64_t n,
                    int64_t grp, int64_t k, int64_t oh, int64_t ow) {
  const int64_t plane = g.ho * g.wo, kk = g.kh * g.kw, i = k / g.kw, j = k % g.kw;
  const float* o = off.data() + (n * g.groups + grp) * 2 * kk * plane;
  const float dy = o[(2 * k) * plane + oh * g.wo + ow], dx = o[(2 * k + 1) * plane + oh * g.wo + ow];
  const float m = g.modulated ? mask[static_cast<size_t>(((n * g.groups + grp) * kk + k) * plane + oh * g.wo + ow)] : 1;
  return DeformPoint{static_cast<float>(oh * g.sh - g.ph + i * g.dh) + dy,
                     static_cast<float>(ow * g.sw - g.pw + j * g.dw) + dx, m};
}

// The four neighbours of (y, x) with their weights; neighbours outside the map get weight 0.
BilinearTaps deformTaps(float y, float x, int64_t h, int64_t w) {
  BilinearTaps t;
  if (y <= -1 || static_cast<float>(h) <= y || x <= -1 || static_cast<float>(w) <= x) return t;
  const int64_t yl = static_cast<int64_t>(std::floor(y)), xl = static_cast<int64_t>(std::floor(x));
  const float ly = y - static_cast<float>(yl), lx = x - static_cast<float>(xl), hy = 1 - ly, hx = 1 - lx;
  const int64_t ys[4] = {yl, yl, yl + 1, yl + 1}, xs[4] = {xl, xl + 1, xl, xl + 1};
  const float ws[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
  for (int q = 0; q < 4; ++q) {
    const bool in = ys[q] >= 0 && ys[q] < h && xs[q] >= 0 && xs[q] < w;
    t.idx[q] = in ? ys[q] * w + xs[q] : 0;
    t.w[q] = in ? ws[q] : 0.0f;
  }
  t.any = true;
  return t;
}

// d(bilinear)/d(row) and d(bilinear)/d(column) at (y, x), neighbours outside reading 0.
void deformSlopes(const float* plane, float y, float x, int64_t h, int64_t w, float* d_row, float* d_col) {
  const int64_t yl = static_cast<int64_t>(std::floor(y)), xl = static_cast<int64_t>(std::floor(x));
  auto at = [&](int64_t r, int64_t c) { return r >= 0 && r < h && c >= 0 && c < w ? plane[r * w + c] : 0.0f; };
  const float v00 = at(yl, xl), v01 = at(yl, xl + 1), v10 = at(yl + 1, xl), v11 = at(yl + 1, xl + 1);
  const float fy = y - static_cast<float>(yl), fx = x - static_cast<float>(xl);
  *d_row = fx * (v11 - v01) + (1 - fx) * (v10 - v00);
  *d_col = fy * (v11 - v10) + (1 - fy) * (v01 - v00);
}

// inputs x, offset [, mask]; output y.
void validateDeformableOffsets(const OpCall& call) {
  checkArity(call, 2, 3, 1);
  const TensorArg& x = call.inputs[0];
  const DeformGeometry g = geometryOf(call, x, call.inputs[1]);
  checkMask(call, g, x, call.inputs.size() > 2 ? &call.inputs[2] : nullptr);
  checkSameDtype(call, x, "x", call.outputs[0], "output y");
  checkShapeEq(call, call.outputs[0], "output y", expandedShape(g), "[N, C, Ho * kh, Wo * kw]");
}

void computeDeformableOffsets(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const DeformGeometry g = geometryOf(call, x, call.inputs[1]);
  const std::vector<float> xv = loadAllFloat(x), off = loadAllFloat(call.inputs[1]);
  const std::vector<float> mask = g.modulated ? loadAllFloat(call.inputs[2]) : std::vector<float>{};
  const int64_t yw = g.wo * g.kw, cpg = g.c / g.groups;
  std::vector<float> out(static_cast<size_t>(call.outputs[0].numel()));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c = 0; c < g.c; ++c) {
      const float* plane = xv.data() + (n * g.c + c) * g.h * g.w;
      float* dst = out.data() + (n * g.c + c) * g.ho * g.kh * yw;
      for (int64_t k = 0; k < g.kh * g.kw; ++k)
        for (int64_t oh = 0; oh < g.ho; ++oh)
          for (int64_t ow = 0; ow < g.wo; ++ow) {
            const DeformPoint p = pointAt(g, off, mask, n, c / cpg, k, oh, ow);
            dst[(oh * g.kh + k / g.kw) * yw + ow * g.kw + k % g.kw] =
                p.m * sampleAt(plane, deformTaps(p.y, p.x, g.h, g.w));
          }
    }
  storeAllFloat(call.outputs[0], out);
}

KernelCost costDeformableOffsets(const OpCall& call) { return roiVectorCost(call, 4.0, call.outputs[0]); }

// inputs dy, x, offset [, mask]; outputs dx, doffset [, dmask].
void validateDeformableOffsetsGrad(const OpCall& call) {
  checkArity(call, 3, 4, call.inputs.size() > 3 ? 3 : 2);
  const TensorArg& x = call.inputs[1];
  const DeformGeometry g = geometryOf(call, x, call.inputs[2]);
  checkMask(call, g, x, call.inputs.size() > 3 ? &call.inputs[3] : nullptr);
  checkSameDtype(call, x, "x", call.inputs[0], "input dy");
  checkShapeEq(call, call.inputs[0], "input dy", expandedShape(g), "[N, C, Ho * kh, Wo * kw]");
  for (size_t o = 0; o < call.outputs.size(); ++o) {
    const TensorArg& like = o == 0 ? x : call.inputs[o + 1];
    const std::string name = o == 0 ? "output dx" : (o == 1 ? "output doffset" : "output dmask");
    checkSameDtype(call, x, "x", call.outputs[o], name);
    checkShapeEq(call, call.outputs[o], name, like.shape, "the shape of its input");
  }
}

void computeDeformableOffsetsGrad(const OpCall& call) {
  const TensorArg& x = call.inputs[1];
  const DeformGeometry g = geometryOf(call, x, call.inputs[2]);
  const std::vector<float> gy = loadAllFloat(call.inputs[0]), xv = loadAllFloat(x), off = loadAllFloat(call.inputs[2]);
  const std::vector<float> mask = g.modulated ? loadAllFloat(call.inputs[3]) : std::vector<float>{};
  std::vector<float> dx(xv.size(), 0.0f), doff(off.size(), 0.0f), dmask(mask.size(), 0.0f);
  const int64_t yw = g.wo * g.kw, cpg = g.c / g.groups, kk = g.kh * g.kw, plane_o = g.ho * g.wo;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c = 0; c < g.c; ++c) {
      const int64_t grp = c / cpg;
      const float* plane = xv.data() + (n * g.c + c) * g.h * g.w;
      float* dplane = dx.data() + (n * g.c + c) * g.h * g.w;
      const float* src = gy.data() + (n * g.c + c) * g.ho * g.kh * yw;
      for (int64_t k = 0; k < kk; ++k)
        for (int64_t oh = 0; oh < g.ho; ++oh)
          for (int64_t ow = 0; ow < g.wo; ++ow) {
            const float grad = src[(oh * g.kh + k / g.kw) * yw + ow * g.kw + k % g.kw];
            const DeformPoint p = pointAt(g, off, mask, n, grp, k, oh, ow);
            const BilinearTaps t = deformTaps(p.y, p.x, g.h, g.w);
            if (t.any)
              for (int q = 0; q < 4; ++q) dplane[t.idx[q]] += p.m * grad * t.w[q];
            float d_row = 0, d_col = 0;
            deformSlopes(plane, p.y, p.x, g.h, g.w, &d_row, &d_col);
            const int64_t o = (n * g.groups + grp) * 2 * kk * plane_o + oh * g.wo + ow;
            doff[static_cast<size_t>(o + 2 * k * plane_o)] += p.m * grad * d_row;
            doff[static_cast<size_t>(o + (2 * k + 1) * plane_o)] += p.m * grad * d_col;
            if (g.modulated)
              dmask[static_cast<size_t>(((n * g.groups + grp) * kk + k) * plane_o + oh * g.wo + ow)] +=
                  grad * sampleAt(plane, t);
          }
    }
  storeAllFloat(call.outputs[0], dx);
  storeAllFloat(call.outputs[1], doff);
  if (g.modulated) storeAllFloat(call.outputs[2], dmask);
}

KernelCost costDeformableOffsetsGrad(const OpCall& call) { return roiVectorCost(call, 12.0, call.inputs[0]); }

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DeformableOffsets", &validateDeformableOffsets, &computeDeformableOffsets,
                                     &costDeformableOffsets});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DeformableOffsetsGrad", &validateDeformableOffsetsGrad,
                                     &computeDeformableOffsetsGrad, &costDeformableOffsetsGrad});

}  // namespace
}  // namespace ascend_sim
