// Pipe timelines of Ascend C kernel launches as Chrome traces (docs/ascend_c.md, "Seeing the pipes").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ascend_sim/aclsim_kernel.h"

namespace ascend_sim {

// With ASCEND_SIM_KERNEL_TRACE_DIR set, each launch writes <dir>/<n>_<kernel>.json (the folder is created): one process per
// block (the first kMaxBlocks), one thread per pipe, one event per instruction, times in simulated
// microseconds from the block's start.
class KernelTrace {
 public:
  static constexpr uint32_t kMaxBlocks = 64;
  static constexpr size_t kMaxEvents = 1 << 20;

  // A trace for this launch, or null when tracing is off.
  static std::unique_ptr<KernelTrace> begin(const std::string& kernel, uint32_t block_dim);
  // Points `block`'s instruction callback at this trace (blocks past kMaxBlocks are not traced).
  void attach(aclsimKernelBlock* block);
  // Writes the file; returns its path ("" if it could not be written).
  std::string write() const;

 private:
  struct Event {
    uint32_t block;
    int pipe;
    std::string name;
    double start_us, end_us;
  };
  struct BlockContext {
    KernelTrace* trace;
    uint32_t block;
  };
  static void onInstruction(void* ctx, int pipe, const char* instruction, double start_us, double end_us);

  std::string dir_, kernel_;
  uint64_t launch_ = 0;
  uint32_t block_dim_ = 0;
  std::vector<BlockContext> contexts_;
  std::vector<Event> events_;
  size_t dropped_ = 0;
};

}  // namespace ascend_sim
