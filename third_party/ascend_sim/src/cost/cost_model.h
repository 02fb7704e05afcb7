// The analytic timing model (Note [Op cost] below): work counters -> simulated
// microseconds.
//
// Note [Op cost]
//   T = t_launch + max(T_cube, T_vec, T_mte)
//   T_cube = (cube_macs + cube_int8_macs / int8 speedup) / (MACs/cycle/core x cores used x efficiency) / f
//   T_vec  = repeats x cycles per repeat / (cores used x f)
// where repeats = KernelCost::vector_repeats (counted by the Vector unit) or
// ceil(vector_bytes / 256), and cores used = KernelCost::block_dim capped at
// the engine's core count (0 = all cores). t_fill is taken as 0.
//   T_mte  = mte_bytes / HBM bandwidth
// A recurrent kernel (KernelCost::serial_steps = S > 0, DynamicRNN) cannot
// overlap its units: step t's Vector work needs step t's Cube product, and
// step t+1's product needs step t's h. Its time is
//   T = t_launch + max(T_cube + T_vec + S x t_barrier, T_mte)
// with t_barrier the cores' synchronisation at the end of a step.
// With efficiency 1.0 the model meets the spec's sanity targets on 910B2
// (fp16 4096^3 matmul ~388 us, fp16 add of 64 Mi elements ~252 us) and the
// ridge point ~220 FLOP/byte on both presets. Copies: host<->device at the
// PCIe rate, device->device reads and writes HBM.
// AI CPU ops (core = kAiCpu) run on the AI CPU's ARM cores instead:
//   T = kAiCpuLaunchUs + max(mte_bytes / kAiCpuBytesPerS, flops / kAiCpuFlopsPerS)
// Data movers (AsStrided, ViewCopy) count only bytes; the linear algebra
// kernels (MatrixInverse, Cholesky, Svd, ...) are compute-bound and count
// their LAPACK FLOPs (e.g. 2/3 n^3 for an LU), so their time scales with the
// matrix size rather than its bytes; the FFT kernels count 5 n log2 n per
// complex transform of length n (Note [FFT kernels] in ops/fft/fft.cpp).
#pragma once

#include <cstddef>

#include "kernel/kernel.h"
#include "chip/chip_config.h"

namespace ascend_sim {

// Collective algorithms with a cost formula; see Note [Collective cost] in
// collective_cost.cpp.
enum class CollectiveAlgo {
  kRingAllReduce,
  kHalvingDoublingAllReduce,
  kRingAllGather,
  kRingReduceScatter,
  kBinomialBroadcast,
  kBinomialReduce,
  kPairwiseAlltoAll,
  kPointToPoint,
  kBatchPointToPoint,
  kDisseminationBarrier,
  kMeshAllReduce,          // one server, every pair linked: each rank exchanges with all at once
  kHierarchicalAllReduce,  // level 0 inside servers, level 1 between them (hccl/collective_schedule.h)
};

struct CollectiveCostInput {
  CollectiveAlgo algo = CollectiveAlgo::kRingAllReduce;
  int ranks = 1;             // p
  double bytes = 0;          // n [B], per algorithm as in the Note
  bool spans_hosts = false;  // use the inter-host link figures
};

class ASCEND_SIM_API CostModel {
 public:
  // Kernel launch overhead [us] (assumed; order of a real aclopExecute launch).
  static constexpr double kLaunchUs = 3.0;
  // Synchronisation of the cores at the end of one step of a recurrent
  // kernel [us] (assumed: a cross-core flag wait plus refilling the L0
  // buffers with the next step's operands).
  static constexpr double kStepBarrierUs = 1.0;
  // Fraction of peak Cube throughput reached [1] (1.0 matches the spec's
  // 388 us sanity target; lower it to model tiling losses).
  static constexpr double kCubeEfficiency = 1.0;
  // Fixed setup latency of one DMA copy / memset [us] (assumed).
  static constexpr double kDmaSetupUs = 1.0;
  // AI CPU ops (CANN's generic strided copies AsStrided/ViewCopy run on the
  // AI CPU's ARM cores, not the AI Core): launch latency [us] and the bytes
  // per second they move (both assumed; an order of magnitude below HBM, which
  // is why the porting guide replaces them with AI Core ops such as GatherV2).
  static constexpr double kAiCpuLaunchUs = 10.0;
  static constexpr double kAiCpuBytesPerS = 10e9;
  // Floating point operations per second of an AI CPU op [FLOP/s] (assumed:
  // a few ARM cores with NEON at the efficiency LAPACK reaches on the small
  // matrices AI CPU ops see; ~3 orders of magnitude below the Cube).
  static constexpr double kAiCpuFlopsPerS = 20e9;

  explicit CostModel(const ChipConfig& chip) : chip_(chip) {}

  // Duration of one op execution [us].
  double opUs(const KernelCost& c) const;
  // Components [us], for reporting and tests.
  double cubeUs(const KernelCost& c) const;
  double vectorUs(const KernelCost& c) const;
  double mteUs(const KernelCost& c) const;
  // An AI CPU op: launch + the longer of moving mte_bytes and computing
  // flops at the AI CPU's rates.
  double aiCpuUs(const KernelCost& c) const;

  // Duration of a copy of `bytes` [us] for the given direction.
  double memcpyUs(size_t bytes, aclrtMemcpyKind kind) const;
  // Duration of a device memset of `bytes` [us].
  double memsetUs(size_t bytes) const;

  // Duration of one collective on one rank [us] (collective_cost.cpp).
  double collectiveUs(const CollectiveCostInput& c) const;
  // Its parts: latency per step [us], time per byte on a link [us/B], and
  // the time to reduce `bytes` into a buffer of the same size [us].
  double linkAlphaUs(bool spans_hosts) const;
  double linkUsPerByte(bool spans_hosts) const;
  double reduceUs(double bytes) const;

  const ChipConfig& chip() const { return chip_; }

 private:
  ChipConfig chip_;
};

}  // namespace ascend_sim
