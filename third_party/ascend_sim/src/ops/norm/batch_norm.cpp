// Batch normalization (OPS.md "Batch normalization"): BNTrainingReduce,
// BNTrainingUpdate, BNInfer, BNTrainingUpdateGrad, BNTrainingReduceGrad, and
// the 5-D BN3DTrainingReduce, BN3DTrainingUpdate, BN3DTrainingUpdateGrad,
// BN3DTrainingReduceGrad (Note [Batch norm of 5-D activations]).
//
// Note [Batch norm layouts]
// Activations (x, y, dy, dx) are NCHW/ND (rank 2..4, read as [N, C, H, W]
// with missing trailing dims 1) or NC1HWC0 with a 4-D origin shape; each
// operand's own descriptor says which. In both layouts the H*W elements of
// one (n, c) plane are equally spaced (stride 1 in NCHW, 16 in NC1HWC0), so
// every kernel walks (n, c) planes: plane(n, c) starts at
// dim_offsets[0][n] + dim_offsets[1][c] of the operand's StorageMap. [C]
// tensors are ND [C] (or [1,C,1,1]) or NC1HWC0 with origin [C] / [1,C,1,1]
// (lifted: docs/formats.md) and are read/written through their logical
// elements. Outputs in NC1HWC0 get zero pads, as TransData writes them.
//
// Note [Batch norm of 5-D activations]
// The BN3D* ops (BatchNorm3d) take [N,C,D,H,W] activations, NCDHW or
// NDC1HWC0, any mix. Batch norm works per channel over every other dim, so a
// 5-D activation is walked as [N*D, C, H, W]: plane (n*D + d, c) holds the H*W
// elements of (n, c, d), equally spaced in both layouts (NCDHW: stride 1;
// NDC1HWC0: C0 — its (n, d) blocks [C1][H][W][C0] are NC1HWC0's sample
// blocks, so the C0-lane kernels take them too). A channel's elements are
// then visited in (n, d, h, w) order, NCDHW's row-major order, so the results
// are bit-identical to the 4-D ops on the NCHW view [N, C, D*H, W]. The 4-D
// ops refuse 5-D activations and the BN3D* ops everything else, as CANN's do.
//
// Note [Batch norm numerics]
// All statistics are fp32 (also for fp16/bf16 x); every per-channel sum runs
// over the channel's M = N*H*W elements in (n, h, w) row-major order with the
// reduction rule of Note [Pairwise blocks] (block = 256 bytes of the input
// dtype: 64 fp32 / 128 fp16 elements), i.e. bit-identical to ReduceSum over
// axes {0, 2, 3} of the NCHW tensor, whatever the layout. Formulas, fp32, in
// this evaluation order:
//   Reduce:      sum = Σ x,  square_sum = Σ (x*x)
//   Update:      mean = sum / M;  var = max(square_sum / M - mean*mean, 0) (the clamp
//                only removes negative rounding residue);  invstd = 1 / sqrt(var + eps);
//                y = ((x - mean) * invstd) * scale + offset;
//                running_mean' = (1 - factor) * running_mean + factor * mean;
//                running_var'  = (1 - factor) * running_var + factor * (var * M / (M - 1))
//                (M = 1: 0/0 = NaN as PyTorch's unbiased estimate).
//   Infer:       y = (x - mean) / sqrt(variance + eps) * scale + offset
//   UpdateGrad:  diff_offset = Σ dy;  diff_scale = (Σ dy * (x - mean)) * invstd
//   ReduceGrad:  dx = (scale * invstd) * (dy - diff_offset / M - (x - mean) * (invstd * diff_scale / M))
// Each output is rounded once to its dtype. Aliasing: every [C] input is read
// completely before any output is written, so BNTrainingUpdate's running-stat
// outputs may share the buffers of its running-stat inputs (PyTorch updates
// running_mean/var in place); y may alias x (each element is read before it
// is written, by the same task).
// Work split: on the chip, channels are divided into min(C, vector cores)
// contiguous ranges, one per core (the cost model's view). On the host, tasks
// take groups of 16 channels (Note [Batch norm by channel groups]), or, when
// the activations are fp32/fp16 NC1HWC0, C1 blocks on their C0 lanes (Note
// [Batch norm on C0 lanes] in batch_norm_lanes.h). Every
// channel is computed by one task in a fixed order, so results depend on
// neither split nor on the host thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "ops/norm/batch_norm_lanes.h"
#include "ops/norm/batch_norm_math.h"
#include "kernel/op_utils.h"
#include "ops/reduce/reduce_util.h"

