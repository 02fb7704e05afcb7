// Conv3D, Conv3DBackpropInput, Conv3DBackpropFilter (OPS.md "Convolution and
// pooling") on the simulated Cube unit: the volumetric convolutions of
// nn.Conv3d / nn.ConvTranspose3d.
//
// Note [3-D convolution]
// The numerics are Conv2D's (Note [Convolution on the Cube] in conv2d.cpp)
// with one more window dim: one fp32 accumulator per output element adds the
// products of its reduction index in ascending order with FMA (bias last),
// rounded once to the output dtype; fp32 operands follow the precision mode
// (rounded to fp16 under allow_fp32_to_fp16 / force_fp16; force_fp16 also
// rounds an fp32 result through fp16). Per group:
//   Conv3D               y[n,co,od,oh,ow] = Σ_(ci,a,i,j) x[n,ci,od·sd−pf+a·dd, oh·sh−pt+i·dh, ow·sw−pl+j·dw]·w[co,ci,a,i,j]
//   Conv3DBackpropInput  dx[n,ci,d,h,w]   = Σ_(co,a,i,j) dy[n,co,od,oh,ow]·w[co,ci,a,i,j] over the taps that
//                        put (a, i, j) on (d, h, w)
//   Conv3DBackpropFilter dw[co,ci,a,i,j]  = Σ_(n,od,oh,ow) dy[n,co,od,oh,ow]·x[n,ci,...]
// with padded or out-of-range taps contributing 0·w (products the Cube
// makes). y may be cropped at the end by fewer than max(stride, dilation)
// per dim (Note [Cropped convolution outputs] in conv2d.cpp). Operands are
// NCDHW, or in the layouts CANN keeps them in: activations (x, y, dx, dy)
// NDC1HWC0 and filters (w, dw) FRACTAL_Z_3D, any mix; a private operand is
// read and written in logical NCDHW order through the format registry, so the
// bits do not depend on the formats, and output pads are zero. Bias is ND.
// Attrs: `strides` [sd, sh, sw],
// `pads` [front, back, top, bottom, left, right], `dilations`, `groups`;
// `input_size` / `filter_size` (5 values) for the backprops.
// Cost: the Cube MACs of the per-group matrix products (M, K, N padded to 16).
// Where the host's Cube reads in place, the ops run as those products
// (Note [3-D convolution on the 2-D Cube path] in conv3d_cube.cpp); the loops below
// are the reference they match bit for bit, and run elsewhere.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "ops/conv/conv3d_cube.h"
#include "ops/conv/conv_util.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

enum class Conv3dOp { kForward, kBackpropInput, kBackpropFilter };

Conv3dOp opOf(const OpCall& call) {
  if (call.op_type == "Conv3DBackpropInput") return Conv3dOp::kBackpropInput;
  if (call.op_type == "Conv3DBackpropFilter") return Conv3dOp::kBackpropFilter;
  return Conv3dOp::kForward;
}

using convops::Geom3d;

std::vector<int64_t> intList(const OpCall& call, const char* name, size_t n, std::vector<int64_t> fallback,
                             bool required) {
  if (!call.attrs.has(name)) {
    if (required) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("missing attribute '") + name + "'");
    return fallback;
  }
  const std::vector<int64_t> v = attrInts(call, name);
  if (v.size() != n)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' must have " + std::to_string(n) + " values, got " +
             std::to_string(v.size()));
  return v;
}

// The logical NCDHW shape of an operand (NCDHW, or its private format for `kind`).
Shape shape5d(const OpCall& call, const TensorArg& t, const std::string& who, convutil::OperandKind kind) {
  const Shape s = convutil::logicalShapeOf(call, t, who, kind);
  if (s.size() != 5)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " shape " + shapeToString(s) + " must be 5-D (NCDHW)");
  return s;
}

// The operand counts: 2 inputs (3 with the forward's bias) and 1 output; formats are checked per operand.
void checkCounts3d(const OpCall& call, Conv3dOp op) {
  const size_t max_in = op == Conv3dOp::kForward ? 3 : 2;
  if (call.inputs.size() < 2 || call.inputs.size() > max_in)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::string(max_in == 2 ? "2" : "2..3") + " inputs, got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != 1)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 1 output, got " + std::to_string(call.outputs.size()));
}

