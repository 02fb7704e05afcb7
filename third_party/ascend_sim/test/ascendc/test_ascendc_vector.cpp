// Ascend C kernels on the simulator: results of the vector instructions against a host reference,
// the add_custom sample over several blocks, and the launch's record.
#include <cmath>

#include "ascendc/ascendc_test_util.h"

using namespace ascendc_test;

namespace {

template <typename T>
std::vector<T> ramp(size_t n, float scale, float offset) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(std::sin(0.37f * i) * scale + offset);
  return v;
}

using AscendCVector = AscendCTest;

TEST_F(AscendCVector, AddCustomMatchesTheHostOverBlocksAndTiles) {
  const uint32_t n = 8 * 2048;
  auto x = ramp<float>(n, 3, 0), y = ramp<float>(n, -2, 1);
  void *dx = upload(x), *dy = upload(y), *dz = devAlloc(n * 4);
  ASSERT_ACL_OK((AscendC::sim::makeLauncher("add_custom", &add_custom<float, 2>)(8, nullptr, dx, dy, dz, n, 8u)));
  auto z = download<float>(dz, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
  // The launch is a task of the stream, recorded under the kernel's name with its block dim.
  const ascend_sim::TaskRecord r = lastRecord("add_custom");
  EXPECT_EQ(r.kind, ascend_sim::TaskKind::kOp);
  ASSERT_NE(r.detail, nullptr);
  EXPECT_EQ(r.detail->block_dim, 8u);
  EXPECT_EQ(r.detail->bytes, 3.0 * n * 4);
  EXPECT_EQ(r.detail->core, ACL_CORE_VECTOR);
  EXPECT_GT(r.duration_us, ascend_sim::CostModel::kLaunchUs);
}

TEST_F(AscendCVector, HalfAddRoundsOnceLikeTheHost) {
  const uint32_t n = 4 * 1024;
  auto x = ramp<half>(n, 1000, 0), y = ramp<half>(n, 0.01f, 0.3f);
  void *dx = upload(x), *dy = upload(y), *dz = devAlloc(n * 2);
  ASSERT_ACL_OK((AscendC::sim::makeLauncher("add_custom", &add_custom<half, 1>)(4, nullptr, dx, dy, dz, n, 4u)));
  auto z = download<half>(dz, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(float(z[i]), float(half(float(x[i]) + float(y[i])))) << i;
}

// Every elementwise instruction on one 256-element float tile: out[k][i] for instruction k.
constexpr uint32_t kTile = 256;
constexpr int kOps = 16;

__global__ __aicore__ void vector_ops(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> qa, qb;
  TBuf<QuePosition::VECCALC> calc;
  TQue<QuePosition::VECOUT, 1> qo;
  pipe.InitBuffer(qa, 1, kTile * 4);
  pipe.InitBuffer(qb, 1, kTile * 4);
  pipe.InitBuffer(calc, kTile * 4 + 64);
  pipe.InitBuffer(qo, 1, kOps * kTile * 4);
  GlobalTensor<float> ga, gb, go;
  ga.SetGlobalBuffer((__gm__ float*)a, kTile);
  gb.SetGlobalBuffer((__gm__ float*)b, kTile);
  go.SetGlobalBuffer((__gm__ float*)out, kOps * kTile);
  LocalTensor<float> la = qa.AllocTensor<float>(), lb = qb.AllocTensor<float>();
  DataCopy(la, ga, kTile);
  DataCopy(lb, gb, kTile);
  qa.EnQue(la);
  qb.EnQue(lb);
  la = qa.DeQue<float>();
  lb = qb.DeQue<float>();
  LocalTensor<float> o = qo.AllocTensor<float>();
  Add(o[0 * kTile], la, lb, kTile);
  Sub(o[1 * kTile], la, lb, kTile);
  Mul(o[2 * kTile], la, lb, kTile);
  Div(o[3 * kTile], la, lb, kTile);
  Max(o[4 * kTile], la, lb, kTile);
  Min(o[5 * kTile], la, lb, kTile);
  Adds(o[6 * kTile], la, 1.5f, kTile);
  Muls(o[7 * kTile], la, -2.0f, kTile);
  Exp(o[8 * kTile], la, kTile);
  Abs(o[9 * kTile], la, kTile);
  Relu(o[10 * kTile], la, kTile);
  LeakyRelu(o[11 * kTile], la, 0.01f, kTile);
  Duplicate(o[12 * kTile], 7.0f, kTile);
  // Ln and Sqrt of |a| + 1.
  LocalTensor<float> t = calc.Get<float>(kTile);
  Abs(t, la, kTile);
  Adds(t, t, 1.0f, kTile);
  Ln(o[13 * kTile], t, kTile);
  Sqrt(o[14 * kTile], t, kTile);
  // where(a > b, a, -1): Compare into a bit mask, then Select.
  LocalTensor<uint8_t> mask = calc.Get<uint8_t>()[kTile * 4];
  Compare(mask, la, lb, CMPMODE::GT, kTile);
  Select(o[15 * kTile], mask, la, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kTile);
  qo.EnQue(o);
  qa.FreeTensor(la);
  qb.FreeTensor(lb);
  o = qo.DeQue<float>();
  DataCopy(go, o, kOps * kTile);
  qo.FreeTensor(o);
}

TEST_F(AscendCVector, ElementwiseInstructionsMatchTheHost) {
  auto a = ramp<float>(kTile, 4, 0.1f), b = ramp<float>(kTile, -3, 0.7f);
  void *da = upload(a), *db = upload(b), *dout = devAlloc(kOps * kTile * 4);
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(vector_ops)(1, nullptr, da, db, dout));
  auto o = download<float>(dout, kOps * kTile);
  for (uint32_t i = 0; i < kTile; ++i) {
    const float x = a[i], y = b[i], t = std::fabs(x) + 1.0f;
    const float want[kOps] = {x + y,
                              x - y,
                              x * y,
                              x / y,
                              std::max(x, y),
                              std::min(x, y),
                              x + 1.5f,
                              x * -2.0f,
                              std::exp(x),
                              std::fabs(x),
                              std::max(x, 0.0f),
                              x >= 0 ? x : x * 0.01f,
                              7.0f,
                              std::log(t),
                              std::sqrt(t),
                              x > y ? x : -1.0f};
    for (int k = 0; k < kOps; ++k) ASSERT_EQ(o[k * kTile + i], want[k]) << "instruction " << k << " element " << i;
  }
}

// Cast to half and back, and ReduceSum / ReduceMax of one tile into out[0..2].
__global__ __aicore__ void cast_reduce(GM_ADDR a, GM_ADDR halves, GM_ADDR out) {
  TPipe pipe;
  TBuf<QuePosition::VECCALC> in, h, work, res;
  pipe.InitBuffer(in, kTile * 4);
  pipe.InitBuffer(h, kTile * 2);
  pipe.InitBuffer(work, kTile * 4);
  pipe.InitBuffer(res, 64);
  GlobalTensor<float> ga, gout;
  GlobalTensor<half> gh;
  ga.SetGlobalBuffer((__gm__ float*)a);
  gh.SetGlobalBuffer((__gm__ half*)halves);
  gout.SetGlobalBuffer((__gm__ float*)out);
  LocalTensor<float> la = in.Get<float>(), w = work.Get<float>(), r = res.Get<float>();
  LocalTensor<half> lh = h.Get<half>();
  DataCopy(la, ga, kTile);
  Cast(lh, la, RoundMode::CAST_NONE, kTile);
  DataCopy(gh, lh, kTile);
  Duplicate(r, 0.0f, 16);
  ReduceSum(r, la, w, kTile);
  ReduceMax(r[8], la, w, kTile, false);  // vector operands start 32-byte aligned
  DataCopy(gout, r, 16);
}

TEST_F(AscendCVector, CastAndReductionsMatchTheHost) {
  auto a = ramp<float>(kTile, 100, 3);
  void *da = upload(a), *dh = devAlloc(kTile * 2), *dout = devAlloc(64);
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(cast_reduce)(1, nullptr, da, dh, dout));
  auto h = download<half>(dh, kTile);
  auto o = download<float>(dout, 16);
  float sum = 0, mx = a[0];
  for (uint32_t i = 0; i < kTile; ++i) {
    ASSERT_EQ(float(h[i]), float(half(a[i]))) << i;
    sum += a[i];
    mx = std::max(mx, a[i]);
  }
  EXPECT_EQ(o[0], sum);
  EXPECT_EQ(o[8], mx);
}

}  // namespace