namespace ascend_sim {
namespace {

constexpr DtypeMask kBnActTypes = kFloatTypes;
constexpr DtypeMask kBnStatTypes = dtBit(ACL_FLOAT);

// An activation operand seen as [N, C, H, W] (Note [Batch norm layouts]).
struct Act {
  int64_t n = 1, c = 1, h = 1, w = 1;
  std::vector<int64_t> n_off, c_off;  // plane(n, c) = n_off[n] + c_off[c]
  int64_t stride = 1;                 // between the H*W elements of a plane
  StorageMap map;                     // private formats only (pads)
  bool priv = false;
  int64_t hw() const { return h * w; }
  int64_t m() const { return n * h * w; }
  int64_t plane(int64_t i, int64_t ch) const { return n_off[static_cast<size_t>(i)] + c_off[static_cast<size_t>(ch)]; }
  Shape nchw() const { return {n, c, h, w}; }
};

bool isBn3d(const OpCall& call) { return call.op_type.rfind("BN3D", 0) == 0; }

// A 5-D activation seen as [N*D, C, H, W] (Note [Batch norm of 5-D activations]).
Act act5dOf(const OpCall& call, const TensorArg& t, const std::string& who) {
  Act a;
  Shape s = t.shape;
  std::vector<int64_t> n_off, c_off, d_off;  // per n, c, d of [N,C,D,H,W]
  if (t.format == ACL_FORMAT_NDC1HWC0) {
    a.map = storageMapOf(call, t, who);
    s = a.map.logical;
    if (s.size() != 5)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           who + " in NDC1HWC0 must have a 5-D origin shape [N,C,D,H,W], got " + shapeToString(t.origin_shape));
    a.priv = true;
    a.stride = formatC0(ACL_FORMAT_NDC1HWC0, t.dtype);
    n_off = a.map.dim_offsets[0], c_off = a.map.dim_offsets[1], d_off = a.map.dim_offsets[2];
  } else {
    if (t.format != ACL_FORMAT_ND && t.format != ACL_FORMAT_NCDHW)
      fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
           who + " has format " + formatToString(t.format) + "; " + call.op_type +
               " activations must be NCDHW, ND or NDC1HWC0");
    if (s.size() != 5)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " shape " + shapeToString(s) + " must be 5-D [N,C,D,H,W]");
    for (int64_t d : s)
      if (d < 0) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " has a negative dim: " + shapeToString(s));
    const int64_t dhw = s[2] * s[3] * s[4];
    for (int64_t i = 0; i < s[0]; ++i) n_off.push_back(i * s[1] * dhw);
    for (int64_t i = 0; i < s[1]; ++i) c_off.push_back(i * dhw);
    for (int64_t i = 0; i < s[2]; ++i) d_off.push_back(i * s[3] * s[4]);
  }
  a.n = s[0] * s[2], a.c = s[1], a.h = s[3], a.w = s[4];
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t d = 0; d < s[2]; ++d) a.n_off.push_back(n_off[static_cast<size_t>(i)] + d_off[static_cast<size_t>(d)]);
  a.c_off = c_off;
  return a;
}

