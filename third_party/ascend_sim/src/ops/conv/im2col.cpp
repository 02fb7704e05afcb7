// Im2col and Col2im (OPS.md "Dense prediction, padding, layout and
// indexing"): PyTorch's im2col / col2im (nn.functional.unfold / fold).
//
// Note [Im2col layout]
// x [N, C, H, W] (Im2col) <-> columns [N, C·kh·kw, L], L = oh·ow with
// oh = (H + 2·ph − (dh·(kh − 1) + 1)) / sh + 1 (likewise ow). Column row
// r = (c·kh + i)·kw + j, column l = a·ow + b holds x[n, c, a·sh − ph + i·dh,
// b·sw − pw + j·dw], or 0 where that lies in the padding. Im2col copies bits
// (any dtype). Col2im sums every column element into its image position
// (padding positions dropped): per (n, c) plane, fp32, in the order i, j, a,
// b ascending (PyTorch's loop order), one rounding; planes are split over
// the vector cores, so the bits do not depend on the host thread count.
#include <cstring>
#include <string>
#include <vector>

#include "kernel/index_util.h"

namespace ascend_sim {
namespace {

struct ColGeom {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t oh = 0, ow = 0;
  int64_t rows() const { return c * kh * kw; }
  int64_t cols() const { return oh * ow; }
};

std::vector<int64_t> pairAttr(const OpCall& call, const char* name, int64_t min) {
  std::vector<int64_t> v = attrInts(call, name);
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2 || v[0] < min || v[1] < min)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' " + shapeToString(v) + " must be 2 values >= " + std::to_string(min));
  return v;
}

ColGeom geomOf(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const bool to_cols = call.op_type == "Im2col";
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", to_cols ? kAllTypes : kFloatTypes);
  checkSameDtype(call, x, "x", y, "output y");
  ColGeom g;
  const auto k = pairAttr(call, to_cols ? "ksizes" : "kernel_size", 1);
  const auto s = pairAttr(call, to_cols ? "strides" : "stride", 1);
  const auto d = pairAttr(call, to_cols ? "dilations" : "dilation", 1);
  const auto p = pairAttr(call, to_cols ? "pads" : "padding", 0);
  g.kh = k[0], g.kw = k[1], g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1], g.ph = p[0], g.pw = p[1];
  const TensorArg& image = to_cols ? x : y;
  const TensorArg& cols = to_cols ? y : x;
  const char* image_name = to_cols ? "input x" : "output y";
  if (image.shape.size() != 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string(image_name) + " shape " + shapeToString(image.shape) + " must be [N, C, H, W]");
  g.n = image.shape[0], g.c = image.shape[1], g.h = image.shape[2], g.w = image.shape[3];
  if (!to_cols) {
    const std::vector<int64_t> out = attrInts(call, "output_size");
    if (out != std::vector<int64_t>{g.h, g.w})
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "output y spatial size [" + std::to_string(g.h) + "," + std::to_string(g.w) + "] does not match output_size " +
               shapeToString(out));
  }
  g.oh = (g.h + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  if (g.oh < 1 || g.ow < 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "image [" + std::to_string(g.h) + "," + std::to_string(g.w) + "] is too small for kernel [" +
             std::to_string(g.kh) + "," + std::to_string(g.kw) + "], dilation, padding and stride: no block fits");
  checkShapeEq(call, cols, to_cols ? "output y" : "input x", {g.n, g.rows(), g.cols()}, "[N, C*kh*kw, L] =");
  return g;
}

void validateCol(const OpCall& call) { geomOf(call); }

// fn(column element offset within the plane's column block, image offset within
// the plane or −1 in the padding), in the order i, j, a, b.
template <typename Fn>
void forEachTap(const ColGeom& g, Fn&& fn) {
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      for (int64_t a = 0; a < g.oh; ++a) {
        const int64_t hi = a * g.sh - g.ph + i * g.dh;
        for (int64_t b = 0; b < g.ow; ++b) {
          const int64_t wi = b * g.sw - g.pw + j * g.dw;
          const bool in = hi >= 0 && hi < g.h && wi >= 0 && wi < g.w;
          fn(((i * g.kw + j) * g.oh + a) * g.ow + b, in ? hi * g.w + wi : -1);
        }
      }
}

void computeCol(const OpCall& call) {
  const ColGeom g = geomOf(call);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const int64_t planes = g.n * g.c, block = g.kh * g.kw * g.cols(), plane = g.h * g.w;
  const int64_t blocks = blocksFor(call, planes, std::max(x.numel(), y.numel()));
  if (call.op_type == "Im2col") {
    const size_t es = dtypeSize(x.dtype);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    splitRange(planes, blocks, [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p)
        forEachTap(g, [&](int64_t col, int64_t img) {
          char* out = dst + static_cast<size_t>(p * block + col) * es;
          if (img < 0) std::memset(out, 0, es);
          else std::memcpy(out, src + static_cast<size_t>(p * plane + img) * es, es);
        });
    });
    return;
  }
  std::vector<float> cols(static_cast<size_t>(x.numel())), img(static_cast<size_t>(y.numel()), 0.0f);
  loadFloat(x.dtype, x.data, 0, 1, x.numel(), cols.data());
  splitRange(planes, blocks, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      forEachTap(g, [&](int64_t col, int64_t pos) {
        if (pos >= 0) img[static_cast<size_t>(p * plane + pos)] += cols[static_cast<size_t>(p * block + col)];
      });
  });
  storeFloat(y.dtype, y.data, 0, y.numel(), img.data());
}

KernelCost costCol(const OpCall& call) {
  const ColGeom g = geomOf(call);
  KernelCost c = vectorCost(call);
  c.flops = call.op_type == "Im2col" ? 0 : static_cast<double>(call.inputs[0].numel());
  c.block_dim = static_cast<uint32_t>(
      blocksFor(call, g.n * g.c, std::max(call.inputs[0].numel(), call.outputs[0].numel())));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Im2col", &validateCol, &computeCol, &costCol});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Col2im", &validateCol, &computeCol, &costCol});

}  // namespace
}  // namespace ascend_sim
