// Ascend C on the simulator: the Cube path — LoadData (L1 -> L0A/L0B, the MTE1 pipe), Mmad (the
// Cube, the M pipe) and Fixpipe (L0C -> GM or UB, the FIX pipe).
//
// Note [Cube operands are row-major here]
// On the chip, L0A holds A in 16x16 fractals ("ZZ"), L0B holds B in "ZN" fractals and L0C holds C in
// "NZ" fractals, and kernels convert ND data with DataCopy's Nd2Nz parameters on the way in. The
// simulator keeps the Cube's operands row-major: A2 is A[m][k], B2 is B[k][n] and CO1 is C[m][n]
// in fp32, each packed densely. LoadData copies 512-byte fractals (16x16 of a 2-byte type, 16x8 of
// fp32) whatever they hold, so a kernel that moves row-major tiles fractal by fractal runs
// unchanged; only the Nd2Nz conversions of a chip kernel have no counterpart. What the simulator
// does keep is the Cube's arithmetic (fp16 or fp32 operands, fp32 accumulation in ascending k,
// as the built-in MatMul kernel) and its cost: m, n and k padded to 16, 4096 MACs per cycle.
#pragma once

#include "ascend_sim/ascendc/tensor.h"

namespace AscendC {

constexpr uint32_t kFractalBytes = 512;  // one 16x16 fractal of a 2-byte type

struct LoadData2dParams {
  uint16_t startIndex = 0;  // first source fractal
  uint8_t repeatTimes = 0;  // fractals copied
  uint16_t srcStride = 0;   // fractals between consecutive source fractals (0 counts as 1)
  uint8_t sid = 0;
  uint16_t dstGap = 0;       // fractals skipped between consecutive destination fractals
  bool ifTranspose = false;  // transpose each 16x16 fractal (2-byte types)
  uint8_t addrMode = 0;
};

// Copies fractals from L1 (A1/B1) into L0A (A2) or L0B (B2).
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dParams& params) {
  constexpr const char* api = "LoadData";
  const sim::Memory from = sim::memoryOf(src.GetPosition()), to = sim::memoryOf(dst.GetPosition());
  if (from != sim::Memory::L1 || (to != sim::Memory::L0A && to != sim::Memory::L0B))
    sim::fail(std::string(api) + " moves fractals from L1 (A1/B1) to L0A (A2) or L0B (B2), not from " +
              sim::positionName(src.GetPosition()) + " to " + sim::positionName(dst.GetPosition()));
  if (params.ifTranspose && sizeof(T) != 2) sim::fail(std::string(api) + ": ifTranspose needs a 2-byte type");
  const uint64_t frac = kFractalBytes / sizeof(T);
  const uint64_t src_step = params.srcStride == 0 ? 1 : params.srcStride;
  const uint64_t reps = params.repeatTimes;
  if (reps == 0) return;
  src.require(static_cast<int64_t>((params.startIndex + (reps - 1) * src_step + 1) * frac), api, "the source");
  dst.require(static_cast<int64_t>(((reps - 1) * (1 + uint64_t{params.dstGap}) + 1) * frac), api, "the destination");
  for (uint64_t r = 0; r < reps; ++r) {
    const T* s = src.data() + (params.startIndex + r * src_step) * frac;
    T* d = dst.data() + r * (1 + uint64_t{params.dstGap}) * frac;
    if (params.ifTranspose) {
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) d[j * 16 + i] = s[i * 16 + j];
    } else {
      std::memcpy(d, s, kFractalBytes);
    }
  }
  sim::Block& b = sim::block();
  b.issue("LoadData", PIPE_MTE1, sim::kL1LatencyCycles + double(reps) * kFractalBytes / sim::kL1BytesPerCycle,
          {src.buffer()}, dst.buffer());
}

struct MmadParams {
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;  // true: C = A x B; false: C += A x B
  MmadParams() = default;
  MmadParams(uint16_t m_, uint16_t n_, uint16_t k_) : m(m_), n(n_), k(k_) {}
};