Act actOf(const OpCall& call, const TensorArg& t, const std::string& who) {
  if (isBn3d(call)) return act5dOf(call, t, who);
  Act a;
  if (t.format == ACL_FORMAT_NC1HWC0) {
    a.map = storageMapOf(call, t, who);
    if (a.map.logical.size() != 4)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           who + " in NC1HWC0 must have a 4-D origin shape [N,C,H,W], got " + shapeToString(t.origin_shape));
    a.priv = true;
    a.n = a.map.logical[0];
    a.c = a.map.logical[1];
    a.h = a.map.logical[2];
    a.w = a.map.logical[3];
    a.n_off = a.map.dim_offsets[0];
    a.c_off = a.map.dim_offsets[1];
    a.stride = formatC0(ACL_FORMAT_NC1HWC0, t.dtype);
    return a;
  }
  if (t.format != ACL_FORMAT_ND && t.format != ACL_FORMAT_NCHW)
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
         who + " has format " + formatToString(t.format) + "; batch norm activations must be NCHW, ND or NC1HWC0" +
             (t.format == ACL_FORMAT_NDC1HWC0 ? " (5-D activations take the BN3D* ops)" : ""));
  if (t.shape.size() < 2 || t.shape.size() > 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         who + " shape " + shapeToString(t.shape) + " must be [N,C], [N,C,L] or [N,C,H,W]" +
             (t.shape.size() == 5 ? " (5-D activations take the BN3D* ops)" : ""));
  for (int64_t d : t.shape)
    if (d < 0) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " has a negative dim: " + shapeToString(t.shape));
  a.n = t.shape[0];
  a.c = t.shape[1];
  a.h = t.shape.size() > 2 ? t.shape[2] : 1;
  a.w = t.shape.size() > 3 ? t.shape[3] : 1;
  a.n_off.resize(static_cast<size_t>(a.n));
  a.c_off.resize(static_cast<size_t>(a.c));
  for (int64_t i = 0; i < a.n; ++i) a.n_off[static_cast<size_t>(i)] = i * a.c * a.hw();
  for (int64_t i = 0; i < a.c; ++i) a.c_off[static_cast<size_t>(i)] = i * a.hw();
  return a;
}

// Checks a [C] tensor: ND/NCHW [C] or [1,C,1,1], or NC1HWC0 with such an origin shape.
void checkParam(const OpCall& call, const TensorArg& t, const std::string& who, int64_t c) {
  checkDtype(call, t, who, kBnStatTypes);
  Shape logical = t.shape;
  if (t.format == ACL_FORMAT_NC1HWC0) {
    logical = storageMapOf(call, t, who).logical;
  } else if (t.format != ACL_FORMAT_ND && t.format != ACL_FORMAT_NCHW) {
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
         who + " has format " + formatToString(t.format) + "; [C] tensors must be ND, NCHW or NC1HWC0");
  }
  const bool ok = (logical.size() == 1 && logical[0] == c) ||
                  (logical.size() == 4 && logical[0] == 1 && logical[1] == c && logical[2] == 1 && logical[3] == 1);
  if (!ok)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         who + " shape " + shapeToString(logical) + " must be [" + std::to_string(c) + "] (or [1," +
             std::to_string(c) + ",1,1]) to match the " + std::to_string(c) + " channels of x");
}

