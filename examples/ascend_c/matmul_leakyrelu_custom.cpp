// matmul_leakyrelu_custom: c = leaky_relu(a @ b) on the Cube, after Ascend's matmul + LeakyRelu
// sample. Each block computes baseM x baseN tiles of c: for each baseK step, the tiles of a and b
// go GM -> L1 (A1/B1, two buffers, so the next step's loads overlap the Cube) -> L0A/L0B, and Mmad
// accumulates into L0C; Fixpipe then moves the product to UB, where the Vector unit applies
// LeakyRelu before the copy to GM. Cube operands are row-major (Note [Cube operands are row-major
// here] in ascend_sim/ascendc/cube.h).
#include <algorithm>

#include "kernels.h"

using namespace AscendC;

namespace {

class KernelMatmulLeakyRelu {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MatmulLeakyReluTiling& tiling) {
    t = tiling;
    aGm.SetGlobalBuffer((__gm__ half*)a, uint64_t{t.M} * t.K);
    bGm.SetGlobalBuffer((__gm__ half*)b, uint64_t{t.K} * t.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, uint64_t{t.M} * t.N);
    pipe.InitBuffer(qA1, 2, t.baseM * t.baseK * sizeof(half));
    pipe.InitBuffer(qB1, 2, t.baseK * t.baseN * sizeof(half));
    pipe.InitBuffer(qA2, 1, t.baseM * t.baseK * sizeof(half));
    pipe.InitBuffer(qB2, 1, t.baseK * t.baseN * sizeof(half));
    pipe.InitBuffer(qCO1, 1, t.baseM * t.baseN * sizeof(float));
    pipe.InitBuffer(qOut, 1, t.baseM * t.baseN * sizeof(float));
  }
  __aicore__ inline void Process() {
    const uint32_t tilesM = (t.M + t.baseM - 1) / t.baseM, tilesN = (t.N + t.baseN - 1) / t.baseN;
    for (uint32_t tile = GetBlockIdx(); tile < tilesM * tilesN; tile += GetBlockNum()) {
      const uint32_t row0 = tile / tilesN * t.baseM, col0 = tile % tilesN * t.baseN;
      const uint32_t rows = std::min(t.baseM, t.M - row0), cols = std::min(t.baseN, t.N - col0);
      LocalTensor<float> acc = qCO1.AllocTensor<float>();
      for (uint32_t k0 = 0; k0 < t.K; k0 += t.baseK) {
        const uint32_t depth = std::min(t.baseK, t.K - k0);
        CopyIn(row0, col0, k0, rows, cols, depth);
        SplitToL0(rows, cols, depth);
        Multiply(acc, rows, cols, depth, k0 == 0);
      }
      qCO1.EnQue(acc);
      LeakyReluAndCopyOut(row0, col0, rows, cols);
    }
  }

 private:
  // a[row0 .. + rows][k0 .. + depth] and b[k0 .. + depth][col0 .. + cols] into L1, row-major.
  __aicore__ inline void CopyIn(uint32_t row0, uint32_t col0, uint32_t k0, uint32_t rows, uint32_t cols,
                                uint32_t depth) {
    LocalTensor<half> a1 = qA1.AllocTensor<half>(), b1 = qB1.AllocTensor<half>();
    constexpr uint32_t perBlock = 32 / sizeof(half);
    DataCopy(a1, aGm[uint64_t{row0} * t.K + k0], DataCopyParams(rows, depth / perBlock, (t.K - depth) / perBlock, 0));
    DataCopy(b1, bGm[uint64_t{k0} * t.N + col0], DataCopyParams(depth, cols / perBlock, (t.N - cols) / perBlock, 0));
    qA1.EnQue(a1);
    qB1.EnQue(b1);
  }
  __aicore__ inline void SplitToL0(uint32_t rows, uint32_t cols, uint32_t depth) {
    LocalTensor<half> a1 = qA1.DeQue<half>(), b1 = qB1.DeQue<half>();
    LocalTensor<half> a2 = qA2.AllocTensor<half>(), b2 = qB2.AllocTensor<half>();
    LoadData2dParams la, lb;
    la.repeatTimes = static_cast<uint8_t>(Fractals(rows * depth));
    lb.repeatTimes = static_cast<uint8_t>(Fractals(depth * cols));
    LoadData(a2, a1, la);
    LoadData(b2, b1, lb);
    qA2.EnQue(a2);
    qB2.EnQue(b2);
    qA1.FreeTensor(a1);
    qB1.FreeTensor(b1);
  }
  __aicore__ inline void Multiply(LocalTensor<float>& acc, uint32_t rows, uint32_t cols, uint32_t depth, bool first) {
    LocalTensor<half> a2 = qA2.DeQue<half>(), b2 = qB2.DeQue<half>();
    MmadParams p(rows, cols, depth);
    p.cmatrixInitVal = first;  // the first step writes, the later ones accumulate
    Mmad(acc, a2, b2, p);
    qA2.FreeTensor(a2);
    qB2.FreeTensor(b2);
  }
  __aicore__ inline void LeakyReluAndCopyOut(uint32_t row0, uint32_t col0, uint32_t rows, uint32_t cols) {
    LocalTensor<float> acc = qCO1.DeQue<float>();
    LocalTensor<float> out = qOut.AllocTensor<float>();
    Fixpipe(out, acc, FixpipeParams(cols, rows, 0, 0));
    qCO1.FreeTensor(acc);
    LeakyRelu(out, out, t.alpha, rows * cols);
    qOut.EnQue(out);
    out = qOut.DeQue<float>();
    constexpr uint32_t perBlock = 32 / sizeof(float);
    DataCopy(cGm[uint64_t{row0} * t.N + col0], out, DataCopyParams(rows, cols / perBlock, 0, (t.N - cols) / perBlock));
    qOut.FreeTensor(out);
  }
  // 512-byte fractals covering n half elements.
  static uint32_t Fractals(uint32_t n) { return (n * sizeof(half) + kFractalBytes - 1) / kFractalBytes; }

  TPipe pipe;
  TQue<TPosition::A1, 2> qA1;
  TQue<TPosition::B1, 2> qB1;
  TQue<TPosition::A2, 1> qA2;
  TQue<TPosition::B2, 1> qB2;
  TQue<TPosition::CO1, 1> qCO1;
  TQue<TPosition::VECIN, 1> qOut;
  GlobalTensor<half> aGm, bGm;
  GlobalTensor<float> cGm;
  MatmulLeakyReluTiling t{};
};

}  // namespace

extern "C" __global__ __aicore__ void matmul_leakyrelu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                              MatmulLeakyReluTiling tiling) {
  KernelMatmulLeakyRelu op;
  op.Init(a, b, c, tiling);
  op.Process();
}