// Parses and validates the call.
Geom3d geomOf(const OpCall& call) {
  const Conv3dOp op = opOf(call);
  checkCounts3d(call, op);
  const TensorArg* x = nullptr;
  const TensorArg* filter = nullptr;
  const TensorArg* y = nullptr;
  std::string xname = "input x", fname = "input filter", yname = "output y";
  switch (op) {
    case Conv3dOp::kForward: x = &call.inputs[0], filter = &call.inputs[1], y = &call.outputs[0]; break;
    case Conv3dOp::kBackpropInput:
      filter = &call.inputs[0], y = &call.inputs[1], x = &call.outputs[0], xname = "output dx", yname = "input dy";
      break;
    case Conv3dOp::kBackpropFilter:
      x = &call.inputs[0], y = &call.inputs[1], filter = &call.outputs[0], fname = "output dw", yname = "input dy";
      break;
  }
  checkDtype(call, *x, xname, kFloatTypes);
  checkSameDtype(call, *x, xname, *filter, fname);
  checkSameDtype(call, *x, xname, *y, yname);
  using convutil::OperandKind;
  const Shape xs = shape5d(call, *x, xname, OperandKind::kActivation3d);
  const Shape fs = shape5d(call, *filter, fname, OperandKind::kFilter3d);
  const Shape ys = shape5d(call, *y, yname, OperandKind::kActivation3d);
  if (op == Conv3dOp::kBackpropInput && intList(call, "input_size", 5, {}, true) != xs)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dx shape " + shapeToString(xs) + " does not match input_size");
  if (op == Conv3dOp::kBackpropFilter && intList(call, "filter_size", 5, {}, true) != fs)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output dw shape " + shapeToString(fs) + " does not match filter_size");
  Geom3d g;
  g.n = xs[0], g.ci = xs[1], g.co = fs[0], g.cig = fs[1];
  g.groups = attrInt(call, "groups", 1);
  if (g.groups < 1) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "groups " + std::to_string(g.groups) + " must be >= 1");
  if (g.cig * g.groups != g.ci || g.co % g.groups != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "filter " + shapeToString(fs) + " does not fit input channels " + std::to_string(g.ci) + " with groups " +
             std::to_string(g.groups) + " (need filter dim 1 x groups = input channels, groups | filter dim 0)");
  g.cog = g.co / g.groups;
  const std::vector<int64_t> strides = intList(call, "strides", 3, {1, 1, 1}, false);
  const std::vector<int64_t> pads = intList(call, "pads", 6, {0, 0, 0, 0, 0, 0}, false);
  const std::vector<int64_t> dilations = intList(call, "dilations", 3, {1, 1, 1}, false);
  const Shape natural_y = [&] {
    Shape s{g.n, g.co};
    for (int d = 0; d < 3; ++d) {
      g.in[d] = xs[2 + d], g.k[d] = fs[2 + d], g.s[d] = strides[d], g.pad[d] = pads[2 * d], g.dil[d] = dilations[d];
      if (g.s[d] < 1 || g.dil[d] < 1 || pads[2 * d] < 0 || pads[2 * d + 1] < 0 || g.k[d] < 1)
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
             "strides and dilations must be >= 1, pads >= 0 and the kernel non-empty");
      const int64_t span = g.in[d] + pads[2 * d] + pads[2 * d + 1] - g.dil[d] * (g.k[d] - 1) - 1;
      if (span < 0)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             "the dilated kernel " + shapeToString(fs) + " is larger than the padded " + xname + " " +
                 shapeToString(xs));
      s.push_back(span / g.s[d] + 1);
    }
    return s;
  }();
  // A cropped y as in Conv2D (Note [Cropped convolution outputs]).
  bool ok = ys[0] == g.n && ys[1] == g.co;
  for (int d = 0; d < 3; ++d) {
    g.out[d] = ys[2 + d];
    ok = ok && ys[2 + d] > 0 && ys[2 + d] <= natural_y[2 + d] &&
         natural_y[2 + d] - ys[2 + d] < std::max(g.s[d], g.dil[d]);
  }
  if (!ok)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         yname + " shape " + shapeToString(ys) + " must be " + shapeToString(natural_y) + " (N, Co, Do, Ho, Wo) for " +
             xname + " " + shapeToString(xs) + ", " + fname + " " + shapeToString(fs));
  if (op == Conv3dOp::kForward && call.inputs.size() == 3) {
    checkSameDtype(call, *x, xname, call.inputs[2], "input bias");
    if (call.inputs[2].format != ACL_FORMAT_ND && call.inputs[2].format != ACL_FORMAT_NCHW &&
        call.inputs[2].format != ACL_FORMAT_NCDHW)
      fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT, "input bias must be in a base format (ND)");
    checkShapeEq(call, call.inputs[2], "input bias", {g.co}, "[Co]");
    g.has_bias = true;
  }
  return g;
}

void validateConv3d(const OpCall& call) { (void)geomOf(call); }

// The input coordinate of output position o and tap a along dim d, or -1 outside.
int64_t tapPos(const Geom3d& g, int d, int64_t o, int64_t a) {
  const int64_t p = o * g.s[d] - g.pad[d] + a * g.dil[d];
  return p >= 0 && p < g.in[d] ? p : -1;
}