std::vector<float> loadParam(const OpCall& call, const TensorArg& t, const std::string& who) {
  if (t.format == ACL_FORMAT_NC1HWC0) {
    const StorageMap m = storageMapOf(call, t, who);
    std::vector<float> v(static_cast<size_t>(m.logicalNumel()));
    loadLogicalFloat(t, m, v.data());
    return v;
  }
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void storeParam(const OpCall& call, const TensorArg& t, const std::string& who, const std::vector<float>& v) {
  if (t.format == ACL_FORMAT_NC1HWC0) {
    storeLogicalFloat(t, storageMapOf(call, t, who), v.data());
    return;
  }
  storeFloat(t.dtype, t.data, 0, static_cast<int64_t>(v.size()), v.data());
}

// Stores n fp32 values to base[off + i * stride] rounding once to dt.
void storeStrided(aclDataType dt, void* base, int64_t off, int64_t stride, int64_t n, const float* src) {
  if (stride == 1) return storeFloat(dt, base, off, n, src);
  if (dt == ACL_FLOAT) {
    float* p = static_cast<float*>(base) + off;
    for (int64_t i = 0; i < n; ++i) p[i * stride] = src[i];
  } else if (dt == ACL_FLOAT16) {
    uint16_t* p = static_cast<uint16_t*>(base) + off;
    for (int64_t i = 0; i < n; ++i) p[i * stride] = floatToHalf(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) storeFloat(dt, base, off + i * stride, 1, src + i);
  }
}

// Loads plane (i, ch) of an activation into dst (h*w fp32 values).
void loadPlane(const TensorArg& t, const Act& a, int64_t i, int64_t ch, float* dst) {
  loadFloat(t.dtype, t.data, a.plane(i, ch), a.stride, a.hw(), dst);
}
int64_t channelBlocks(int64_t c, int cores) { return std::max<int64_t>(1, std::min<int64_t>(c, std::max(cores, 1))); }

// Note [Batch norm by channel groups]
// In NC1HWC0 one plane's values are 16 floats apart, so the 16 channels of an (n, C1) block share
// every cache line. Walked channel by channel over all samples (an activation of several MB), each
// line came from memory or the last-level cache 16 times. Host tasks therefore take 16 channels
// (one C1 block) and walk them plane by plane: sample n's block of the group stays in the core's
// own cache while its 16 channels are read; an fp32 block moves by 16x16 register transposes
// (nc1hwc0BlockPlanes), one plane of 16 channels at a time. Reductions load each channel's planes
// into its own buffer and sum it as before; the values and their order do not change.
constexpr int64_t kChannelGroup = 16;

// Whether channels [lo, hi) of sample i are one C1 block of fp32 NC1HWC0 storage, movable by
// transposes (nc1hwc0BlockPlanes); the group then starts at a.plane(i, lo).
bool wholeBlock(const TensorArg& t, const Act& a, int64_t lo, int64_t hi) {
  return a.priv && t.dtype == ACL_FLOAT && a.stride == kChannelGroup && lo % kChannelGroup == 0 &&
         hi - lo <= kChannelGroup;
}

// Loads planes (i, lo) ... (i, hi - 1) of an activation, plane ch at dst + (ch - lo) * stride.
void loadGroup(const TensorArg& t, const Act& a, int64_t i, int64_t lo, int64_t hi, float* dst, int64_t stride) {
  if (wholeBlock(t, a, lo, hi) &&
      nc1hwc0BlockPlanes(static_cast<float*>(t.data) + a.plane(i, lo), a.hw(), hi - lo, dst, stride, true))
    return;
  for (int64_t ch = lo; ch < hi; ++ch) loadPlane(t, a, i, ch, dst + (ch - lo) * stride);
}
// Stores planes (i, lo) ... (i, hi - 1), plane ch from src + (ch - lo) * a.hw(), each value rounded
// once to t's dtype (pad channels of NC1HWC0 become zeros, as zeroActPads makes them anyway).
void storeGroup(const TensorArg& t, const Act& a, int64_t i, int64_t lo, int64_t hi, float* src) {
  if (wholeBlock(t, a, lo, hi) &&
      nc1hwc0BlockPlanes(static_cast<float*>(t.data) + a.plane(i, lo), a.hw(), hi - lo, src, a.hw(), false))
    return;
  for (int64_t ch = lo; ch < hi; ++ch)
    storeStrided(t.dtype, t.data, a.plane(i, ch), a.stride, a.hw(), src + (ch - lo) * a.hw());
}

// Loads all M values of each channel of [lo, hi) in (n, h, w) order, channel ch at
// dst + (ch - lo) * M, sample by sample (Note [Batch norm by channel groups]).
void loadChannels(const TensorArg& t, const Act& a, int64_t lo, int64_t hi, float* dst) {
  for (int64_t i = 0; i < a.n; ++i) loadGroup(t, a, i, lo, hi, dst + i * a.hw(), a.m());
}

// Runs fn(lo, hi) for groups of kChannelGroup channels [lo, hi), in parallel.
template <typename Fn>
void forChannelGroups(int64_t c, Fn fn) {
  parallelFor((c + kChannelGroup - 1) / kChannelGroup, [&](int64_t g) {
    fn(g * kChannelGroup, std::min(c, (g + 1) * kChannelGroup));
  });
}

void zeroActPads(const TensorArg& t, const Act& a) {
  if (a.priv) zeroPads(t, a.map);
}

void checkActDtype(const OpCall& call, const TensorArg& t, const std::string& who) { checkDtype(call, t, who, kBnActTypes); }

void checkSameAct(const OpCall& call, const Act& ref, const Act& a, const std::string& refname, const std::string& who) {
  if (a.nchw() != ref.nchw())
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         who + " shape (as NCHW) " + shapeToString(a.nchw()) + " does not match " + refname + " shape " +
             shapeToString(ref.nchw()));
}

void checkCounts(const OpCall& call, size_t num_in, size_t num_out) {
  if (call.inputs.size() != num_in)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + std::to_string(num_in) + " inputs, got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != num_out)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected " + std::to_string(num_out) + " outputs, got " + std::to_string(call.outputs.size()));
}

// Any epsilon is accepted, as by PyTorch: var + epsilon < 0 gives NaN.
float epsilonOf(const OpCall& call) { return attrFloat(call, "epsilon", 1e-5f); }

