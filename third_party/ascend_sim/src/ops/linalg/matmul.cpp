// MatMul and BatchMatMul (OPS.md "Matrix") on the simulated Cube unit.
//
// Note [MatMul on the Cube]
// Numerics are the Cube unit's (Note [Cube numerics and blocking] in
// aicore/cube.cpp): one fp32 accumulator per output element, ascending K,
// FMA, bias last, one rounding to the output dtype. fp32 operands follow the
// launch's precision mode (LaunchContext::precision): allow_fp32_to_fp16 and
// force_fp16 round them to fp16 first (saturating on a saturation-mode chip);
// force_fp16 also rounds the fp32 result through fp16 before storing it.
// int8 x int8 -> int32 uses the Cube's int8 path (exact int32 accumulation).
// Work split (Note [Simulated cores on host threads]): the output is cut into
// bands of 16 rows per batch; with at least as many bands as cube cores each
// core takes a contiguous range of bands, otherwise every band is cut further
// into column groups of 16-column panels. The split (and so the block dim and
// the padded MAC count of the cost) depends only on the shapes and the chip.
//
// Note [Host split of the Cube's work]
// The host does not run one task per simulated core: the fp32 path cuts the
// output into hostRegionsOf's rectangles instead, whose row counts are
// multiples of the host micro-kernel's 12-row tile. A core's band of 16 rows
// would leave a 4-row remainder for every 12-row tile, run at half the tile's
// throughput (a 32-row range of 1024 rows on 32 cores: 12 + 12 + 8). Every
// output element is still computed by exactly one task with its own FMA chain
// in ascending k, so the bits do not depend on the split, the number of host
// threads or the simulated cores; the cost comes from costMatmul's split.
#include <algorithm>
#include <cmath>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "kernel/op_utils.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace {

constexpr int64_t kTile = 16;  // fractal edge

GmMatrix viewOf(const TensorArg& t, int64_t offset, bool transposed) {
  const int64_t inner = t.shape.back();  // row length of the stored matrix
  return transposed ? GmMatrix{t.dtype, t.data, offset, 1, inner} : GmMatrix{t.dtype, t.data, offset, inner, 1};
}

struct MatmulDims {
  int64_t m, n, k;
  Shape batch;  // broadcast batch shape (empty for MatMul)
  bool ta, tb;
};

bool isBatch(const OpCall& call) { return call.op_type == "BatchMatMul"; }

MatmulDims dimsOf(const OpCall& call) {
  const bool batch = isBatch(call);
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  MatmulDims d;
  d.ta = attrBool(call, batch ? "adj_x1" : "transpose_x1", false);
  d.tb = attrBool(call, batch ? "adj_x2" : "transpose_x2", false);
  const size_t r1 = x1.shape.size(), r2 = x2.shape.size();
  d.m = d.ta ? x1.shape[r1 - 1] : x1.shape[r1 - 2];
  const int64_t k1 = d.ta ? x1.shape[r1 - 2] : x1.shape[r1 - 1];
  d.k = d.tb ? x2.shape[r2 - 1] : x2.shape[r2 - 2];
  d.n = d.tb ? x2.shape[r2 - 2] : x2.shape[r2 - 1];
  if (k1 != d.k)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "inner dimensions differ: x1 " + shapeToString(x1.shape) + (d.ta ? " (transposed)" : "") +
             " has K=" + std::to_string(k1) + " but x2 " + shapeToString(x2.shape) +
             (d.tb ? " (transposed)" : "") + " has K=" + std::to_string(d.k));
  Shape b1(x1.shape.begin(), x1.shape.end() - 2), b2(x2.shape.begin(), x2.shape.end() - 2);
  if (!broadcastShapes(b1, b2, &d.batch))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "batch dims " + shapeToString(b1) + " of x1 and " + shapeToString(b2) + " of x2 do not broadcast");
  return d;
}

bool isInt8(const OpCall& call) { return call.inputs[0].dtype == ACL_INT8; }

