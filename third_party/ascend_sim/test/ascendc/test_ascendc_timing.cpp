// Ascend C kernels on the simulator: simulated time as Note [Block timeline] predicts it — double
// buffering hides latencies and compute behind the transfers, time grows with the data and divides
// over blockDim up to the core count, and blocks beyond the core count run in waves.
#include "ascendc/ascendc_test_util.h"
#include "chip/chip_config.h"
#include "cost/cost_model.h"

using namespace ascendc_test;

namespace {

class AscendCTiming : public AscendCTest {
 protected:
  // Simulated time (launch cost excluded) of add_custom<float, BUFFERS> over n elements.
  template <int BUFFERS>
  double addTime(uint32_t n, uint32_t blockDim, uint32_t tiles) {
    void *x = devAlloc(n * 4), *y = devAlloc(n * 4), *z = devAlloc(n * 4);
    EXPECT_ACL_OK(
        (AscendC::sim::makeLauncher("add_custom", &add_custom<float, BUFFERS>)(blockDim, nullptr, x, y, z, n, tiles)));
    return lastDuration("add_custom") - ascend_sim::CostModel::kLaunchUs;
  }
  double us(double cycles) const { return cycles / chip.clock_hz * 1e6; }
  // One DataCopy of `bytes` between GM and UB on an idle link: the core's share of the HBM, then
  // the latency.
  double copyUs(double bytes) const {
    return us(AscendC::sim::kGmLatencyCycles) + bytes / (chip.hbm_bytes_per_s / chip.vector_cores) * 1e6;
  }
  double vectorUs(double bytes) const {
    return us(AscendC::sim::kVectorStartCycles + std::ceil(bytes / 256) * chip.vector_cycles_per_repeat);
  }
  ascend_sim::ChipConfig chip = ascend_sim::ChipConfig::preset(aclrtGetSocName());
};

TEST_F(AscendCTiming, DoubleBufferingKeepsTheGmLinkBusy) {
  // One block, 16 tiles of `tile` floats: per tile two loads and a store of d each on the core's GM
  // link, each landing L after it leaves, and an add of a. Small tiles (latency above d) and large
  // ones (latency below d: the next load must share the link with the store in pieces).
  for (uint32_t tile : {1024u, 8192u}) {
    const double d = tile * 4.0 / (chip.hbm_bytes_per_s / chip.vector_cores) * 1e6;
    const double L = us(AscendC::sim::kGmLatencyCycles), a = vectorUs(tile * 4.0);
    // One buffer per queue: tile i + 1's loads wait for tile i's add to release the input buffers,
    // and follow tile i's store on the link: a period of three transfers, one latency and the add.
    const double single = addTime<1>(16 * tile, 1, 16);
    EXPECT_NEAR(single, 16 * (3 * d + L + a) + L, 1e-6 * single) << tile;
    // Two: the next tile's loads go into the other buffers while this tile waits, adds and stores,
    // so the link carries a transfer nearly all the time; the latencies and adds hide behind it.
    const double twice = addTime<2>(16 * tile, 1, 8);
    EXPECT_GE(twice, 48 * d + L) << tile;
    EXPECT_LE(twice, 48 * d + 2 * (L + a) + d) << tile << ": single " << single << " us, double " << twice << " us";
  }
}

TEST_F(AscendCTiming, TimeGrowsWithTheDataAndDividesOverBlocks) {
  const double base = addTime<2>(8 * 32768, 8, 16);
  EXPECT_NEAR(addTime<2>(16 * 32768, 8, 32), 2 * base, 0.05 * base) << "twice the data";
  const double one_block = addTime<2>(8 * 32768, 1, 128);  // the same tiles, all on one core
  EXPECT_GT(one_block / base, 7.5);
  EXPECT_LT(one_block / base, 8.01);
  // Past the core count, blocks run in waves: twice the cores' worth of blocks with the same share
  // each takes two waves.
  const uint32_t cores = static_cast<uint32_t>(chip.vector_cores);
  const double wave = addTime<2>(cores * 4096, cores, 2);
  EXPECT_NEAR(addTime<2>(2 * cores * 4096, 2 * cores, 2), 2 * wave, 1e-9 * wave);
}

// A vector-bound kernel: each block loads one tile, then applies Exp rounds / blockDim times.
__global__ __aicore__ void exp_rounds(GM_ADDR x, uint32_t tile, uint32_t rounds) {
  TPipe pipe;
  TBuf<QuePosition::VECCALC> buf;
  pipe.InitBuffer(buf, tile * 4);
  GlobalTensor<float> gx;
  gx.SetGlobalBuffer((__gm__ float*)x);
  LocalTensor<float> t = buf.Get<float>();
  DataCopy(t, gx, tile);
  for (uint32_t r = 0; r < rounds / GetBlockNum(); ++r) Exp(t, t, tile);
}

TEST_F(AscendCTiming, VectorWorkDividesOverBlockDim) {
  void* x = devAlloc(4096 * 4);
  ASSERT_ACL_OK(aclrtMemset(x, 4096 * 4, 0, 4096 * 4));
  auto run = [&](uint32_t blocks) {
    EXPECT_ACL_OK(ACLRT_LAUNCH_KERNEL(exp_rounds)(blocks, nullptr, x, 4096u, 256u));
    return lastDuration("exp_rounds") - ascend_sim::CostModel::kLaunchUs;
  };
  const double load = copyUs(16384), exp = vectorUs(16384);
  EXPECT_NEAR(run(1), load + 256 * exp, 1e-6);
  EXPECT_NEAR(run(8), load + 32 * exp, 1e-6);
}

}  // namespace