// Cost: every operand's storage bytes once (vectorCost) plus `passes` extra
// fp32 Vector passes over the activation; the split is per channel.
KernelCost bnCost(const OpCall& call, const Act& x, double passes, double flops_per_elem) {
  KernelCost c = vectorCost(call);
  const double elems = static_cast<double>(x.m() * x.c);
  const double extra = passes * vectorUnit().repeats(x.m() * x.c, ACL_FLOAT);
  c.vector_repeats += extra;
  c.vector_bytes += extra * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.flops = flops_per_elem * elems;
  c.block_dim = static_cast<uint32_t>(channelBlocks(x.c, call.ctx.vector_cores));
  return c;
}

const std::vector<std::string>& names(const OpCall& call, bool input) {
  static const std::vector<std::string> reduce_in = {"x"}, reduce_out = {"sum", "square_sum"};
  static const std::vector<std::string> upd_in = {"x", "sum", "square_sum", "scale", "offset", "running_mean",
                                                  "running_var"};
  static const std::vector<std::string> upd_out = {"y", "running_mean_out", "running_var_out", "save_mean",
                                                   "save_invstd"};
  static const std::vector<std::string> inf_in = {"x", "scale", "offset", "mean", "variance"}, inf_out = {"y"};
  static const std::vector<std::string> ugrad_in = {"dy", "x", "save_mean", "save_invstd"};
  static const std::vector<std::string> ugrad_out = {"diff_scale", "diff_offset"};
  static const std::vector<std::string> rgrad_in = {"dy", "x", "diff_scale", "diff_offset", "scale", "save_mean",
                                                    "save_invstd"};
  static const std::vector<std::string> rgrad_out = {"dx"};
  const std::string op = isBn3d(call) ? "BN" + call.op_type.substr(4) : call.op_type;  // BN3DX: BNX's operands
  if (op == "BNTrainingReduce") return input ? reduce_in : reduce_out;
  if (op == "BNTrainingUpdate") return input ? upd_in : upd_out;
  if (op == "BNInfer") return input ? inf_in : inf_out;
  if (op == "BNTrainingUpdateGrad") return input ? ugrad_in : ugrad_out;
  return input ? rgrad_in : rgrad_out;
}

std::string inName(const OpCall& call, size_t i) { return "input " + names(call, true)[i]; }
std::string outName(const OpCall& call, size_t i) { return "output " + names(call, false)[i]; }

// Generic validation: counts, activations (indices in `acts_in` / `acts_out`,
// all the same NCHW shape and dtype), every other operand a [C] fp32 tensor.
Act validateBn(const OpCall& call, std::initializer_list<size_t> acts_in, std::initializer_list<size_t> acts_out) {
  const size_t nin = names(call, true).size(), nout = names(call, false).size();
  checkCounts(call, nin, nout);
  const size_t ref_i = *acts_in.begin();
  const TensorArg& xt = call.inputs[ref_i];
  checkActDtype(call, xt, inName(call, ref_i));
  const Act x = actOf(call, xt, inName(call, ref_i));
  std::vector<bool> is_act_in(nin, false), is_act_out(nout, false);
  for (size_t i : acts_in) {
    is_act_in[i] = true;
    if (i == ref_i) continue;
    checkSameDtype(call, xt, names(call, true)[ref_i], call.inputs[i], inName(call, i));
    checkSameAct(call, x, actOf(call, call.inputs[i], inName(call, i)), names(call, true)[ref_i], inName(call, i));
  }
  for (size_t i : acts_out) {
    is_act_out[i] = true;
    checkSameDtype(call, xt, names(call, true)[ref_i], call.outputs[i], outName(call, i));
    checkSameAct(call, x, actOf(call, call.outputs[i], outName(call, i)), names(call, true)[ref_i], outName(call, i));
  }
  for (size_t i = 0; i < nin; ++i)
    if (!is_act_in[i]) checkParam(call, call.inputs[i], inName(call, i), x.c);
  for (size_t i = 0; i < nout; ++i)
    if (!is_act_out[i]) checkParam(call, call.outputs[i], outName(call, i), x.c);
  return x;
}

// Note [Batch norm on C0 lanes]: whether every activation operand sits on C0 lanes.
bool onLanes(const Act& x, std::initializer_list<const TensorArg*> acts) {
  for (const TensorArg* t : acts)
    if (!isNc1hwc0Of16(*t, x.n, x.c, x.h, x.w) && !isNdc1hwc0Of16(*t, x.n, x.c, x.h, x.w)) return false;
  return true;
}
bnlanes::Geometry lanesOf(const Act& x) { return {x.n, x.c, x.hw()}; }

