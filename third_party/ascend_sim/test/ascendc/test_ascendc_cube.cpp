// Ascend C kernels on the simulator: the Cube path (GM -> L1 -> L0A/L0B -> Mmad -> L0C -> UB) in a
// matmul + LeakyRelu kernel, against a host reference with the Cube's arithmetic, and its cost.
#include <cmath>

#include "ascendc/ascendc_test_util.h"

using namespace ascendc_test;

namespace {

struct MatmulTiling {
  uint32_t M, N, K;       // C[M][N] = A[M][K] x B[K][N]
  uint32_t baseM, baseN;  // one block's tile of C
  float alpha;            // LeakyRelu's slope
};

__global__ __aicore__ void matmul_leakyrelu(GM_ADDR a, GM_ADDR b, GM_ADDR c, MatmulTiling t) {
  const uint32_t tilesN = t.N / t.baseN;
  const uint32_t row0 = GetBlockIdx() / tilesN * t.baseM, col0 = GetBlockIdx() % tilesN * t.baseN;
  GlobalTensor<half> ga, gb;
  GlobalTensor<float> gc;
  ga.SetGlobalBuffer((__gm__ half*)a, uint64_t{t.M} * t.K);
  gb.SetGlobalBuffer((__gm__ half*)b, uint64_t{t.K} * t.N);
  gc.SetGlobalBuffer((__gm__ float*)c, uint64_t{t.M} * t.N);
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc1;
  TQue<TPosition::VECIN, 1> qv;
  pipe.InitBuffer(qa1, 1, t.baseM * t.K * 2);
  pipe.InitBuffer(qb1, 1, t.K * t.baseN * 2);
  pipe.InitBuffer(qa2, 1, t.baseM * t.K * 2);
  pipe.InitBuffer(qb2, 1, t.K * t.baseN * 2);
  pipe.InitBuffer(qc1, 1, t.baseM * t.baseN * 4);
  pipe.InitBuffer(qv, 1, t.baseM * t.baseN * 4);

  // GM -> L1: baseM whole rows of A; K rows of baseN columns of B.
  LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
  DataCopy(a1, ga[uint64_t{row0} * t.K], t.baseM * t.K);
  DataCopy(b1, gb[col0], DataCopyParams(t.K, t.baseN * 2 / 32, (t.N - t.baseN) * 2 / 32, 0));
  qa1.EnQue(a1);
  qb1.EnQue(b1);
  // L1 -> L0A / L0B, fractal by fractal.
  a1 = qa1.DeQue<half>();
  b1 = qb1.DeQue<half>();
  LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
  LoadData2dParams la;
  la.repeatTimes = static_cast<uint8_t>(t.baseM * t.K * 2 / kFractalBytes);
  LoadData(a2, a1, la);
  LoadData2dParams lb;
  lb.repeatTimes = static_cast<uint8_t>(t.K * t.baseN * 2 / kFractalBytes);
  LoadData(b2, b1, lb);
  qa2.EnQue(a2);
  qb2.EnQue(b2);
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  // The Cube.
  a2 = qa2.DeQue<half>();
  b2 = qb2.DeQue<half>();
  LocalTensor<float> c1 = qc1.AllocTensor<float>();
  Mmad(c1, a2, b2, MmadParams(t.baseM, t.baseN, t.K));
  qc1.EnQue(c1);
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  // L0C -> UB, LeakyRelu, UB -> GM into rows row0.. and columns col0.. of C.
  c1 = qc1.DeQue<float>();
  LocalTensor<float> v = qv.AllocTensor<float>();
  Fixpipe(v, c1, FixpipeParams(t.baseN, t.baseM, 0, 0));
  qc1.FreeTensor(c1);
  LeakyRelu(v, v, t.alpha, t.baseM * t.baseN);
  qv.EnQue(v);
  v = qv.DeQue<float>();
  DataCopy(gc[uint64_t{row0} * t.N + col0], v, DataCopyParams(t.baseM, t.baseN * 4 / 32, 0, (t.N - t.baseN) * 4 / 32));
  qv.FreeTensor(v);
}

TEST_F(AscendCTest, MatmulLeakyReluOnTheCubeMatchesTheHost) {
  const MatmulTiling t{128, 96, 64, 32, 32, 0.1f};
  std::vector<half> a(t.M * t.K), b(t.K * t.N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = half(std::sin(0.11f * i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = half(std::cos(0.07f * i) - 0.2f);
  void *da = upload(a), *db = upload(b), *dc = devAlloc(t.M * t.N * 4);
  const uint32_t blocks = (t.M / t.baseM) * (t.N / t.baseN);
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(matmul_leakyrelu)(blocks, nullptr, da, db, dc, t));
  auto c = download<float>(dc, t.M * t.N);
  for (uint32_t i = 0; i < t.M; ++i)
    for (uint32_t j = 0; j < t.N; ++j) {
      float acc = 0;  // the Cube's order: fp32 fused multiply-adds in ascending k
      for (uint32_t k = 0; k < t.K; ++k) acc = std::fma(float(a[i * t.K + k]), float(b[k * t.N + j]), acc);
      const float want = acc >= 0 ? acc : acc * t.alpha;
      ASSERT_EQ(c[i * t.N + j], want) << i << "," << j;
    }
  // The record: an AI Core kernel of `blocks` blocks with the Cube's FLOPs.
  const ascend_sim::TaskRecord r = lastRecord("matmul_leakyrelu");
  ASSERT_NE(r.detail, nullptr);
  EXPECT_EQ(r.detail->core, ACL_CORE_AI_CORE);
  EXPECT_EQ(r.detail->block_dim, blocks);
  EXPECT_GE(r.detail->flops, 2.0 * t.M * t.N * t.K);
  EXPECT_GT(r.detail->cube_ratio, 0);
}

__global__ __aicore__ void mmad_wrong_positions(GM_ADDR) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(q, 1, 512);
  pipe.InitBuffer(qc, 1, 1024);
  LocalTensor<half> a = q.AllocTensor<half>();
  LocalTensor<float> c = qc.AllocTensor<float>();
  Mmad(c, a, a, MmadParams(16, 16, 16));
}

TEST_F(AscendCTest, MmadTakesItsOperandsFromL0) {
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(mmad_wrong_positions)(1, nullptr, nullptr));
  const std::string err = syncError();
  EXPECT_NE(err.find("Mmad multiplies A2 (L0A) by B2 (L0B) into CO1 (L0C); got VECIN x VECIN -> CO1"),
            std::string::npos)
      << err;
}

}  // namespace
