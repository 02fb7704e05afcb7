// Note [Batch norm on C0 lanes] (batch_norm_lanes.h).
#include "ops/norm/batch_norm_lanes.h"

#include <algorithm>
#include <array>

#include "aicore/thread_pool.h"
#include "common/dtype.h"
#include "ops/norm/batch_norm_math.h"
#include "ops/reduce/reduce_util.h"
#include "kernel/scratch.h"

namespace ascend_sim {
namespace bnlanes {
namespace {

constexpr int64_t kLanes = 16;

// Element offset of the [hw][16] rows of sample s, block c1.
int64_t rowsAt(const Geometry& g, int64_t s, int64_t c1) { return (s * g.blocks() + c1) * g.hw * kLanes; }

int64_t channelsOf(const Geometry& g, int64_t c1) { return std::min(kLanes, g.c - c1 * kLanes); }

// The parameters of block c1's channels as 16 lanes, zeros past the last channel.
struct Lanes {
  float v[kLanes];
  Lanes(const float* p, const Geometry& g, int64_t c1) {
    for (int64_t l = 0; l < kLanes; ++l) v[l] = l < channelsOf(g, c1) ? p[c1 * kLanes + l] : 0.0f;
  }
};

// Zeros lanes [valid, 16) of `rows` rows.
void zeroPadLanes(float* v, int64_t rows, int64_t valid) {
  if (valid == kLanes) return;
  for (int64_t r = 0; r < rows; ++r) std::fill(v + r * kLanes + valid, v + (r + 1) * kLanes, 0.0f);
}

// All samples' rows of block c1 of t into dst [n * hw][16].
void loadBlockRows(const TensorArg& t, const Geometry& g, int64_t c1, float* dst) {
  for (int64_t s = 0; s < g.n; ++s)
    loadFloat(t.dtype, t.data, rowsAt(g, s, c1), 1, g.hw * kLanes, dst + s * g.hw * kLanes);
}

// out[l] = sum of column l of rows [m][16] (destroys rows), for the block's channels.
void sumColumns(float* rows, const Geometry& g, int64_t c1, int64_t block, float* out) {
  float lanes[kLanes];
  reduceColumnsFloat(rows, g.m(), kLanes, block, ReduceKind::kSum, lanes);
  std::copy(lanes, lanes + channelsOf(g, c1), out + c1 * kLanes);
}

// fn(s, c1) for every (sample, block), in parallel.
template <typename Fn>
void forSampleBlocks(const Geometry& g, Fn fn) {
  const int64_t blocks = g.blocks();
  parallelFor(g.n * blocks, g.n * blocks * g.hw * kLanes, [&](int64_t t) { fn(t / blocks, t % blocks); });
}

// out = fn(row values of the inputs, lane) over the rows of every (sample, block), pads zero.
template <typename Fn>
void mapRows(const TensorArg& in0, const TensorArg* in1, const TensorArg& out, const Geometry& g, Fn fn) {
  forSampleBlocks(g, [&](int64_t s, int64_t c1) {
    const int64_t at = rowsAt(g, s, c1), n = g.hw * kLanes;
    float* v = threadScratch(ScratchSlot::kIn0, n);  // this host thread's own
    float* w = in1 ? threadScratch(ScratchSlot::kIn1, n) : nullptr;
    loadFloat(in0.dtype, in0.data, at, 1, n, v);
    if (in1) loadFloat(in1->dtype, in1->data, at, 1, n, w);
    fn(c1, v, w);
    zeroPadLanes(v, g.hw, channelsOf(g, c1));
    storeFloat(out.dtype, out.data, at, n, v);
  });
}

// y = fn(x, p[0][c], p[1][c], p[2][c], p[3][c]) per element of channel c (y may alias x).
template <typename Fn>
void mapWithParams(const TensorArg& x, const TensorArg& y, const Geometry& g, const std::array<const float*, 4>& p,
                   Fn fn) {
  mapRows(x, nullptr, y, g, [&](int64_t c1, float* v, float*) {
    const Lanes p0(p[0], g, c1), p1(p[1], g, c1), p2(p[2], g, c1), p3(p[3], g, c1);
    for (int64_t r = 0; r < g.hw; ++r)
      for (int64_t l = 0; l < kLanes; ++l) {
        float& e = v[r * kLanes + l];
        e = fn(e, p0.v[l], p1.v[l], p2.v[l], p3.v[l]);
      }
  });
}

}  // namespace

void reduce(const TensorArg& x, const Geometry& g, int64_t block, float* sum, float* square_sum) {
  parallelFor(g.blocks(), g.m() * g.c, [&](int64_t c1) {
    const int64_t n = g.m() * kLanes;
    float* v = threadScratch(ScratchSlot::kIn0, n);
    float* v2 = threadScratch(ScratchSlot::kIn1, n);
    loadBlockRows(x, g, c1, v);
    for (int64_t i = 0; i < n; ++i) v2[i] = v[i] * v[i];
    sumColumns(v, g, c1, block, sum);
    sumColumns(v2, g, c1, block, square_sum);
  });
}

void update(const TensorArg& x, const TensorArg& y, const Geometry& g, const float* mean, const float* invstd,
            const float* scale, const float* offset) {
  mapWithParams(x, y, g, {mean, invstd, scale, offset},
                [](float v, float mu, float is, float sc, float of) { return bnmath::normalized(v, mu, is, sc, of); });
}

void infer(const TensorArg& x, const TensorArg& y, const Geometry& g, const float* mean, const float* den,
           const float* scale, const float* offset) {
  mapWithParams(x, y, g, {mean, den, scale, offset},
                [](float v, float mu, float dn, float sc, float of) { return bnmath::inferred(v, mu, dn, sc, of); });
}

void updateGrad(const TensorArg& dy, const TensorArg& x, const Geometry& g, int64_t block, const float* mean,
                const float* invstd, float* diff_scale, float* diff_offset) {
  parallelFor(g.blocks(), g.m() * g.c, [&](int64_t c1) {
    const int64_t n = g.m() * kLanes;
    float* gs = threadScratch(ScratchSlot::kIn0, n);
    float* xs = threadScratch(ScratchSlot::kIn1, n);
    loadBlockRows(dy, g, c1, gs);
    loadBlockRows(x, g, c1, xs);
    const Lanes mu(mean, g, c1);
    for (int64_t i = 0; i < n; ++i) xs[i] = bnmath::centredGrad(gs[i], xs[i], mu.v[i % kLanes]);
    sumColumns(gs, g, c1, block, diff_offset);
    sumColumns(xs, g, c1, block, diff_scale);
    for (int64_t ch = c1 * kLanes; ch < c1 * kLanes + channelsOf(g, c1); ++ch) diff_scale[ch] *= invstd[ch];
  });
}

void reduceGrad(const TensorArg& dy, const TensorArg& x, const TensorArg& dx, const Geometry& g, const float* k,
                const float* a, const float* mean, const float* b) {
  mapRows(dy, &x, dx, g, [&](int64_t c1, float* v, float* xv) {
    const Lanes kl(k, g, c1), al(a, g, c1), mu(mean, g, c1), bl(b, g, c1);
    for (int64_t r = 0; r < g.hw; ++r)
      for (int64_t l = 0; l < kLanes; ++l) {
        float& e = v[r * kLanes + l];
        e = bnmath::inputGrad(e, xv[r * kLanes + l], kl.v[l], al.v[l], mu.v[l], bl.v[l]);
      }
  });
}

}  // namespace bnlanes
}  // namespace ascend_sim