// y = fn(x, p[0][c], p[1][c], p[2][c], p[3][c]) per element of channel c, walking channel groups
// plane by plane (y may alias x); pads of a private y are zeroed after.
template <typename Fn>
void mapPlanesWithParams(const TensorArg& xt, const Act& x, const TensorArg& yt, const Act& y,
                         const std::array<const float*, 4>& p, Fn fn) {
  forChannelGroups(x.c, [&](int64_t lo, int64_t hi) {
    const int64_t hw = x.hw();
    std::vector<float> v(static_cast<size_t>((hi - lo) * hw));
    for (int64_t i = 0; i < x.n; ++i) {
      loadGroup(xt, x, i, lo, hi, v.data(), hw);
      for (int64_t ch = lo; ch < hi; ++ch) {
        const float p0 = p[0][ch], p1 = p[1][ch], p2 = p[2][ch], p3 = p[3][ch];
        float* e = v.data() + (ch - lo) * hw;
        for (int64_t j = 0; j < hw; ++j) e[j] = fn(e[j], p0, p1, p2, p3);
      }
      storeGroup(yt, y, i, lo, hi, v.data());
    }
  });
  zeroActPads(yt, y);
}

// ---- BNTrainingReduce: x -> sum, square_sum ----------------------------------------------

void validateReduce(const OpCall& call) { validateBn(call, {0}, {}); }

void computeReduce(const OpCall& call) {
  const TensorArg& xt = call.inputs[0];
  const Act x = actOf(call, xt, "input x");
  const int64_t block = reduceBlockElems(xt.dtype);
  std::vector<float> sum(static_cast<size_t>(x.c)), sq(static_cast<size_t>(x.c));
  if (onLanes(x, {&xt})) {
    bnlanes::reduce(xt, lanesOf(x), block, sum.data(), sq.data());
  } else {
    forChannelGroups(x.c, [&](int64_t lo, int64_t hi) {
      std::vector<float> vs(static_cast<size_t>((hi - lo) * x.m())), v2(static_cast<size_t>(x.m()));
      loadChannels(xt, x, lo, hi, vs.data());
      for (int64_t ch = lo; ch < hi; ++ch) {
        float* v = vs.data() + (ch - lo) * x.m();  // pairwiseSum reduces in place
        for (size_t i = 0; i < v2.size(); ++i) v2[i] = v[i] * v[i];
        sum[static_cast<size_t>(ch)] = pairwiseSum(v, x.m(), block);
        sq[static_cast<size_t>(ch)] = pairwiseSum(v2.data(), x.m(), block);
      }
    });
  }
  storeParam(call, call.outputs[0], "output sum", sum);
  storeParam(call, call.outputs[1], "output square_sum", sq);
}

KernelCost costReduce(const OpCall& call) {
  return bnCost(call, actOf(call, call.inputs[0], "input x"), 3, 3);
}

// ---- BNTrainingUpdate ----------------------------------------------------------------------

void validateUpdate(const OpCall& call) {
  validateBn(call, {0}, {0});
  epsilonOf(call);
  attrFloat(call, "factor");  // any momentum, as PyTorch: the running-average formula is applied as written
}