void validateMatmul(const OpCall& call) {
  const bool batch = isBatch(call);
  checkArity(call, 2, 3, 1);
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x1, "input x1", kFloatTypes | dtBit(ACL_INT8));
  checkSameDtype(call, x1, "x1", x2, "x2");
  if (isInt8(call)) {
    checkDtype(call, y, "output y (int8 x int8 accumulates in int32)", dtBit(ACL_INT32));
  } else {
    checkDtype(call, y, "output y", kFloatTypes);
  }
  for (const TensorArg* t : {&x1, &x2}) {
    const bool bad = batch ? t->shape.size() < 2 : t->shape.size() != 2;
    if (bad)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(t == &x1 ? "x1" : "x2") + " shape " + shapeToString(t->shape) + " must be " +
               (batch ? "at least 2-D" : "2-D"));
  }
  MatmulDims d = dimsOf(call);
  Shape want = d.batch;
  want.push_back(d.m);
  want.push_back(d.n);
  checkShapeEq(call, y, "output y", want, "the expected shape");
  if (call.inputs.size() == 3) {
    const TensorArg& bias = call.inputs[2];
    checkDtype(call, bias, "input bias", isInt8(call) ? dtBit(ACL_INT32) : kFloatTypes);
    const bool ok = bias.numel() == d.n && (bias.shape.size() == 1 || (bias.shape.size() == 2 && bias.shape[0] == 1));
    if (!ok)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "bias shape " + shapeToString(bias.shape) + " must be [" + std::to_string(d.n) + "] (N)");
  }
}

// The split of the output over simulated cube cores (Note [MatMul on the Cube]).
struct CubeSplit {
  int64_t batches = 0, mt = 0, nt = 0;  // batches, 16-row bands per batch, 16-column panels
  int64_t bands = 0;                    // batches * mt
  int64_t col_groups = 1;               // column groups per band (when bands < cores)
  int64_t blocks = 0;                   // simulated cores used
};

CubeSplit splitOf(const MatmulDims& d, int cores) {
  CubeSplit s;
  s.batches = numelOf(d.batch);
  s.mt = (d.m + kTile - 1) / kTile;
  s.nt = (d.n + kTile - 1) / kTile;
  s.bands = s.batches * s.mt;
  if (s.bands == 0 || s.nt == 0) return s;  // empty output: nothing to run
  cores = std::max(cores, 1);
  if (s.bands >= cores) {
    s.blocks = cores;
  } else {
    s.col_groups = std::min<int64_t>(s.nt, cores / s.bands);
    s.blocks = s.bands * s.col_groups;
  }
  return s;
}

// One rectangle of work: rows [r0, r1) of batch b, panels [p0, p1).
struct Region {
  int64_t b, r0, r1, p0, p1;
};

// The regions of simulated core `block`, in a fixed order.
std::vector<Region> regionsOf(const CubeSplit& s, const MatmulDims& d, int64_t block) {
  std::vector<Region> out;
  auto rows = [&](int64_t band, int64_t* r0, int64_t* r1) {
    const int64_t mi = band % s.mt;
    *r0 = mi * kTile;
    *r1 = std::min(d.m, *r0 + kTile);
  };
  if (s.col_groups == 1 && s.bands >= s.blocks) {
    const int64_t lo = block * s.bands / s.blocks, hi = (block + 1) * s.bands / s.blocks;
    for (int64_t band = lo; band < hi;) {  // merge consecutive bands of one batch
      const int64_t b = band / s.mt;
      const int64_t end = std::min(hi, (b + 1) * s.mt);
      int64_t r0, r1, t0, t1;
      rows(band, &r0, &t0);
      rows(end - 1, &t1, &r1);
      out.push_back(Region{b, r0, r1, 0, s.nt});
      band = end;
    }
  } else {
    const int64_t band = block / s.col_groups, g = block % s.col_groups;
    int64_t r0, r1;
    rows(band, &r0, &r1);
    out.push_back(Region{band / s.mt, r0, r1, g * s.nt / s.col_groups, (g + 1) * s.nt / s.col_groups});
  }
  return out;
}