// C[m][n] (CO1, fp32) = (or +=) A[m][k] (A2) x B[k][n] (B2), Note [Cube operands are row-major here].
template <typename C, typename A, typename B>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter, const MmadParams& p) {
  constexpr const char* api = "Mmad";
  static_assert(std::is_same_v<C, float> || std::is_same_v<C, int32_t>, "Mmad accumulates in fp32 (or int32)");
  if (sim::memoryOf(dst.GetPosition()) != sim::Memory::L0C || sim::memoryOf(fm.GetPosition()) != sim::Memory::L0A ||
      sim::memoryOf(filter.GetPosition()) != sim::Memory::L0B)
    sim::fail(std::string(api) + " multiplies A2 (L0A) by B2 (L0B) into CO1 (L0C); got " +
              sim::positionName(fm.GetPosition()) + " x " + sim::positionName(filter.GetPosition()) + " -> " +
              sim::positionName(dst.GetPosition()));
  if (p.isBias)
    sim::fail(std::string(api) +
              ": isBias (a bias table) is not modelled by the simulator; add the bias on the "
              "Vector unit");
  const int64_t m = p.m, n = p.n, k = p.k;
  fm.require(m * k, api, "A (fm)");
  filter.require(k * n, api, "B (filter)");
  dst.require(m * n, api, "C (dst)");
  const A* a = fm.data();
  const B* b = filter.data();
  C* c = dst.data();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      C acc = p.cmatrixInitVal ? C(0) : c[i * n + j];
      for (int64_t kk = 0; kk < k; ++kk) {
        if constexpr (std::is_same_v<C, float>)
          acc = std::fma(static_cast<float>(a[i * k + kk]), static_cast<float>(b[kk * n + j]), acc);
        else
          acc += static_cast<C>(a[i * k + kk]) * static_cast<C>(b[kk * n + j]);
      }
      c[i * n + j] = acc;
    }
  auto pad = [](int64_t v) { return double((v + 15) / 16 * 16); };
  sim::Block& blk = sim::block();
  blk.usedCube();
  blk.countFlops(2.0 * m * n * k);
  const double macs = pad(m) * pad(n) * pad(k) * (sizeof(A) == 4 ? 2.0 : 1.0);  // fp32 at half rate (assumed)
  blk.issue("Mmad", PIPE_M, sim::kCubeStartCycles + macs / blk.info().core.cube_macs_per_cycle,
            {fm.buffer(), filter.buffer(), p.cmatrixInitVal ? nullptr : dst.buffer()}, dst.buffer());
}

struct FixpipeParams {
  uint32_t nSize = 0;      // columns moved
  uint32_t mSize = 0;      // rows moved
  uint32_t srcStride = 0;  // elements per row of the CO1 tensor (0: nSize)
  uint32_t dstStride = 0;  // elements per row of the destination (0: nSize)
  FixpipeParams() = default;
  FixpipeParams(uint32_t n, uint32_t m, uint32_t src_stride, uint32_t dst_stride)
      : nSize(n), mSize(m), srcStride(src_stride), dstStride(dst_stride) {}
};

namespace sim {
template <typename U>
void fixRows(U* out, const float* in, const FixpipeParams& p) {
  const uint32_t ss = p.srcStride ? p.srcStride : p.nSize, ds = p.dstStride ? p.dstStride : p.nSize;
  for (uint32_t i = 0; i < p.mSize; ++i)
    for (uint32_t j = 0; j < p.nSize; ++j) out[uint64_t{i} * ds + j] = static_cast<U>(in[uint64_t{i} * ss + j]);
}
inline uint64_t fixSpan(uint32_t rows, uint32_t cols, uint32_t stride) {
  return rows == 0 ? 0 : uint64_t{rows - 1} * (stride ? stride : cols) + cols;
}
inline void checkFixSource(TPosition p) {
  if (memoryOf(p) != Memory::L0C) fail(std::string("Fixpipe moves results out of CO1 (L0C), not ") + positionName(p));
}
}  // namespace sim

// CO1 (fp32) -> global memory, converted to U (round to nearest even).
template <typename U>
void Fixpipe(const GlobalTensor<U>& dst, const LocalTensor<float>& src, const FixpipeParams& p) {
  sim::checkFixSource(src.GetPosition());
  src.require(static_cast<int64_t>(sim::fixSpan(p.mSize, p.nSize, p.srcStride)), "Fixpipe", "the source");
  U* out = dst.view(0, sim::fixSpan(p.mSize, p.nSize, p.dstStride), "Fixpipe");
  sim::fixRows(out, src.data(), p);
  const double bytes = double(p.mSize) * p.nSize * sizeof(U);
  sim::Block& b = sim::block();
  b.countGm(0, bytes);
  b.transfer("Fixpipe", PIPE_FIX, bytes, src.buffer(), nullptr);
}

// CO1 (fp32) -> a UB tensor (VECIN/VECCALC), converted to U, for vector work on the product.
template <typename U>
void Fixpipe(const LocalTensor<U>& dst, const LocalTensor<float>& src, const FixpipeParams& p) {
  sim::checkFixSource(src.GetPosition());
  if (sim::memoryOf(dst.GetPosition()) != sim::Memory::UB)
    sim::fail(std::string("Fixpipe to a local tensor writes UB, not ") + sim::positionName(dst.GetPosition()));
  src.require(static_cast<int64_t>(sim::fixSpan(p.mSize, p.nSize, p.srcStride)), "Fixpipe", "the source");
  dst.require(static_cast<int64_t>(sim::fixSpan(p.mSize, p.nSize, p.dstStride)), "Fixpipe", "the destination");
  sim::fixRows(dst.data(), src.data(), p);
  const double bytes = double(p.mSize) * p.nSize * sizeof(float);
  sim::block().issue("Fixpipe", PIPE_FIX, sim::kL1LatencyCycles + bytes / sim::kFixBytesPerCycle, {src.buffer()},
                     dst.buffer());
}

}  // namespace AscendC