// The `count` logical elements of an operand in NCDHW order, rounded per the precision mode.
std::vector<float> loadOperand(const TensorArg& t, int64_t count, CubeRounding rnd, bool* overflow) {
  std::vector<float> v(static_cast<size_t>(count));
  convutil::loadLogicalF32(t, v.data());
  if (roundCubeOperands(rnd, v.data(), count)) *overflow = true;
  return v;
}

// force_fp16 with an fp32 output: the Cube result passes through fp16.
void storeResult(const OpCall& call, const TensorArg& out, std::vector<float>& v, bool* overflow) {
  const convutil::ResultRounding rr = convutil::resultRoundingOf(call);
  for (float& e : v) e = rr.apply(e, overflow);
  convutil::storeLogicalF32(out, v.data());
}

// Whether every operand has elements (the Cube's products need them; an empty batch still zeroes dw).
bool nonEmpty(const OpCall& call) {
  for (const auto* list : {&call.inputs, &call.outputs})
    for (const TensorArg& t : *list)
      if (t.numel() == 0) return false;
  return true;
}

void computeConv3d(const OpCall& call) {
  const Geom3d g = geomOf(call);
  const Conv3dOp op = opOf(call);
  if (convops::conv3dOnCube() && nonEmpty(call)) {  // Note [3-D convolution on the 2-D Cube path]
    switch (op) {
      case Conv3dOp::kForward: return convops::conv3dForwardOnCube(call, g);
      case Conv3dOp::kBackpropInput: return convops::conv3dBackpropInputOnCube(call, g);
      case Conv3dOp::kBackpropFilter: return convops::conv3dBackpropFilterOnCube(call, g);
    }
  }
  // The reference loops: hosts whose Cube cannot read in place, and empty operands.
  const CubeRounding rnd = cubeRoundingOf(call);
  bool overflow = false;
  const int64_t kv = g.kvol(), iv = g.invol(), ov = g.outvol();
  const int64_t oh_ow = g.out[1] * g.out[2], kh_kw = g.k[1] * g.k[2];
  // Calls fn(x position or -1, tap) for the taps of output position o, in tap order.
  auto forTaps = [&](int64_t o, auto fn) {
    const int64_t od = o / oh_ow, oh = (o / g.out[2]) % g.out[1], ow = o % g.out[2];
    for (int64_t a = 0; a < g.k[0]; ++a) {
      const int64_t pd = tapPos(g, 0, od, a);
      for (int64_t i = 0; i < g.k[1]; ++i) {
        const int64_t ph = tapPos(g, 1, oh, i);
        for (int64_t j = 0; j < g.k[2]; ++j) {
          const int64_t pw = tapPos(g, 2, ow, j);
          const bool inside = pd >= 0 && ph >= 0 && pw >= 0;
          fn(inside ? (pd * g.in[1] + ph) * g.in[2] + pw : -1, a * kh_kw + i * g.k[2] + j);
        }
      }
    }
  };
  if (op == Conv3dOp::kForward) {
    const std::vector<float> x = loadOperand(call.inputs[0], g.n * g.ci * iv, rnd, &overflow),
                             w = loadOperand(call.inputs[1], g.co * g.cig * kv, rnd, &overflow);
    std::vector<float> bias;
    if (g.has_bias) bias = loadOperand(call.inputs[2], g.co, CubeRounding::kNone, &overflow);
    std::vector<float> y(static_cast<size_t>(g.n * g.co * ov));
    parallelFor(g.n * g.co, [&](int64_t t) {
      const int64_t n = t / g.co, co = t % g.co, grp = co / g.cog;
      for (int64_t o = 0; o < ov; ++o) {
        float acc = 0.0f;
        for (int64_t c = 0; c < g.cig; ++c) {
          const float* xp = &x[static_cast<size_t>((n * g.ci + grp * g.cig + c) * iv)];
          const float* wp = &w[static_cast<size_t>((co * g.cig + c) * kv)];
          forTaps(o, [&](int64_t pos, int64_t tap) { acc = std::fma(pos >= 0 ? xp[pos] : 0.0f, wp[tap], acc); });
        }
        if (g.has_bias) acc += bias[static_cast<size_t>(co)];
        y[static_cast<size_t>(t * ov + o)] = acc;
      }
    });
    storeResult(call, call.outputs[0], y, &overflow);
  } else if (op == Conv3dOp::kBackpropInput) {
    const std::vector<float> w = loadOperand(call.inputs[0], g.co * g.cig * kv, rnd, &overflow),
                             dy = loadOperand(call.inputs[1], g.n * g.co * ov, rnd, &overflow);
    // dx[n, ci, pos] = Σ over (co, tap) ascending of A·w[co, ci, tap], A = dy[n, co, o] when tap puts
    // output o on pos, else 0 (a product too, as the Cube's img2col of the dilated dy). Per dim:
    // the output coordinate whose tap t lands on input coordinate p, or -1.
    std::vector<int64_t> feed[3];
    for (int d = 0; d < 3; ++d) {
      feed[d].assign(static_cast<size_t>(g.in[d] * g.k[d]), -1);
      for (int64_t o = 0; o < g.out[d]; ++o)
        for (int64_t t = 0; t < g.k[d]; ++t) {
          const int64_t p = tapPos(g, d, o, t);
          if (p >= 0) feed[d][static_cast<size_t>(p * g.k[d] + t)] = o;
        }
    }
    std::vector<float> dx(static_cast<size_t>(g.n * g.ci * iv));
    parallelFor(g.n * g.ci, [&](int64_t t) {
      const int64_t n = t / g.ci, ci = t % g.ci, grp = ci / g.cig, c = ci % g.cig;
      for (int64_t pos = 0; pos < iv; ++pos) {
        const int64_t pd = pos / (g.in[1] * g.in[2]), ph = (pos / g.in[2]) % g.in[1], pw = pos % g.in[2];
        float acc = 0.0f;
        for (int64_t col = 0; col < g.cog; ++col) {
          const int64_t co = grp * g.cog + col;
          const float* dyp = &dy[static_cast<size_t>((n * g.co + co) * ov)];
          const float* wp = &w[static_cast<size_t>((co * g.cig + c) * kv)];
          for (int64_t a = 0; a < g.k[0]; ++a) {
            const int64_t od = feed[0][static_cast<size_t>(pd * g.k[0] + a)];
            for (int64_t i = 0; i < g.k[1]; ++i) {
              const int64_t oh = feed[1][static_cast<size_t>(ph * g.k[1] + i)];
              for (int64_t j = 0; j < g.k[2]; ++j) {
                const int64_t ow = feed[2][static_cast<size_t>(pw * g.k[2] + j)];
                const float v = od >= 0 && oh >= 0 && ow >= 0 ? dyp[od * oh_ow + oh * g.out[2] + ow] : 0.0f;
                acc = std::fma(v, wp[a * kh_kw + i * g.k[2] + j], acc);
              }
            }
          }
        }
        dx[static_cast<size_t>(t * iv + pos)] = acc;
      }
    });
    storeResult(call, call.outputs[0], dx, &overflow);
  } else {
    const std::vector<float> x = loadOperand(call.inputs[0], g.n * g.ci * iv, rnd, &overflow),
                             dy = loadOperand(call.inputs[1], g.n * g.co * ov, rnd, &overflow);
    std::vector<float> dw(static_cast<size_t>(g.co * g.cig * kv));
    parallelFor(g.co * g.cig, [&](int64_t t) {
      const int64_t co = t / g.cig, c = t % g.cig, grp = co / g.cog;
      std::vector<float> acc(static_cast<size_t>(kv), 0.0f);
      for (int64_t n = 0; n < g.n; ++n) {
        const float* xp = &x[static_cast<size_t>((n * g.ci + grp * g.cig + c) * iv)];
        const float* dyp = &dy[static_cast<size_t>((n * g.co + co) * ov)];
        for (int64_t o = 0; o < ov; ++o)
          forTaps(o, [&](int64_t pos, int64_t tap) {
            acc[static_cast<size_t>(tap)] = std::fma(dyp[o], pos >= 0 ? xp[pos] : 0.0f, acc[static_cast<size_t>(tap)]);
          });
      }
      std::copy(acc.begin(), acc.end(), dw.begin() + t * kv);
    });
    storeResult(call, call.outputs[0], dw, &overflow);
  }
  if (overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costConv3d(const OpCall& call) {
  const Geom3d g = geomOf(call);
  int64_t m = 0, k = 0, n = 0;  // per-group matmul dims on the Cube
  switch (opOf(call)) {
    case Conv3dOp::kForward: m = g.n * g.outvol(), k = g.cig * g.kvol(), n = g.cog; break;
    case Conv3dOp::kBackpropInput: m = g.n * g.invol(), k = g.cog * g.kvol(), n = g.cig; break;
    case Conv3dOp::kBackpropFilter: m = g.cog, k = g.n * g.outvol(), n = g.cig * g.kvol(); break;
  }
  KernelCost c;
  c.core = CoreType::kCube;
  if (m > 0 && n > 0) c.cube_macs = static_cast<double>(g.groups) * cubeUnit().padded_macs(m, n, k);
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.flops =
      2.0 * static_cast<double>(g.n * g.co) * static_cast<double>(g.outvol()) * static_cast<double>(g.cig * g.kvol());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv3D", &validateConv3d, &computeConv3d, &costConv3d});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv3DBackpropInput", &validateConv3d, &computeConv3d, &costConv3d});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Conv3DBackpropFilter", &validateConv3d, &computeConv3d, &costConv3d});

}  // namespace
}  // namespace ascend_sim