// Note [Host split of the Cube's work]: rectangles of rows (multiples of 12)
// and, when there are too few rows to keep the host threads busy, groups of
// an even number of panels (the wide tiles take two panels at a time).
std::vector<Region> hostRegionsOf(const MatmulDims& d, int64_t batches, int64_t panels) {
  constexpr int64_t kRowQuantum = 12, kPanelQuantum = 2;
  // Eight per host thread: a 256-row product gets 22 regions, whose imbalance on two threads is
  // small (with four per thread it got 11, and one thread idled 9 % of the time).
  const int64_t want = 8 * static_cast<int64_t>(std::max(hostThreadCount(), 1));
  const int64_t rows = std::max(kRowQuantum, (batches * d.m + want - 1) / want / kRowQuantum * kRowQuantum);
  std::vector<Region> out;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t r0 = 0; r0 < d.m; r0 += rows) out.push_back(Region{b, r0, std::min(d.m, r0 + rows), 0, panels});
  const int64_t pairs = (panels + kPanelQuantum - 1) / kPanelQuantum;
  const int64_t groups = std::min<int64_t>(want / static_cast<int64_t>(out.size()), pairs);
  if (groups <= 1) return out;
  std::vector<Region> split;
  for (const Region& r : out)
    for (int64_t g = 0; g < groups; ++g)
      split.push_back(Region{r.b, r.r0, r.r1, std::min(panels, g * pairs / groups * kPanelQuantum),
                             std::min(panels, (g + 1) * pairs / groups * kPanelQuantum)});
  return split;
}

// Output batch index -> linear index of the (broadcast) x1 / x2 matrix.
struct BatchMap {
  std::vector<int64_t> i1, i2;
  int64_t n1 = 1, n2 = 1;  // distinct matrices of x1 / x2
};

BatchMap batchMapOf(const OpCall& call, const MatmulDims& d) {
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const Shape b1(x1.shape.begin(), x1.shape.end() - 2), b2(x2.shape.begin(), x2.shape.end() - 2);
  const Shape s1 = broadcastStrides(b1, d.batch), s2 = broadcastStrides(b2, d.batch);
  BatchMap m;
  m.n1 = numelOf(b1);
  m.n2 = numelOf(b2);
  const int64_t batches = numelOf(d.batch);
  Shape idx(d.batch.size(), 0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t o1 = 0, o2 = 0;
    for (size_t q = 0; q < idx.size(); ++q) {
      o1 += idx[q] * s1[q];
      o2 += idx[q] * s2[q];
    }
    m.i1.push_back(o1);
    m.i2.push_back(o2);
    for (size_t q = idx.size(); q-- > 0;) {
      if (++idx[q] < d.batch[q]) break;
      idx[q] = 0;
    }
  }
  return m;
}

int64_t matSize(const TensorArg& t) { return t.shape[t.shape.size() - 1] * t.shape[t.shape.size() - 2]; }