void computeUpdate(const OpCall& call) {
  const TensorArg& xt = call.inputs[0];
  const TensorArg& yt = call.outputs[0];
  const Act x = actOf(call, xt, "input x");
  const Act y = actOf(call, yt, "output y");
  const float eps = epsilonOf(call);
  const float factor = attrFloat(call, "factor");
  // Every [C] input is read before any output is written (running stats may alias).
  std::vector<std::vector<float>> in(7);
  for (size_t i = 1; i < 7; ++i) in[i] = loadParam(call, call.inputs[i], inName(call, i));
  const size_t c = static_cast<size_t>(x.c);
  const float m = static_cast<float>(x.m());
  const float m1 = static_cast<float>(x.m() - 1);
  std::vector<float> mean(c), invstd(c), rmean(c), rvar(c);
  for (size_t ch = 0; ch < c; ++ch) {
    mean[ch] = in[1][ch] / m;
    const float var = std::max(in[2][ch] / m - mean[ch] * mean[ch], 0.0f);
    invstd[ch] = 1.0f / std::sqrt(var + eps);
    rmean[ch] = (1.0f - factor) * in[5][ch] + factor * mean[ch];
    rvar[ch] = (1.0f - factor) * in[6][ch] + factor * (var * m / m1);
  }
  const std::vector<float>& scale = in[3];
  const std::vector<float>& offset = in[4];
  if (onLanes(x, {&xt, &yt})) {
    bnlanes::update(xt, yt, lanesOf(x), mean.data(), invstd.data(), scale.data(), offset.data());
  } else {
    mapPlanesWithParams(xt, x, yt, y, {mean.data(), invstd.data(), scale.data(), offset.data()},
                        [](float v, float mu, float is, float sc, float of) {
                          return bnmath::normalized(v, mu, is, sc, of);
                        });
  }
  storeParam(call, call.outputs[1], outName(call, 1), rmean);
  storeParam(call, call.outputs[2], outName(call, 2), rvar);
  storeParam(call, call.outputs[3], outName(call, 3), mean);
  storeParam(call, call.outputs[4], outName(call, 4), invstd);
}

KernelCost costUpdate(const OpCall& call) {
  return bnCost(call, actOf(call, call.inputs[0], "input x"), 2, 4);
}

// ---- BNInfer -------------------------------------------------------------------------------

void validateInfer(const OpCall& call) {
  validateBn(call, {0}, {0});
  epsilonOf(call);
}

void computeInfer(const OpCall& call) {
  const TensorArg& xt = call.inputs[0];
  const TensorArg& yt = call.outputs[0];
  const Act x = actOf(call, xt, "input x");
  const Act y = actOf(call, yt, "output y");
  const float eps = epsilonOf(call);
  std::vector<std::vector<float>> in(5);
  for (size_t i = 1; i < 5; ++i) in[i] = loadParam(call, call.inputs[i], inName(call, i));
  std::vector<float> den(static_cast<size_t>(x.c));  // sqrt(variance + eps) per channel
  for (size_t ch = 0; ch < den.size(); ++ch) den[ch] = std::sqrt(in[4][ch] + eps);
  if (onLanes(x, {&xt, &yt})) {
    bnlanes::infer(xt, yt, lanesOf(x), in[3].data(), den.data(), in[1].data(), in[2].data());
  } else {
    mapPlanesWithParams(xt, x, yt, y, {in[3].data(), den.data(), in[1].data(), in[2].data()},
                        [](float v, float mu, float dn, float sc, float of) {
                          return bnmath::inferred(v, mu, dn, sc, of);
                        });
  }
}

KernelCost costInfer(const OpCall& call) {
  return bnCost(call, actOf(call, call.inputs[0], "input x"), 1, 4);
}

// ---- BNTrainingUpdateGrad: dy, x, save_mean, save_invstd -> diff_scale, diff_offset --------

void validateUpdateGrad(const OpCall& call) { validateBn(call, {0, 1}, {}); }

void computeUpdateGrad(const OpCall& call) {
  const TensorArg& dyt = call.inputs[0];
  const TensorArg& xt = call.inputs[1];
  const Act dy = actOf(call, dyt, "input dy");
  const Act x = actOf(call, xt, "input x");
  const std::vector<float> mean = loadParam(call, call.inputs[2], inName(call, 2));
  const std::vector<float> invstd = loadParam(call, call.inputs[3], inName(call, 3));
  const int64_t block = reduceBlockElems(dyt.dtype);
  std::vector<float> dscale(static_cast<size_t>(x.c)), doffset(static_cast<size_t>(x.c));
  if (onLanes(x, {&dyt, &xt})) {
    bnlanes::updateGrad(dyt, xt, lanesOf(x), block, mean.data(), invstd.data(), dscale.data(), doffset.data());
  } else {
    forChannelGroups(x.c, [&](int64_t lo, int64_t hi) {
      std::vector<float> gs(static_cast<size_t>((hi - lo) * x.m())), xs(gs.size());
      loadChannels(dyt, dy, lo, hi, gs.data());
      loadChannels(xt, x, lo, hi, xs.data());
      for (int64_t ch = lo; ch < hi; ++ch) {
        float* g = gs.data() + (ch - lo) * x.m();  // pairwiseSum reduces in place
        float* xv = xs.data() + (ch - lo) * x.m();
        const float mu = mean[ch];
        for (int64_t i = 0; i < x.m(); ++i) xv[i] = bnmath::centredGrad(g[i], xv[i], mu);
        doffset[static_cast<size_t>(ch)] = pairwiseSum(g, x.m(), block);
        dscale[static_cast<size_t>(ch)] = pairwiseSum(xv, x.m(), block) * invstd[ch];
      }
    });
  }
  storeParam(call, call.outputs[0], outName(call, 0), dscale);
  storeParam(call, call.outputs[1], outName(call, 1), doffset);
}