void computeFloat(const OpCall& call, const MatmulDims& d, const CubeSplit& s, const BatchMap& bm) {
  const CubeUnit& cube = cubeUnit();
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const CubeRounding rnd = cubeRoundingOf(call);
  std::vector<float> bias;
  if (call.inputs.size() == 3) {
    bias.resize(static_cast<size_t>(d.n));
    loadFloat(call.inputs[2].dtype, call.inputs[2].data, 0, 1, d.n, bias.data());
  }
  // MTE: every distinct operand matrix into L0A / L0B once (in parallel).
  // Buffers: Note [Reused scratch]; load_b zero-fills the panels' padding.
  const int64_t a_size = d.m * d.k, panels = s.nt, b_size = panels * d.k * kTile;
  // A row-major fp32 x1 used as it is (no transpose, no rounding) is already
  // the L0A layout: it is read in place, unless the output overlaps it.
  const bool a_in_place = x1.dtype == ACL_FLOAT && !d.ta && rnd == CubeRounding::kNone && !buffersOverlap(x1, y);
  const float* a_l0 = a_in_place ? static_cast<const float*>(x1.data) : threadScratch(ScratchSlot::kIn0, bm.n1 * a_size);
  float* b_l0 = threadScratch(ScratchSlot::kPanels, bm.n2 * b_size);
  // Each matrix is loaded in slices (128 rows of A, 8 panels of B) so that
  // one operand is spread over the host threads too, even at 256 x 256.
  constexpr int64_t kRowsPerSlice = 128, kPanelsPerSlice = 8;
  const int64_t a_slices = a_in_place ? 0 : std::max<int64_t>(1, (d.m + kRowsPerSlice - 1) / kRowsPerSlice);
  const int64_t b_slices = std::max<int64_t>(1, (panels + kPanelsPerSlice - 1) / kPanelsPerSlice);
  const int64_t a_tasks = bm.n1 * a_slices, b_tasks = bm.n2 * b_slices;
  std::vector<UnitCounters> load_cnt(static_cast<size_t>(a_tasks + b_tasks));
  parallelFor(a_tasks + b_tasks, [&](int64_t t) {
    if (t < a_tasks) {
      const int64_t mat = t / a_slices, r0 = t % a_slices * kRowsPerSlice, rows = std::min(kRowsPerSlice, d.m - r0);
      GmMatrix g = viewOf(x1, mat * matSize(x1), d.ta);
      g.offset += r0 * g.rs;
      cube.load_a(g, rows, d.k, rnd, const_cast<float*>(a_l0) + mat * a_size + r0 * d.k, &load_cnt[t]);
    } else {
      const int64_t u = t - a_tasks, mat = u / b_slices, p0 = u % b_slices * kPanelsPerSlice;
      const int64_t cols = std::min(kPanelsPerSlice * kTile, d.n - p0 * kTile);
      GmMatrix g = viewOf(x2, mat * matSize(x2), d.tb);
      g.offset += p0 * kTile * g.cs;
      cube.load_b(g, d.k, cols, rnd, b_l0 + mat * b_size + p0 * d.k * kTile, &load_cnt[t]);
    }
  });
  const bool through_fp16 = call.ctx.precision == PrecisionMode::kForceFp16 && y.dtype == ACL_FLOAT;
  // An fp32 result is the fp32 output itself (ND, row-major [batch][m][n]):
  // the Cube accumulates straight into GM and the store pass is skipped.
  const bool direct = y.dtype == ACL_FLOAT && !through_fp16;
  float* c = direct ? static_cast<float*>(y.data) : threadScratch(ScratchSlot::kResult, s.batches * d.m * d.n);
  const std::vector<Region> regions = hostRegionsOf(d, s.batches, s.nt);  // Note [Host split of the Cube's work]
  std::vector<UnitCounters> cnt(regions.size());
  parallelFor(static_cast<int64_t>(regions.size()), [&](int64_t ri) {
    const Region& r = regions[static_cast<size_t>(ri)];
    const CubeOperands op{a_l0 + bm.i1[r.b] * a_size, b_l0 + bm.i2[r.b] * b_size, d.m, d.n, d.k};
    float* cb = c + r.b * d.m * d.n;
    cube.mmad_f32(op, bias.empty() ? nullptr : bias.data(), r.r0, r.r1, r.p0, r.p1, cb, &cnt[ri]);
    const int64_t j0 = r.p0 * kTile, j1 = std::min(d.n, r.p1 * kTile);
    for (int64_t i = r.r0; i < r.r1; ++i) {
      float* row = cb + i * d.n;
      if (through_fp16) {  // force_fp16: the cube result is an fp16 value
        std::vector<uint16_t> h(static_cast<size_t>(j1 - j0));
        for (int64_t j = j0; j < j1; ++j) h[j - j0] = floatToHalf(row[j]);
        if (vectorUnit().fp16_overflow(h.data(), j1 - j0, call.ctx.fp16_saturation))
          cnt[ri].fp16_overflow = true;
        for (int64_t j = j0; j < j1; ++j) row[j] = halfToFloat(h[j - j0]);
      }
      mteUnit().store_f32(y.dtype, direct ? nullptr : y.data, (r.b * d.m + i) * d.n + j0, j1 - j0, row + j0,
                          &cnt[ri]);
    }
  });
  bool overflow = false;
  for (const UnitCounters& u : load_cnt) overflow = overflow || u.fp16_overflow;
  for (const UnitCounters& u : cnt) overflow = overflow || u.fp16_overflow;
  if (overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

void computeInt8(const OpCall& call, const MatmulDims& d, const CubeSplit& s, const BatchMap& bm) {
  const TensorArg& x1 = call.inputs[0];
  const TensorArg& x2 = call.inputs[1];
  const TensorArg& y = call.outputs[0];
  const int32_t* bias = call.inputs.size() == 3 ? static_cast<const int32_t*>(call.inputs[2].data) : nullptr;
  // Operands as row-major [m][k] / [k][n] int8 (transposes resolved).
  const int64_t a_size = d.m * d.k, b_size = d.k * d.n;
  std::vector<int8_t> a(static_cast<size_t>(bm.n1 * a_size)), b(static_cast<size_t>(bm.n2 * b_size));
  const int8_t* p1 = static_cast<const int8_t*>(x1.data);
  const int8_t* p2 = static_cast<const int8_t*>(x2.data);
  for (int64_t t = 0; t < bm.n1; ++t)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t kk = 0; kk < d.k; ++kk)
        a[t * a_size + i * d.k + kk] = p1[t * matSize(x1) + (d.ta ? kk * d.m + i : i * d.k + kk)];
  for (int64_t t = 0; t < bm.n2; ++t)
    for (int64_t kk = 0; kk < d.k; ++kk)
      for (int64_t j = 0; j < d.n; ++j)
        b[t * b_size + kk * d.n + j] = p2[t * matSize(x2) + (d.tb ? j * d.k + kk : kk * d.n + j)];
  int32_t* out = static_cast<int32_t*>(y.data);
  parallelFor(s.blocks, [&](int64_t block) {
    UnitCounters cnt;
    for (const Region& r : regionsOf(s, d, block))
      cubeUnit().mmad_s8(a.data() + bm.i1[r.b] * a_size, b.data() + bm.i2[r.b] * b_size, bias, d.m, d.n, d.k, r.r0, r.r1,
                         r.p0 * kTile, std::min(d.n, r.p1 * kTile), out + r.b * d.m * d.n, &cnt);
  });
}

void computeMatmul(const OpCall& call) {
  const MatmulDims d = dimsOf(call);
  const CubeSplit s = splitOf(d, call.ctx.cube_cores);
  const int64_t batches = numelOf(d.batch);
  if (batches == 0 || d.m == 0 || d.n == 0) return;
  const BatchMap bm = batchMapOf(call, d);
  if (isInt8(call))
    computeInt8(call, d, s, bm);
  else
    computeFloat(call, d, s, bm);
}

// Cost from the Cube's and MTE's accounting over the same split as compute.
KernelCost costMatmul(const OpCall& call) {
  const MatmulDims d = dimsOf(call);
  const CubeSplit s = splitOf(d, call.ctx.cube_cores);
  const CubeUnit& cube = cubeUnit();
  UnitCounters u;
  for (int64_t block = 0; block < s.blocks; ++block)
    for (const Region& r : regionsOf(s, d, block)) {
      const int64_t cols = std::min(d.n, r.p1 * kTile) - r.p0 * kTile;
      u.cube_macs += cube.padded_macs(r.r1 - r.r0, cols, d.k);
    }
  KernelCost c;
  c.core = CoreType::kCube;
  c.cube_macs = u.cube_macs;
  // MTE: each input read once (distinct broadcast matrices), the output written once.
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  c.flops = 2.0 * static_cast<double>(numelOf(d.batch)) * static_cast<double>(d.m) * static_cast<double>(d.n) *
            static_cast<double>(d.k);
  c.block_dim = static_cast<uint32_t>(std::max<int64_t>(s.blocks, 1));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MatMul", &validateMatmul, &computeMatmul, &costMatmul});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"BatchMatMul", &validateMatmul, &computeMatmul, &costMatmul});

}  // namespace
}  // namespace ascend_sim