KernelCost costUpdateGrad(const OpCall& call) {
  return bnCost(call, actOf(call, call.inputs[1], "input x"), 4, 4);
}

// ---- BNTrainingReduceGrad -> dx ------------------------------------------------------------

void validateReduceGrad(const OpCall& call) { validateBn(call, {0, 1}, {0}); }

void computeReduceGrad(const OpCall& call) {
  const TensorArg& dyt = call.inputs[0];
  const TensorArg& xt = call.inputs[1];
  const TensorArg& dxt = call.outputs[0];
  const Act dy = actOf(call, dyt, "input dy");
  const Act x = actOf(call, xt, "input x");
  const Act dx = actOf(call, dxt, "output dx");
  std::vector<std::vector<float>> in(7);
  for (size_t i = 2; i < 7; ++i) in[i] = loadParam(call, call.inputs[i], inName(call, i));
  const float m = static_cast<float>(x.m());
  const size_t c = static_cast<size_t>(x.c);
  std::vector<float> k(c), a(c), b(c);  // the per-channel coefficients of bnmath::inputGrad
  for (size_t ch = 0; ch < c; ++ch) {
    const float dscale = in[2][ch], doffset = in[3][ch], scale = in[4][ch], is = in[6][ch];
    k[ch] = scale * is;
    a[ch] = doffset / m;
    b[ch] = is * dscale / m;
  }
  if (onLanes(x, {&dyt, &xt, &dxt})) {
    bnlanes::reduceGrad(dyt, xt, dxt, lanesOf(x), k.data(), a.data(), in[5].data(), b.data());
    return;
  }
  forChannelGroups(x.c, [&](int64_t lo, int64_t hi) {
    const int64_t hw = x.hw();
    std::vector<float> gs(static_cast<size_t>((hi - lo) * hw)), xs(gs.size());
    for (int64_t i = 0; i < x.n; ++i) {
      loadGroup(dyt, dy, i, lo, hi, gs.data(), hw);
      loadGroup(xt, x, i, lo, hi, xs.data(), hw);
      for (int64_t ch = lo; ch < hi; ++ch) {
        const size_t cs = static_cast<size_t>(ch);
        const float kc = k[cs], ac = a[cs], bc = b[cs], mu = in[5][cs];
        float* g = gs.data() + (ch - lo) * hw;
        const float* xv = xs.data() + (ch - lo) * hw;
        for (int64_t j = 0; j < hw; ++j) g[j] = bnmath::inputGrad(g[j], xv[j], kc, ac, mu, bc);
      }
      storeGroup(dxt, dx, i, lo, hi, gs.data());
    }
  });
  zeroActPads(dxt, dx);
}

KernelCost costReduceGrad(const OpCall& call) {
  return bnCost(call, actOf(call, call.inputs[1], "input x"), 3, 6);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BNTrainingReduce", &validateReduce, &computeReduce, &costReduce});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BNTrainingUpdate", &validateUpdate, &computeUpdate, &costUpdate});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BNInfer", &validateInfer, &computeInfer, &costInfer});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BNTrainingUpdateGrad", &validateUpdateGrad, &computeUpdateGrad,
                                     &costUpdateGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BNTrainingReduceGrad", &validateReduceGrad, &computeReduceGrad,
                                     &costReduceGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BN3DTrainingReduce", &validateReduce, &computeReduce, &costReduce});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BN3DTrainingUpdate", &validateUpdate, &computeUpdate, &costUpdate});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BN3DTrainingUpdateGrad", &validateUpdateGrad, &computeUpdateGrad,
                                     &costUpdateGrad});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BN3DTrainingReduceGrad", &validateReduceGrad, &computeReduceGrad,
                                     &costReduceGrad});

}  // namespace
}  // namespace ascend_sim
